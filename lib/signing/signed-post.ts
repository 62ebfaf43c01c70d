// One JSON POST to a webhook, signed the way Flux's generic-hmac Provider signs (`X-Signature: sha256=<hex>` of the
// exact body, lib/signing), with a deadline and without following redirects. What came back is returned as a named
// outcome, so each sink decides what a status means (the promotion strategy's webhook retries a 503; a notification
// just logs it) while the request itself is built in one place.
// Used by both the promotion strategy's webhook (lib/promotion/notification-strategy) and the notifications to people
// (lib/notify).
import { signatureHeader } from './hmac.js';

export interface SignedPost {
  url: URL;
  /** The exact bytes sent, and signed. */
  body: string;
  /**
   * Set after `Content-Type: application/json`, in order and case-insensitively, so a later one replaces an earlier
   * one: a configured header may replace Content-Type, never X-Signature (set last).
   */
  headers?: Record<string, string>;
  /** Signs the body: `X-Signature: sha256=<hex>`. Unset: no signature. */
  hmacKey?: string | Buffer;
  /** For the whole exchange up to the response headers. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

export type PostOutcome =
  /** The endpoint answered (any status; redirects are answers, not followed). `retryAfter`: its header, if any. */
  | { outcome: 'answered'; status: number; retryAfter: string | null }
  /** No answer within `timeoutMs`. */
  | { outcome: 'timeout' }
  /** No answer at all; `code` is the system's error code (`ECONNREFUSED`…), never the error's text. */
  | { outcome: 'network-error'; code: string };

export async function postSigned(request: SignedPost): Promise<PostOutcome> {
  const headers = new Headers();
  headers.set('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
  if (request.hmacKey !== undefined) headers.set('X-Signature', signatureHeader(request.body, request.hmacKey));

  const signal = AbortSignal.timeout(request.timeoutMs);
  const fetchImpl = request.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    // Not following redirects: the signed body goes to the configured host only.
    response = await fetchImpl(request.url, {
      method: 'POST',
      headers,
      body: request.body,
      signal,
      redirect: 'manual',
    });
  } catch (error) {
    if (signal.aborted || isTimeout(error)) return { outcome: 'timeout' };
    return { outcome: 'network-error', code: networkErrorCode(error) };
  }
  // The body is never read: it could echo the request, and nothing in it changes the outcome.
  await response.body?.cancel().catch(() => undefined);
  return { outcome: 'answered', status: response.status, retryAfter: response.headers.get('retry-after') };
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** `ECONNREFUSED`, `ENOTFOUND`…: the code from undici's `fetch failed` cause, without its message (it names the URL). */
function networkErrorCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string' && /^[A-Z0-9_]+$/.test(cause.code)) return cause.code;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code)) return code;
  return error instanceof Error ? error.name : 'unknown error';
}
