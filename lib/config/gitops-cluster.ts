// The GitopsCluster document (gitops.weave.works/v1alpha1, docs/configuration.md): a leaf cluster's registration.
// Apart from schema.ts because the verifier checks the registration each poll message carries (rememberRegistration)
// and no other document: zod builds a module's schemas when it loads, and every document's were 27 KiB of the
// verifier's start and about 5 ms of its cold start's CPU (docs/benchmarks.md).
import * as z from 'zod/mini';
import { awsRegion, LocalObjectReference, Metadata } from './kubernetes-object.js';

export const GITOPS_CLUSTER_API_VERSION = 'gitops.weave.works/v1alpha1';

/** Extension: an EKS cluster reached with an IAM token; endpoint and CA come from eks:DescribeCluster. */
export const EksClusterReference = z.strictObject({
  clusterName: z
    .string()
    .check(z.minLength(1, 'must not be empty'), z.maxLength(100, 'must be at most 100 characters')),
  region: awsRegion,
  /** A role the verifier assumes before it signs the token (cross-account clusters). */
  roleArn: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, 'must be an IAM role ARN'))),
});

export const GitopsClusterSpec = z
  .strictObject({
    secretRef: z.optional(LocalObjectReference),
    capiClusterRef: z.optional(LocalObjectReference),
    clusterReadinessBackoff: z.optional(z.string()),
    eks: z.optional(EksClusterReference),
  })
  .check(
    z.superRefine((spec, ctx) => {
      const set = [spec.secretRef && 'secretRef', spec.capiClusterRef && 'capiClusterRef', spec.eks && 'eks'].filter(
        Boolean,
      );
      if (set.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message:
            set.length === 0
              ? 'set one way to reach the cluster: secretRef, capiClusterRef or eks'
              : `secretRef, capiClusterRef and eks are mutually exclusive (found ${set.join(' and ')})`,
        });
      }
    }),
  );

export const GitopsClusterDocument = z.strictObject({
  apiVersion: z.literal(GITOPS_CLUSTER_API_VERSION),
  kind: z.literal('GitopsCluster'),
  metadata: Metadata,
  spec: GitopsClusterSpec,
  status: z.optional(z.unknown()),
});

export type GitopsClusterDocument = z.infer<typeof GitopsClusterDocument>;
