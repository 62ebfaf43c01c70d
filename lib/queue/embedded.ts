// The embedded queue of the local mode (`pipelinectl serve`): SQS semantics in one process, in memory, behind the
// same Queue and DeadLetters ports and the same consumer (`consumeBatch`) as the Lambda verifier.
import { createHash, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { consoleQueueLogger, consumeBatch } from './consumer.js';
import type { ConsumerDeps, MessageHandler } from './consumer.js';
import { encodeMessage } from './messages.js';
import type { QueueMessage } from './messages.js';
import { checkDelaySeconds } from './port.js';
import type { DeadLetters, DeadLetterSource, OutgoingMessage, Queue, SendOptions } from './port.js';
import { backoffRedelivery, MAX_VISIBILITY_TIMEOUT_SECONDS } from './redelivery.js';
import type { Redelivery } from './redelivery.js';

/** Milliseconds since the epoch; injectable so tests can move time by hand. */
export interface QueueClock {
  now(): number;
}

export interface EmbeddedQueueOptions {
  /** Used in the records' `eventSourceARN`. Default `pipeline-controller`. */
  name?: string;
  /**
   * How long a received message stays hidden before it comes back if it was not deleted. Default 30. Unlike SQS,
   * fractions are allowed (tests use 0.1 s). The consumer loop replaces it for a message whose handler failed (see
   * `retryDelaysSeconds`).
   */
  visibilityTimeoutSeconds?: number;
  /**
   * The consumer loop's backoff: a message whose handler failed on its nth receive comes back after entry n-1
   * (the last entry once past the end). Default DEFAULT_RETRY_DELAYS_SECONDS, as on AWS; fractions allowed.
   */
  retryDelaysSeconds?: readonly number[];
  /** A message received this many times and still not deleted moves to the dead letters. Default 5. */
  maxReceiveCount?: number;
  clock?: QueueClock;
  /** For the consumer loop; defaults to the consumer's console logger. */
  logger?: ConsumerDeps['logger'];
}

export interface DeadLetter {
  /** The body exactly as it was sent. */
  body: string;
  reason: string;
  /** Receives before it was dead-lettered (0 if it never came from this queue). */
  receiveCount: number;
  messageId?: string;
  /** Clock time (ms) when it was dead-lettered. */
  at: number;
}

export interface EmbeddedQueueStats {
  /** Ready to be received now. */
  visible: number;
  /** Received and not yet deleted, still inside their visibility timeout. */
  inFlight: number;
  /** Sent with a delay that has not run out. */
  delayed: number;
  deadLetters: number;
}

export interface ConsumerLoopOptions {
  /** Most records per batch handed to `consumeBatch`. Default 10. */
  batchSize?: number;
  /**
   * Longest wait for a message before polling again, in real milliseconds. A message that is sent, or that comes
   * due, during the wait is picked up at once, so this only bounds how long an idle loop sleeps. Default 1000.
   */
  pollIntervalMs?: number;
}

interface StoredMessage {
  messageId: string;
  body: string;
  sentAt: number;
  /** Clock time from which it can be received: the end of its delay or of its visibility timeout. */
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** The handle of the latest receive; only it can delete the message or change its visibility. */
  receiptHandle?: string;
}

const SYSTEM_CLOCK: QueueClock = { now: () => Date.now() };

/**
 * An in-memory queue with the SQS behaviours the controller relies on: at-least-once delivery, per-message delay,
 * a visibility timeout after which an undeleted message comes back with a higher receive count, and a dead-letter
 * list that takes a message once it has been received `maxReceiveCount` times (and whatever the consumer
 * dead-letters). It also runs the consumer loop of the local mode (`start` / `stop`).
 *
 * Nothing survives a restart: pending, in-flight and delayed messages and the dead letters are all lost. That is
 * safe because the queue holds only triggers, never state: the scheduled poll re-checks every (cluster, app kind) in
 * use, so a lost check is repaired on the next poll; observed status, approvals and promotion records live in the
 * store; and a promotion whose message was lost resumes from its record when the next check re-decides.
 */
export class EmbeddedQueue implements Queue, DeadLetters {
  readonly #arn: string;
  readonly #visibilityTimeoutMs: number;
  readonly #maxReceiveCount: number;
  readonly #clock: QueueClock;
  readonly #logger: ConsumerDeps['logger'];
  readonly #redelivery: Redelivery;
  /** In send order; a Map keeps insertion order. */
  readonly #messages = new Map<string, StoredMessage>();
  readonly #byReceiptHandle = new Map<string, StoredMessage>();
  readonly #deadLetters: DeadLetter[] = [];
  readonly #waiters = new Set<() => void>();
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: EmbeddedQueueOptions = {}) {
    const visibilityTimeoutSeconds = options.visibilityTimeoutSeconds ?? 30;
    checkVisibilitySeconds(visibilityTimeoutSeconds);
    const maxReceiveCount = options.maxReceiveCount ?? 5;
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1) {
      throw new RangeError('maxReceiveCount must be a whole number of at least 1');
    }
    this.#arn = `arn:aws:sqs:local:000000000000:${options.name ?? 'pipeline-controller'}`;
    this.#visibilityTimeoutMs = visibilityTimeoutSeconds * 1000;
    this.#maxReceiveCount = maxReceiveCount;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#logger = options.logger;
    // Throws a RangeError for a schedule that is empty or out of range, as the other options do.
    this.#redelivery = backoffRedelivery(
      (receiptHandle, seconds) => this.changeVisibility(receiptHandle, seconds),
      options.retryDelaysSeconds,
    );
  }

  // ------------------------------------------------------------------ producer (Queue port)

  send(message: QueueMessage, options: SendOptions = {}): Promise<void> {
    return settle(() => {
      checkDelaySeconds(options.delaySeconds);
      this.#enqueue(encodeMessage(message), options.delaySeconds);
    });
  }

  /** All or nothing: every message is validated before any is enqueued. */
  sendBatch(messages: readonly OutgoingMessage[]): Promise<void> {
    return settle(() => {
      const bodies = messages.map(({ message, delaySeconds }) => {
        checkDelaySeconds(delaySeconds);
        return { body: encodeMessage(message), delaySeconds };
      });
      for (const { body, delaySeconds } of bodies) this.#enqueue(body, delaySeconds);
    });
  }

  /** Enqueues a body as is, without validation: to redrive a dead letter by hand, and for tests. */
  sendRaw(body: string, options: SendOptions = {}): Promise<void> {
    return settle(() => {
      checkDelaySeconds(options.delaySeconds);
      this.#enqueue(body, options.delaySeconds);
    });
  }

  // ------------------------------------------------------------------ dead letters (DeadLetters port)

  deadLetter(body: string, reason: string, source: DeadLetterSource = {}): Promise<void> {
    this.#deadLetters.push({
      body,
      reason,
      receiveCount: source.receiveCount ?? 0,
      messageId: source.messageId,
      at: this.#clock.now(),
    });
    return Promise.resolve();
  }

  /** Everything dead-lettered since this queue was created, oldest first. */
  deadLetters(): readonly DeadLetter[] {
    return this.#deadLetters.map((letter) => ({ ...letter }));
  }

  // ------------------------------------------------------------------ consumer driver (SQS-like)

  /**
   * Up to `max` visible messages as SQS event records, each hidden for the visibility timeout with a new receipt
   * handle. With nothing visible it waits up to `waitMs` real milliseconds (long polling) and returns as soon as a
   * message is sent or comes due. A visible message already received `maxReceiveCount` times is dead-lettered
   * instead of returned, as SQS redrive does.
   */
  async receive(max = 1, waitMs = 0): Promise<SQSRecord[]> {
    return this.#receive(max, waitMs, () => false);
  }

  /** Deletes a received message. A stale handle (the message was received again since) deletes nothing, as in SQS. */
  delete(receiptHandle: string): Promise<void> {
    const message = this.#byReceiptHandle.get(receiptHandle);
    if (message && message.receiptHandle === receiptHandle) {
      this.#messages.delete(message.messageId);
      this.#byReceiptHandle.delete(receiptHandle);
    }
    return Promise.resolve();
  }

  /** Hides a received message for `seconds` from now; 0 makes it visible at once. Rejects a stale handle. */
  changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    return settle(() => {
      checkVisibilitySeconds(seconds);
      const message = this.#byReceiptHandle.get(receiptHandle);
      if (!message || message.receiptHandle !== receiptHandle || !this.#messages.has(message.messageId)) {
        throw new Error('changeVisibility: the receipt handle is not that of a message in flight');
      }
      message.visibleAt = this.#clock.now() + seconds * 1000;
      this.#wake();
    });
  }

  stats(): EmbeddedQueueStats {
    const now = this.#clock.now();
    const stats: EmbeddedQueueStats = { visible: 0, inFlight: 0, delayed: 0, deadLetters: this.#deadLetters.length };
    for (const message of this.#messages.values()) {
      if (message.visibleAt <= now) stats.visible++;
      else if (message.receiptHandle === undefined) stats.delayed++;
      else stats.inFlight++;
    }
    return stats;
  }

  // ------------------------------------------------------------------ consumer loop

  /**
   * Starts consuming: receive a batch, run `consumeBatch` on it, delete the records it did not report as failures.
   * Failures come back after the backoff of `retryDelaysSeconds` (set by the consumer). One batch at a time.
   */
  start(handle: MessageHandler, options: ConsumerLoopOptions = {}): void {
    if (this.#loop) throw new Error('the consumer loop is already running');
    const batchSize = options.batchSize ?? 10;
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a whole number ≥ 1');
    // At least 1 ms, so an idle loop always yields to timers and I/O.
    if (!(pollIntervalMs >= 1)) throw new RangeError('pollIntervalMs must be ≥ 1');
    this.#stopping = false;
    this.#loop = this.#run(handle, batchSize, pollIntervalMs);
  }

  /** Stops the loop after the batch in hand is finished, and resolves when it is. */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (!loop) return;
    this.#stopping = true;
    this.#wake();
    try {
      await loop;
    } finally {
      this.#loop = undefined;
    }
  }

  get running(): boolean {
    return this.#loop !== undefined;
  }

  async #run(handle: MessageHandler, batchSize: number, pollIntervalMs: number): Promise<void> {
    while (!this.#stopping) {
      const records = await this.#receive(batchSize, pollIntervalMs, () => this.#stopping);
      if (records.length === 0) continue;
      try {
        const response = await consumeBatch({ Records: records }, handle, {
          deadLetters: this,
          logger: this.#logger,
          redelivery: this.#redelivery,
        });
        const failed = new Set(response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier));
        for (const record of records) {
          if (!failed.has(record.messageId)) await this.delete(record.receiptHandle);
        }
      } catch (error) {
        // consumeBatch reports failures instead of throwing; anything else leaves the batch to come back.
        (this.#logger ?? consoleQueueLogger).error('the consumer loop failed on a batch; it will come back', {
          error: error instanceof Error ? error.message : 'a non-Error value was thrown',
        });
      }
    }
  }

  // ------------------------------------------------------------------ internals

  #enqueue(body: string, delaySeconds = 0): void {
    const now = this.#clock.now();
    const messageId = randomUUID();
    this.#messages.set(messageId, {
      messageId,
      body,
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
    });
    this.#wake();
  }

  async #receive(max: number, waitMs: number, stop: () => boolean): Promise<SQSRecord[]> {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('max must be a whole number ≥ 1');
    const deadline = performance.now() + Math.max(0, waitMs);
    for (;;) {
      const records = this.#take(max);
      if (records.length > 0 || stop()) return records;
      const remaining = deadline - performance.now();
      if (remaining <= 0) return [];
      const nextDue = this.#nextDue();
      const untilDue = nextDue === undefined ? remaining : Math.max(1, nextDue - this.#clock.now());
      await this.#sleep(Math.min(remaining, untilDue));
    }
  }

  #take(max: number): SQSRecord[] {
    const now = this.#clock.now();
    const records: SQSRecord[] = [];
    for (const message of this.#messages.values()) {
      if (records.length >= max) break;
      if (message.visibleAt > now) continue;
      if (message.receiveCount >= this.#maxReceiveCount) {
        this.#messages.delete(message.messageId);
        if (message.receiptHandle) this.#byReceiptHandle.delete(message.receiptHandle);
        this.#deadLetters.push({
          body: message.body,
          reason: `received ${message.receiveCount} times without being deleted (maxReceiveCount ${this.#maxReceiveCount})`,
          receiveCount: message.receiveCount,
          messageId: message.messageId,
          at: now,
        });
        continue;
      }
      if (message.receiptHandle) this.#byReceiptHandle.delete(message.receiptHandle);
      message.receiveCount++;
      message.firstReceivedAt ??= now;
      message.receiptHandle = randomUUID();
      message.visibleAt = now + this.#visibilityTimeoutMs;
      this.#byReceiptHandle.set(message.receiptHandle, message);
      records.push(this.#record(message));
    }
    return records;
  }

  #record(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'embedded',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: this.#arn,
      awsRegion: 'local',
    };
  }

  /** The earliest clock time at which a hidden (delayed or in-flight) message becomes visible. */
  #nextDue(): number | undefined {
    let next: number | undefined;
    for (const message of this.#messages.values()) {
      if (next === undefined || message.visibleAt < next) next = message.visibleAt;
    }
    return next;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Runs `work` now; what it throws becomes a rejection, as callers of a port expect. */
function settle(work: () => void): Promise<void> {
  return new Promise((resolve) => {
    work();
    resolve();
  });
}

function checkVisibilitySeconds(seconds: number): void {
  if (!(seconds >= 0 && seconds <= MAX_VISIBILITY_TIMEOUT_SECONDS)) {
    throw new RangeError(`a visibility timeout must be from 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS} seconds`);
  }
}
