// When a failed promotion attempt is tried again, and how the retry is delivered. Pure, so the arithmetic (the
// schedule, the service's Retry-After, the queue's delay limit) is tested on its own (docs/architecture.md, "Retries").
import { MAX_DELAY_SECONDS } from '../queue/port.js';

export interface FailedAttempt {
  /** The attempt that failed: 1 for the first. */
  attempt: number;
  /** Whether trying again may help (a 5xx, a rate limit, a timeout), as opposed to a fault a person must fix. */
  retryable: boolean;
  /** How long the service asked us to wait (its Retry-After), in ms. */
  serviceDelayMs?: number;
  /** The delay before each retry; past the last one, the promotion waits for a person. */
  delaysSeconds: readonly number[];
  now: Date;
}

export interface PromotionRetry {
  /** When the record is due again. */
  retryAt: Date;
  /**
   * The delay of the `check-pipeline` message that makes the retry; absent when `retryAt` is later than a queue
   * can delay a message, and the scheduled poll's check of the pipeline picks the retry up instead.
   */
  messageDelaySeconds?: number;
}

/** The retry of a failed attempt, or undefined when it is not retried: it failed for good, or ran out of retries. */
export function promotionRetry(failed: FailedAttempt): PromotionRetry | undefined {
  if (!failed.retryable) return undefined;
  const delaySeconds = failed.delaysSeconds[failed.attempt - 1];
  if (delaySeconds === undefined) return undefined;
  const waitMs = Math.max(delaySeconds * 1000, failed.serviceDelayMs ?? 0);
  const retryAt = new Date(failed.now.getTime() + waitMs);
  // One second of slack, so that the message does not arrive just before `retryAt` and find nothing due.
  const messageDelaySeconds = Math.max(Math.ceil(waitMs / 1000) + 1, 0);
  return messageDelaySeconds <= MAX_DELAY_SECONDS ? { retryAt, messageDelaySeconds } : { retryAt };
}
