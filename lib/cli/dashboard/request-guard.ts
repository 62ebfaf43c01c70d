// Cross-site request forgery protection for the dashboard's one state-changing request, the approval. Any web page
// the user has open can make the browser post to 127.0.0.1; two independent checks refuse that: the browser's own
// statement of where the request comes from (`Sec-Fetch-Site`, `Origin`) when it sends one, and a random token, made
// once per process and embedded in the dashboard's forms, that another site cannot read.
import { randomBytes } from 'node:crypto';
import { sameSecret } from '../../signing/presented-secrets.js';

/** Why a state-changing request was refused; `accepted` when it passed. */
export type RequestGuardVerdict = 'accepted' | 'cross-site' | 'foreign-origin' | 'missing-token' | 'wrong-token';

/** A token for the forms of one dashboard process: 32 random bytes, base64url. */
export function createCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface GuardedRequest {
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The token the form sent, if any. */
  token: string | undefined;
}

/**
 * Checks a state-changing request against the dashboard's origin (`http://127.0.0.1:8080`) and token. `Sec-Fetch-Site`
 * and `Origin` are checked only when present (curl sends neither), the token always.
 */
export function guardRequest(request: GuardedRequest, origin: string, csrfToken: string): RequestGuardVerdict {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'cross-site';
  const from = request.headers.origin;
  if (from !== undefined && from !== origin) return 'foreign-origin';
  if (request.token === undefined || request.token === '') return 'missing-token';
  return sameSecret(request.token, csrfToken) ? 'accepted' : 'wrong-token';
}
