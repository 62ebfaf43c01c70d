// SQS adapters of the Queue and DeadLetters ports (AWS SDK v3). The client is passed in, so the Lambda handlers and
// the tests (fauxqs) configure it; against an emulator give it an explicit `endpoint`, because the SDK otherwise
// sends requests to the host in the queue URL, which for fauxqs does not resolve.
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { BatchResultErrorEntry, Message, MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { encodeMessage } from './messages.js';
import type { QueueMessage } from './messages.js';
import { checkDelaySeconds } from './port.js';
import type { DeadLetters, DeadLetterSource, OutgoingMessage, Queue, SendOptions } from './port.js';
import { MAX_VISIBILITY_TIMEOUT_SECONDS } from './redelivery.js';

/** SQS takes at most 10 entries per SendMessageBatch. */
export const SQS_BATCH_LIMIT = 10;

/** Message attributes SqsDeadLetters puts on a dead letter. */
export const DEAD_LETTER_REASON_ATTRIBUTE = 'DeadLetterReason';
export const DEAD_LETTER_SOURCE_MESSAGE_ID_ATTRIBUTE = 'SourceMessageId';
export const DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE = 'ReceiveCount';

const MAX_REASON_LENGTH = 1024;

export interface SqsQueueOptions {
  client: SQSClient;
  queueUrl: string;
}

/** Raised when SendMessageBatch reports failed entries; it names how many and their codes, never the bodies. */
export class SqsBatchSendError extends Error {
  override name = 'SqsBatchSendError';
  constructor(
    /** Positions in the `sendBatch` argument of the messages that were not sent. */
    readonly failedIndexes: readonly number[],
    /** Error codes, one per failed message (`SenderFault`/`ServiceFault` code, or the request's error name). */
    readonly codes: readonly string[],
    total: number,
  ) {
    super(`SendMessageBatch: ${failedIndexes.length} of ${total} messages failed (${summariseCodes(codes)})`);
  }
}

export class SqsQueue implements Queue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;

  constructor(options: SqsQueueOptions) {
    this.#client = options.client;
    this.#queueUrl = options.queueUrl;
  }

  async send(message: QueueMessage, options: SendOptions = {}): Promise<void> {
    checkDelaySeconds(options.delaySeconds);
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: encodeMessage(message),
        DelaySeconds: options.delaySeconds,
      }),
    );
  }

  /**
   * Sends in chunks of 10, all chunks in parallel. Every message is validated before anything is sent. If some
   * entries fail, the other chunks still go out, and then one SqsBatchSendError lists the failures.
   */
  async sendBatch(messages: readonly OutgoingMessage[]): Promise<void> {
    const entries = messages.map(({ message, delaySeconds }) => {
      checkDelaySeconds(delaySeconds);
      return { MessageBody: encodeMessage(message), DelaySeconds: delaySeconds };
    });
    const chunks: { start: number; entries: typeof entries }[] = [];
    for (let start = 0; start < entries.length; start += SQS_BATCH_LIMIT) {
      chunks.push({ start, entries: entries.slice(start, start + SQS_BATCH_LIMIT) });
    }
    const results = await Promise.allSettled(
      chunks.map(({ start, entries: chunk }) =>
        this.#client
          .send(
            new SendMessageBatchCommand({
              QueueUrl: this.#queueUrl,
              Entries: chunk.map((entry, i) => ({ Id: String(start + i), ...entry })),
            }),
          )
          .then((output) => output.Failed ?? []),
      ),
    );
    const failures: { index: number; code: string }[] = [];
    results.forEach((result, i) => {
      const chunk = chunks[i];
      if (!chunk) return;
      if (result.status === 'fulfilled') {
        failures.push(...result.value.map((entry) => failedEntry(entry)));
      } else {
        const code = errorName(result.reason);
        for (let j = 0; j < chunk.entries.length; j++) failures.push({ index: chunk.start + j, code });
      }
    });
    if (failures.length > 0) {
      failures.sort((a, b) => a.index - b.index);
      throw new SqsBatchSendError(
        failures.map((f) => f.index),
        failures.map((f) => f.code),
        messages.length,
      );
    }
  }

  /**
   * Hides a received message for `seconds` (whole, 0..43200) from now: the consumer's backoff for failed messages.
   * The Lambda's event source hands over the receipt handle; the verifier's role may call it (`grantConsumeMessages`).
   */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_TIMEOUT_SECONDS) {
      throw new RangeError(`a visibility timeout must be a whole number from 0 to ${MAX_VISIBILITY_TIMEOUT_SECONDS}`);
    }
    await this.#client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.#queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: seconds,
      }),
    );
  }
}

/** Sends a body that failed validation, unchanged, to the dead-letter queue, with the reason as an attribute. */
export class SqsDeadLetters implements DeadLetters {
  readonly #client: SQSClient;
  readonly #queueUrl: string;

  constructor(options: SqsQueueOptions) {
    this.#client = options.client;
    this.#queueUrl = options.queueUrl;
  }

  async deadLetter(body: string, reason: string, source: DeadLetterSource = {}): Promise<void> {
    const attributes: Record<string, MessageAttributeValue> = {
      [DEAD_LETTER_REASON_ATTRIBUTE]: { DataType: 'String', StringValue: reasonText(reason) },
    };
    if (source.messageId) {
      attributes[DEAD_LETTER_SOURCE_MESSAGE_ID_ATTRIBUTE] = { DataType: 'String', StringValue: source.messageId };
    }
    if (source.receiveCount !== undefined && Number.isFinite(source.receiveCount)) {
      attributes[DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE] = {
        DataType: 'Number',
        StringValue: String(source.receiveCount),
      };
    }
    // SQS rejects an empty body; a dead letter must still say that it was one.
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: body === '' ? '(empty)' : body,
        MessageAttributes: attributes,
      }),
    );
  }
}

/**
 * A message from ReceiveMessage in the shape of a Lambda SQS event record, so a poller outside Lambda can call
 * `consumeBatch` exactly as the event source mapping would. Ask ReceiveMessage for the `ApproximateReceiveCount`
 * (and `SentTimestamp`) system attributes, or the count reads as 1.
 */
export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const arnParts = queueArn.split(':');
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? '0',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '0',
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString('base64') : undefined,
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: arnParts[3] ?? '',
  };
}

function failedEntry(entry: BatchResultErrorEntry): { index: number; code: string } {
  const index = Number(entry.Id);
  return { index: Number.isInteger(index) ? index : -1, code: entry.Code ?? 'Unknown' };
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'Unknown';
}

function summariseCodes(codes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts].map(([code, count]) => (count > 1 ? `${code} x${count}` : code)).join(', ');
}

function reasonText(reason: string): string {
  const text = reason.trim() === '' ? 'unspecified' : reason;
  return text.length > MAX_REASON_LENGTH ? text.slice(0, MAX_REASON_LENGTH) : text;
}
