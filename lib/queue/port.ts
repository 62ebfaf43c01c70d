// The Queue port: how `lib/` enqueues work (receiver, poller, verifier re-checks), and the DeadLetters port the
// consumer uses for bodies that cannot be decoded. Adapters: SqsQueue / SqsDeadLetters (AWS), EmbeddedQueue (local).
import type { QueueMessage } from './messages.js';

/** SQS's limit for a per-message delay; the embedded queue keeps the same one. */
export const MAX_DELAY_SECONDS = 900;

export interface SendOptions {
  /** Whole seconds, 0..900 (SQS's limit): the message stays invisible for that long after it is sent. */
  delaySeconds?: number;
}

export interface OutgoingMessage {
  message: QueueMessage;
  /** Whole seconds, 0..900 (SQS's limit). */
  delaySeconds?: number;
}

/**
 * The producer side of the queue. Delivery is at least once and unordered: a consumer may see a message twice, and
 * correctness comes from the store's conditional writes, never from queue order or timing.
 */
export interface Queue {
  send(message: QueueMessage, options?: SendOptions): Promise<void>;
  /** Sends all messages; throws if any could not be sent (the others may have been). */
  sendBatch(messages: readonly OutgoingMessage[]): Promise<void>;
}

/** Where a dead letter came from; every field is optional so a caller passes what it knows. */
export interface DeadLetterSource {
  messageId?: string;
  receiveCount?: number;
}

/** Takes bodies that failed validation: they are parked for a human, and the original is acknowledged. */
export interface DeadLetters {
  /** `reason` is short and must not repeat the body. */
  deadLetter(body: string, reason: string, source?: DeadLetterSource): Promise<void>;
}

/** Throws a RangeError unless `delaySeconds` is undefined or a whole number of seconds in 0..900. */
export function checkDelaySeconds(delaySeconds: number | undefined): void {
  if (delaySeconds === undefined) return;
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_SECONDS) {
    throw new RangeError(`delaySeconds must be a whole number from 0 to ${MAX_DELAY_SECONDS}`);
  }
}
