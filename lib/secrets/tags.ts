// How Secrets are marked by use in Secrets Manager. The receiver's role may read only Secrets tagged as webhook HMAC
// keys (infra/pipeline-controller.ts), so `pipelinectl apply` tags each Secret with what references it.
export const SECRET_PURPOSE_TAG = 'pipeline-controller:purpose';

/**
 * `config-source`: a ConfigSource's read credentials and push-webhook secret, which the receiver may read too (it
 * checks the webhooks' signatures), so such a Secret serves nothing else. `check-credentials`: what a verification
 * check sends to the service it calls (docs/verification.md).
 */
export const SECRET_PURPOSES = [
  'webhook-hmac',
  'kubeconfig',
  'git-credentials',
  'config-source',
  'check-credentials',
] as const;
export type SecretPurpose = (typeof SECRET_PURPOSES)[number];

/** The tag values that let the receiver read a Secret (infra/pipeline-controller.ts grants exactly these). */
export const RECEIVER_READABLE_PURPOSES: readonly string[] = ['webhook-hmac', 'config-source'];
