// Posts news as JSON (news-document.ts) to a generic webhook, signed like Flux's generic-hmac Provider signs its
// events: `X-Signature: sha256=<hex>` of the exact body under the configured key, so a receiver built for Flux
// webhooks verifies it the same way. The sink is named by the URL's host only: its path and query may be the secret.
import { REPORTING_CONTROLLER } from '../promotion/notification-strategy/event.js';
import { sinkUrl, throwUnlessAccepted } from './http-delivery.js';
import { newsDocument } from './news-document.js';
import type { News } from './news.js';
import { postSigned } from '../signing/signed-post.js';
import { DEFAULT_NEWS_TIMEOUT_MS, type NewsSink } from './sink.js';

export interface NewsWebhookSinkOptions {
  /** http(s) URL (a secret: kept out of every log and error). */
  url: string;
  /** Signs the body; unset: unsigned. */
  hmacKey?: string | Buffer;
  /** Default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class NewsWebhookSink implements NewsSink {
  readonly name: string;
  private readonly url: URL;
  private readonly hmacKey: string | Buffer | undefined;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch | undefined;

  constructor(options: NewsWebhookSinkOptions) {
    this.url = sinkUrl(options.url, 'webhook');
    this.name = `webhook ${this.url.host}`;
    this.hmacKey = options.hmacKey;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_NEWS_TIMEOUT_MS;
    this.fetch = options.fetch;
  }

  async deliver(news: News): Promise<void> {
    const answer = await postSigned({
      url: this.url,
      body: JSON.stringify(newsDocument(news)),
      headers: { 'User-Agent': REPORTING_CONTROLLER },
      ...(this.hmacKey === undefined ? {} : { hmacKey: this.hmacKey }),
      timeoutMs: this.timeoutMs,
      ...(this.fetch ? { fetch: this.fetch } : {}),
    });
    throwUnlessAccepted(this.name, answer);
  }
}
