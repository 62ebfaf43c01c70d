// What every configuration document shares with a Kubernetes object: its names, its metadata, a reference to a
// Secret beside it, and an AWS region. Apart from schema.ts so that a function which checks one kind of document
// (a verifier's poll, a cluster registration) builds these and that schema alone at its start, not every document's.
import * as z from 'zod/mini';

/** Kubernetes object names (DNS-1123 subdomain) and namespaces (DNS-1123 label). */
export const dns1123Subdomain = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(253, 'must be at most 253 characters'),
    z.regex(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
      'must be a lowercase RFC 1123 name (a-z, 0-9, "-" and ".", starting and ending with a letter or digit)',
    ),
  );
export const dns1123Label = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(63, 'must be at most 63 characters'),
    z.regex(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
      'must be a lowercase RFC 1123 label (a-z, 0-9 and "-", starting and ending with a letter or digit)',
    ),
  );

export const Metadata = z.looseObject({
  name: dns1123Subdomain,
  namespace: z.optional(dns1123Label),
  labels: z.optional(z.record(z.string(), z.string())),
  annotations: z.optional(z.record(z.string(), z.string())),
});

export const LocalObjectReference = z.strictObject({ name: dns1123Subdomain });

export const awsRegion = z
  .string()
  .check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-west-1'));
