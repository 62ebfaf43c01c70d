// Posts news to a Slack incoming webhook (https://api.slack.com/messaging/webhooks): the message of slack-message.ts
// as JSON. The webhook's URL is its credential (anyone holding it can post to the channel), so the sink is named
// `slack` and nothing it throws or logs contains the URL.
import { sinkUrl, throwUnlessAccepted } from './http-delivery.js';
import type { News } from './news.js';
import { postSigned } from '../signing/signed-post.js';
import { DEFAULT_NEWS_TIMEOUT_MS, type NewsSink } from './sink.js';
import { slackMessage } from './slack-message.js';

export interface SlackSinkOptions {
  /** The incoming webhook's URL (a secret). */
  webhookUrl: string;
  /** Default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class SlackSink implements NewsSink {
  readonly name = 'slack';
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch | undefined;

  constructor(options: SlackSinkOptions) {
    this.url = sinkUrl(options.webhookUrl, this.name);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_NEWS_TIMEOUT_MS;
    this.fetch = options.fetch;
  }

  async deliver(news: News): Promise<void> {
    const answer = await postSigned({
      url: this.url,
      body: JSON.stringify(slackMessage(news)),
      timeoutMs: this.timeoutMs,
      ...(this.fetch ? { fetch: this.fetch } : {}),
    });
    throwUnlessAccepted(this.name, answer);
  }
}
