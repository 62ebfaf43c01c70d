// Where news goes: Slack, a generic webhook, an EventBridge bus. A sink delivers one message per call; it neither
// retries (a message late by minutes tells a person less than none) nor de-duplicates (the store's claim does).
import type { News } from './news.js';

export interface NewsSink {
  /** Names the sink in logs: `slack`, `webhook <host>`, `EventBridge bus <name>`. Never a URL or a key. */
  readonly name: string;
  /** Resolves once the sink took the message; rejects with a NotificationDeliveryError otherwise. */
  deliver(news: News): Promise<void>;
}

/** How long an HTTP sink waits for an answer by default: a person's message is not worth holding a verifier for. */
export const DEFAULT_NEWS_TIMEOUT_MS = 5_000;
