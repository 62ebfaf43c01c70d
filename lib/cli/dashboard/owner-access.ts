// Who may use the dashboard: its owner only. Loopback is not a user boundary: every local user reaches 127.0.0.1, and
// the dashboard acts with its owner's identity. So, as Jupyter does, each start makes a random token that only the URL
// printed on the owner's terminal carries; opening that URL exchanges it for an HttpOnly, SameSite=Strict cookie, and
// every other request (pages, forms, assets, the event stream) must carry that cookie. The cookie holds a value derived
// from the token, not the token itself, and both are compared in constant time.
import { createHash, randomBytes } from 'node:crypto';
import { sameSecret } from '../../signing/presented-secrets.js';

/** The query parameter of the URL the dashboard prints. */
export const ACCESS_TOKEN_PARAMETER = 'token';

/** A token for one start of the dashboard: 32 random bytes, base64url. */
export function createAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The cookie's name, with the port in it: a browser sends a 127.0.0.1 cookie to every port, so two dashboards (serve's
 * and a `pipelinectl dashboard` beside it) would otherwise overwrite each other's.
 */
export function accessCookieName(port: number): string {
  return `pipelinectl-dashboard-${port}`;
}

/** What the cookie holds: derived from the token, so that the cookie is no URL token and the URL token no cookie. */
export function accessCookieValue(token: string): string {
  return createHash('sha256').update(`pipelinectl dashboard cookie\0${token}`).digest('base64url');
}

/** `http://127.0.0.1:8080/` with the token: the URL its owner opens. */
export function ownerUrl(url: string, token: string): string {
  const owner = new URL(url);
  owner.searchParams.set(ACCESS_TOKEN_PARAMETER, token);
  return owner.href;
}

export interface AccessRequest {
  method: string;
  /** The request's URL (path and query). */
  url: URL;
  /** The `Cookie` header, if any. */
  cookie: string | undefined;
}

/**
 * What to do with a request: `owner` passes; `exchange` answers with a redirect to `location` (the same URL without
 * the token) setting the cookie; `refused` answers 401, `why` naming what was missing or wrong.
 */
export type AccessVerdict =
  | { outcome: 'owner' }
  | { outcome: 'exchange'; location: string; setCookie: string }
  | { outcome: 'refused'; why: 'no-cookie' | 'wrong-cookie' | 'wrong-token' };

/**
 * Judges one request by the dashboard's token. A GET (or HEAD) carrying the token in its URL is exchanged for the
 * cookie, whatever cookie it has; a wrong token in the URL is refused even with the right cookie (the URL is not what
 * the dashboard printed). Anything else passes only with the cookie.
 */
export function checkAccess(request: AccessRequest, token: string, port: number): AccessVerdict {
  const name = accessCookieName(port);
  const expected = accessCookieValue(token);
  const given = request.url.searchParams.getAll(ACCESS_TOKEN_PARAMETER);
  const isGet = request.method === 'GET' || request.method === 'HEAD';
  if (isGet && given.length > 0) {
    if (given.length !== 1 || !sameSecret(given[0] ?? '', token)) return { outcome: 'refused', why: 'wrong-token' };
    const rest = new URLSearchParams(request.url.searchParams);
    rest.delete(ACCESS_TOKEN_PARAMETER);
    const query = rest.toString();
    return {
      outcome: 'exchange',
      location: `${request.url.pathname}${query === '' ? '' : `?${query}`}`,
      setCookie: `${name}=${expected}; HttpOnly; SameSite=Strict; Path=/`,
    };
  }
  const cookies = cookieValues(request.cookie, name);
  if (cookies.length === 0) return { outcome: 'refused', why: 'no-cookie' };
  return cookies.some((value) => sameSecret(value, expected))
    ? { outcome: 'owner' }
    : { outcome: 'refused', why: 'wrong-cookie' };
}

/** The answer to a refused request: no data, only how to get in. */
export const ACCESS_REFUSED: Readonly<Record<Extract<AccessVerdict, { outcome: 'refused' }>['why'], string>> = {
  'no-cookie':
    'This dashboard is its owner\u2019s only. Open the URL that pipelinectl printed when it started (the one with ' +
    '?token=): it lets this browser in.\n',
  'wrong-cookie':
    'This browser\u2019s dashboard cookie is not this dashboard\u2019s (was it restarted?). Open the URL that ' +
    'pipelinectl printed when it started (the one with ?token=).\n',
  'wrong-token':
    'The token in this URL is not this dashboard\u2019s (was it restarted?). Open the URL that pipelinectl printed ' +
    'when it started.\n',
};

/** Every value of the cookie `name` in a `Cookie` header (`a=1; b=2`). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at === -1) continue;
    if (pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
  }
  return values;
}
