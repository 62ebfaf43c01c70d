// What every configuration document shares with a Kubernetes object: its names, its metadata, a reference to a
// Secret beside it, and an AWS region. Apart from schema.ts so that a function which checks one kind of document
// (a verifier's poll, a cluster registration) builds these and that schema alone at its start, not every document's.
import * as z from 'zod';

/** Kubernetes object names (DNS-1123 subdomain) and namespaces (DNS-1123 label). */
export const dns1123Subdomain = z
  .string()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be a lowercase RFC 1123 name (a-z, 0-9, "-" and ".", starting and ending with a letter or digit)',
  );
export const dns1123Label = z
  .string()
  .min(1, 'must not be empty')
  .max(63, 'must be at most 63 characters')
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    'must be a lowercase RFC 1123 label (a-z, 0-9 and "-", starting and ending with a letter or digit)',
  );

export const Metadata = z.looseObject({
  name: dns1123Subdomain,
  namespace: dns1123Label.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

export const LocalObjectReference = z.strictObject({ name: dns1123Subdomain });

export const awsRegion = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1');
