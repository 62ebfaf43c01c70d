// How each Git host authenticates its push webhooks, checked against the `webhook-secret` of a ConfigSource's Secret
// (docs/how-it-works.md, "Push webhooks"). Pure functions over the request's headers and raw body:
//
// - GitHub:           `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the raw body with the secret.
// - GitLab:           `X-Gitlab-Token: <secret>`, the secret itself.
// - Bitbucket Server: `X-Hub-Signature: sha256=<hex>`, HMAC-SHA256 of the raw body with the secret.
// - Azure DevOps:     `Authorization: Basic base64(<user>:<password>)`, whose password is the secret (any user).
//
// Every comparison is constant time; a missing or malformed header is simply not valid. The senders' side
// (`pushCredentialHeaders`) is here too, so that tests and the fake Git hosts sign exactly as the hosts do.
import type { GitProviderType } from '../pipeline/promotion.js';
import { basicPassword, sameSecret } from './presented-secrets.js';
import { isWellFormedSignature, signatureHeader, verifySignature, type HmacAlgorithm } from './hmac.js';

/** Header names in lower case, as the receiver sees them. */
export type PushHeaders = Readonly<Record<string, string | undefined>>;

/** The header each host puts its credential in (lower case). */
export const PUSH_CREDENTIAL_HEADER: Readonly<Record<GitProviderType, string>> = {
  github: 'x-hub-signature-256',
  gitlab: 'x-gitlab-token',
  'bitbucket-server': 'x-hub-signature',
  'azure-devops': 'authorization',
};

/** GitHub and Bitbucket Server sign with HMAC-SHA256 only; a sha1 `X-Hub-Signature` (GitHub's legacy one) is refused. */
const PUSH_HMAC_ALGORITHMS: readonly HmacAlgorithm[] = ['sha256'];

/**
 * True when the request carries the credential of the host `type` and it holds for `secret`. An empty secret never
 * verifies (nothing would be secret about it).
 */
export function verifyPushCredential(
  type: GitProviderType,
  headers: PushHeaders,
  body: Buffer,
  secret: string,
): boolean {
  if (secret === '') return false;
  const header = headers[PUSH_CREDENTIAL_HEADER[type]];
  switch (type) {
    case 'github':
    case 'bitbucket-server':
      return verifySignature(header, body, secret, PUSH_HMAC_ALGORITHMS);
    case 'gitlab':
      return header !== undefined && header !== '' && sameSecret(header, secret);
    case 'azure-devops': {
      const password = basicPassword(header);
      return password !== undefined && sameSecret(password, secret);
    }
  }
}

/**
 * True when the request carries something shaped like one host's credential: what the receiver checks before it
 * reads anything, since the host is known only once the ConfigSource is read.
 */
export function carriesPushCredential(headers: PushHeaders): boolean {
  return (
    isWellFormedSignature(headers[PUSH_CREDENTIAL_HEADER.github], PUSH_HMAC_ALGORITHMS) ||
    isWellFormedSignature(headers[PUSH_CREDENTIAL_HEADER['bitbucket-server']], PUSH_HMAC_ALGORITHMS) ||
    (headers[PUSH_CREDENTIAL_HEADER.gitlab] ?? '') !== '' ||
    basicPassword(headers[PUSH_CREDENTIAL_HEADER['azure-devops']]) !== undefined
  );
}

/** The credential header a host of `type` sends with `body`, signed with `secret` (Azure DevOps: as user `user`). */
export function pushCredentialHeaders(
  type: GitProviderType,
  body: Buffer | string,
  secret: string,
  user = 'pipeline-controller',
): Record<string, string> {
  const name = PUSH_CREDENTIAL_HEADER[type];
  switch (type) {
    case 'github':
    case 'bitbucket-server':
      return { [name]: signatureHeader(body, secret, 'sha256') };
    case 'gitlab':
      return { [name]: secret };
    case 'azure-devops':
      return { [name]: `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}` };
  }
}
