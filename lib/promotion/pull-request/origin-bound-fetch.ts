// The one rule for a Git host's credentials and redirects: a credential goes only to the origin (scheme, host and
// port) its request was made for. fetch itself drops `Authorization` when it follows a redirect to another origin,
// but keeps every other header, so GitLab's `PRIVATE-TOKEN` (or any credential a client sends in a header of its
// own) would reach whatever host a redirect names. Redirects are still followed, since a host may send a download
// to another address (GitHub's archive links do): to the same origin with every header, to another origin with only
// the headers that say what is asked for, never one that may prove who asks.
import { isHttpProtocol } from '../../util/http-url.js';

/** The headers a request to another origin keeps; every other one (credentials, cookies, a host's own) is dropped. */
const CARRIED_TO_ANOTHER_ORIGIN = new Set([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);
/** The headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-length', 'content-location', 'content-type'];
/** fetch's own limit. */
const MAX_REDIRECTS = 20;

/** Whether a credential meant for `origin` may be sent to `url`. */
export function isSameOrigin(url: URL | string, origin: URL | string): boolean {
  return new URL(url).origin === new URL(origin).origin;
}

/**
 * `send` (default the global fetch), following redirects itself: to the request's own origin as fetch would, to
 * another origin without any header that may carry a credential. A request that asks for `redirect: 'manual'` or
 * `'error'` is sent as it is.
 */
export function originBoundFetch(send: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    // Read before a Request is made of `input`, which would take its body.
    const mode = init?.redirect ?? (input instanceof Request ? input.redirect : 'follow');
    if (mode !== 'follow') return send(input, init);
    const first = new Request(input, init);
    const start = new URL(first.url);
    let url = start;
    let method = first.method;
    let headers = new Headers(first.headers);
    let body = first.body === null ? undefined : await first.arrayBuffer();
    for (let redirects = 0; ; redirects++) {
      const response = await send(url.href, { method, headers, body, signal: first.signal, redirect: 'manual' });
      const location = response.headers.get('location');
      if (!isRedirect(response.status) || location === null) return response;
      if (redirects === MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects from ${start.href}`);
      const next = new URL(location, url);
      if (!isHttpProtocol(next)) {
        throw new TypeError(`redirected to a ${next.protocol} URL, which is not followed`);
      }
      await response.body?.cancel();
      // As fetch does: a 303, and a 301 or 302 of a POST, become a GET without the body.
      if ((response.status === 303 && method !== 'HEAD') || (response.status <= 302 && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of BODY_HEADERS) headers.delete(name);
      }
      if (!isSameOrigin(next, start)) headers = carriedToAnotherOrigin(headers);
      url = next;
    }
  };
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function carriedToAnotherOrigin(headers: Headers): Headers {
  const kept = new Headers();
  for (const [name, value] of headers) if (CARRIED_TO_ANOTHER_ORIGIN.has(name)) kept.set(name, value);
  return kept;
}
