// POSTs the event the way Flux's generic / generic-hmac Provider does (docs/flux-status.md, "The request"), so an
// endpoint built for Flux webhooks takes it as it is.
//
// Errors name the sink by host only: the URL's path and query often are the credential (a Slack webhook, a
// `?token=`), and header values are secrets by nature. No error carries the fetch failure as its cause either, since
// some of those repeat the URL.
import { postSigned } from '../../signing/signed-post.js';
import { failureKindOfStatus, isRetried } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import { encodeEvent, REPORTING_CONTROLLER, type PromotionEvent } from './event.js';
import type { NotificationSink } from './sink.js';
import { isHttpProtocol } from '../../util/http-url.js';

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
    if (!isHttpProtocol(url)) {
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
    // The configured headers come after the standard ones (Flux's precedence: one may replace Content-Type, never
    // X-Signature, which postSigned sets last).
    const answer = await postSigned({
      url: this.url,
      body: encodeEvent(event),
      headers: { 'User-Agent': REPORTING_CONTROLLER, 'Gotk-Component': event.reportingController, ...this.headers },
      ...(this.hmacKey === undefined ? {} : { hmacKey: this.hmacKey }),
      timeoutMs: this.timeoutMs,
      fetch: this.fetch,
    });
    if (answer.outcome === 'timeout') {
      throw new PromotionError('Timeout', `${this.name}: no response within ${this.timeoutMs} ms`);
    }
    if (answer.outcome === 'network-error') {
      throw new PromotionError('HostUnavailable', `${this.name}: request failed (${answer.code})`);
    }
    const status = answer.status;
    if (status >= 200 && status < 300) return;
    if (status >= 300 && status < 400) {
      throw new PromotionError(
        'Invalid',
        `${this.name}: HTTP ${status} redirect, not followed; configure the final URL`,
      );
    }
    const kind = failureKindOfStatus(status);
    const retryAfterMs = isRetried(kind) ? parseRetryAfter(answer.retryAfter, Date.now()) : undefined;
    throw new PromotionError(kind, `${this.name}: HTTP ${status}`, { retryAfterMs });
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
