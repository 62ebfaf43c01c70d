// How Secrets are marked by use in Secrets Manager. The receiver's role may read only Secrets tagged as webhook HMAC
// keys (infra/pipeline-controller.ts), so `pipelinectl apply` tags each Secret with what references it.
export const SECRET_PURPOSE_TAG = 'pipeline-controller:purpose';

export type SecretPurpose = 'webhook-hmac' | 'kubeconfig' | 'git-credentials';
