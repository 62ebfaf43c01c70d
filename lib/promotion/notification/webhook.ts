// POSTs the event the way Flux's generic / generic-hmac Provider does (docs/flux-status.md, "The request"), so an
// endpoint built for Flux webhooks takes it as it is.
//
// Errors name the sink by host only: the URL's path and query often are the credential (a Slack webhook, a
// `?token=`), and header values are secrets by nature. No error carries the fetch failure as its cause either, since
// some of those repeat the URL.
import { signatureHeader } from '../../signing/hmac.js';
import { PromotionError } from '../port.js';
import { encodeEvent, REPORTING_CONTROLLER, type PromotionEvent } from './event.js';
import type { NotificationSink } from './sink.js';

/** Flux's Provider default (`spec.timeout`). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

export interface WebhookSinkOptions {
  /** http(s) URL; credentials belong in `headers` or `hmacKey`, not in the URL's user info. */
  url: string | URL;
  /** Signs the body as generic-hmac does: `X-Signature: sha256=<hex>`. Unset: no signature (plain `generic`). */
  hmacKey?: string | Buffer;
  /** Set on every request after the standard headers and before `X-Signature`, like a Provider Secret's `headers`. */
  headers?: Record<string, string>;
  /** For the whole exchange up to the response headers; default 15 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** What the sink is called in its name and errors, before the host; default `webhook`. */
  kind?: string;
}

export class WebhookSink implements NotificationSink {
  readonly name: string;
  private readonly url: URL;
  private readonly hmacKey: string | Buffer | undefined;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: WebhookSinkOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new Error('webhook sink: the URL is not valid');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`webhook sink ${url.host}: the URL must be http or https, not ${url.protocol}`);
    }
    if (url.username || url.password) {
      throw new Error(`webhook sink ${url.host}: put credentials in headers, not in the URL`);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError('webhook sink: timeoutMs must be positive');
    this.name = `${options.kind ?? 'webhook'} ${url.host}`;
    this.url = url;
    this.hmacKey = options.hmacKey;
    this.headers = { ...options.headers };
    this.timeoutMs = timeoutMs;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async send(event: PromotionEvent): Promise<void> {
    const body = encodeEvent(event);
    // Headers.set is case-insensitive, so a later entry replaces an earlier one whatever its spelling: the order
    // below is Flux's precedence (a configured header may replace Content-Type, never X-Signature).
    const headers = new Headers();
    headers.set('Content-Type', 'application/json');
    headers.set('User-Agent', REPORTING_CONTROLLER);
    headers.set('Gotk-Component', event.reportingController);
    for (const [name, value] of Object.entries(this.headers)) headers.set(name, value);
    if (this.hmacKey !== undefined) headers.set('X-Signature', signatureHeader(body, this.hmacKey));

    const signal = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      // Not following redirects: the signed body and the configured headers go to the configured host only.
      response = await this.fetch(this.url, { method: 'POST', headers, body, signal, redirect: 'manual' });
    } catch (error) {
      if (signal.aborted || isTimeout(error)) {
        throw new PromotionError(`${this.name}: no response within ${this.timeoutMs} ms`, true);
      }
      throw new PromotionError(`${this.name}: request failed (${networkErrorCode(error)})`, true);
    }
    // The body is never read: it could echo the request, and nothing in it changes the outcome.
    await response.body?.cancel().catch(() => undefined);

    const status = response.status;
    if (status >= 200 && status < 300) return;
    if (status === 429 || (status >= 500 && status !== 501)) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      throw new PromotionError(`${this.name}: HTTP ${status}`, true, retryAfterMs);
    }
    if (status >= 300 && status < 400) {
      throw new PromotionError(`${this.name}: HTTP ${status} redirect, not followed; configure the final URL`, false);
    }
    throw new PromotionError(`${this.name}: HTTP ${status}`, false);
  }
}

/** `Retry-After` as delay-seconds or an HTTP-date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with the day's name; Date.parse alone takes '-5'.
  const date = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
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
