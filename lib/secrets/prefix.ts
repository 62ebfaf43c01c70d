/**
 * The prefix of the Secrets Manager secrets that hold configuration Secrets (`<prefix><ns>/<name>`), unless a
 * deployment says otherwise: what the construct deploys with, the Lambda functions read and the CLI writes.
 */
export const DEFAULT_SECRETS_PREFIX = 'pipeline-controller/';
