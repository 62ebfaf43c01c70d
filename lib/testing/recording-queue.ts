// A Queue that keeps what was sent instead of delivering it, for tests of a producer. Each message goes through the
// wire format first, as with SQS or the embedded queue: a message the consumer would reject fails the send, and what
// is kept is what a consumer would receive.
import { decodeMessage, encodeMessage, type QueueMessage } from '../queue/messages.js';
import { checkDelaySeconds, type OutgoingMessage, type Queue, type SendOptions } from '../queue/port.js';

export interface SentMessage {
  message: QueueMessage;
  delaySeconds?: number;
}

export class RecordingQueue implements Queue {
  readonly sent: SentMessage[] = [];
  #nextSendFailure: Error | undefined;

  /** The next send (or batch) rejects with `error` and keeps nothing, as a send SQS refuses. */
  failNextSend(error: Error): void {
    this.#nextSendFailure = error;
  }

  send(message: QueueMessage, options: SendOptions = {}): Promise<void> {
    const failure = this.#nextSendFailure;
    this.#nextSendFailure = undefined;
    if (failure) return Promise.reject(failure);
    try {
      this.#keep({ message, ...options });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async sendBatch(messages: readonly OutgoingMessage[]): Promise<void> {
    const failure = this.#nextSendFailure;
    this.#nextSendFailure = undefined;
    if (failure) throw failure;
    for (const { message, delaySeconds } of messages) {
      await this.send(message, delaySeconds === undefined ? {} : { delaySeconds });
    }
  }

  /** Takes what was sent so far, leaving the queue empty. */
  take(): SentMessage[] {
    return this.sent.splice(0);
  }

  #keep({ message, delaySeconds }: SentMessage): void {
    checkDelaySeconds(delaySeconds);
    const decoded = decodeMessage(encodeMessage(message));
    if (!decoded.ok) throw new Error(`sent a message that does not decode: ${decoded.reason}`);
    this.sent.push(
      delaySeconds === undefined ? { message: decoded.message } : { message: decoded.message, delaySeconds },
    );
  }
}
