// The stack's dead-letter queue as the CLI sees it: listed without bodies, and redriven to the work queue.
// Listing receives messages (SQS has no peek) and makes them visible again at once; redriving sends each message
// to the work queue before deleting it from the dead-letter queue, so a failure part-way loses nothing (a message
// may at worst be redriven twice, which the store's conditional writes make harmless).
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { objectKeyString } from '../../pipeline/model.js';
import { decodeMessage, type QueueMessage } from '../../queue/messages.js';
import { DEAD_LETTER_REASON_ATTRIBUTE, DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE, SQS_BATCH_LIMIT } from '../../queue/sqs.js';
import type { DeadLetterView, RedriveResult } from '../backend.js';

export interface SqsDeadLetterQueueOptions {
  client: SQSClient;
  deadLetterQueueUrl: string;
  queueUrl: string;
  /** Long-poll wait of each receive, in seconds; default 1 (a short poll may miss messages on SQS). */
  waitSeconds?: number;
}

/** How long received messages stay hidden while a list or redrive runs; they are released at the end. */
const HOLD_SECONDS = 300;

/** `check-app flux-system/dev HelmRelease apps/podinfo`: the message type and the keys it is about. */
export function messageSummary(message: QueueMessage): string {
  switch (message.type) {
    case 'check-app': {
      const { cluster, kind, namespace, name } = message.app;
      return `check-app ${objectKeyString(cluster)} ${kind} ${namespace}/${name} (${message.cause}, attempt ${message.attempt})`;
    }
    case 'check-pipeline':
      return `check-pipeline ${objectKeyString(message.pipeline)}${message.env ? ` ${message.env}` : ''} (${message.cause})`;
    case 'poll':
      return `poll ${objectKeyString(message.cluster)} ${message.kind}`;
    case 'poll-clusters': {
      const [first] = message.clusters;
      const more = message.clusters.length > 1 ? ` and ${message.clusters.length - 1} more` : '';
      return `poll-clusters ${first ? objectKeyString(first.cluster) : ''}${more}`;
    }
    case 'promote':
      return `promote ${objectKeyString(message.pipeline)} ${message.env} ${message.revision}`;
    case 'sync-config-source':
      return `sync-config-source ${objectKeyString(message.source)} (${message.cause})`;
  }
}

export class SqsDeadLetterQueue {
  constructor(private readonly options: SqsDeadLetterQueueOptions) {}

  async list(max: number): Promise<DeadLetterView[]> {
    const received = await this.receiveAll(max);
    await this.release(received);
    return received.map(view);
  }

  async redrive(): Promise<RedriveResult> {
    const { client, queueUrl, deadLetterQueueUrl } = this.options;
    const seen = new Set<string>();
    /** Received and not deleted: released when the redrive ends, however it ends. */
    let held: Message[] = [];
    let moved = 0;
    let undecodable = 0;
    try {
      for (;;) {
        const batch = (await this.receive(SQS_BATCH_LIMIT)).filter((m) => !seen.has(m.MessageId ?? ''));
        if (batch.length === 0) break;
        for (const message of batch) seen.add(message.MessageId ?? '');
        held.push(...batch);
        const decodable = batch.filter((message) => decodeMessage(message.Body ?? '').ok);
        undecodable += batch.length - decodable.length;
        if (decodable.length === 0) continue;
        const sent = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: decodable.map((message, i) => ({ Id: String(i), MessageBody: message.Body ?? '' })),
          }),
        );
        const failed = sent.Failed ?? [];
        const failedIds = new Set(failed.map((entry) => entry.Id));
        const sentMessages = decodable.filter((_message, i) => !failedIds.has(String(i)));
        if (sentMessages.length > 0) {
          await client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: deadLetterQueueUrl,
              Entries: sentMessages.map((message, i) => ({ Id: String(i), ReceiptHandle: message.ReceiptHandle })),
            }),
          );
        }
        held = held.filter((message) => !sentMessages.includes(message));
        moved += sentMessages.length;
        if (failed.length > 0) {
          const codes = [...new Set(failed.map((entry) => entry.Code ?? 'Unknown'))].join(', ');
          throw new Error(
            `${failed.length} messages could not be sent to the work queue (${codes}) and stay in the ` +
              `dead-letter queue; ${moved} were moved`,
          );
        }
      }
    } finally {
      await this.release(held);
    }
    return { moved, undecodable };
  }

  /** Up to `max` distinct messages, received in batches until the queue has no more to give. */
  private async receiveAll(max: number): Promise<Message[]> {
    const received = new Map<string, Message>();
    while (received.size < max) {
      const batch = await this.receive(Math.min(SQS_BATCH_LIMIT, max - received.size));
      const fresh = batch.filter((message) => !received.has(message.MessageId ?? ''));
      if (fresh.length === 0) break;
      for (const message of fresh) received.set(message.MessageId ?? '', message);
    }
    return [...received.values()];
  }

  private async receive(max: number): Promise<Message[]> {
    const output = await this.options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.deadLetterQueueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: this.options.waitSeconds ?? 1,
        VisibilityTimeout: HOLD_SECONDS,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        MessageAttributeNames: ['All'],
      }),
    );
    return output.Messages ?? [];
  }

  /** Makes received messages visible again at once. */
  private async release(messages: readonly Message[]): Promise<void> {
    for (let start = 0; start < messages.length; start += SQS_BATCH_LIMIT) {
      await this.options.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.options.deadLetterQueueUrl,
          Entries: messages.slice(start, start + SQS_BATCH_LIMIT).map((message, i) => ({
            Id: String(i),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
      );
    }
  }
}

function view(message: Message): DeadLetterView {
  const decoded = decodeMessage(message.Body ?? '');
  const attributes = message.MessageAttributes ?? {};
  const reason = attributes[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue;
  // The count the consumer saw when it dead-lettered the body; otherwise SQS's own count, which also counts the
  // receives of the dead-letter queue (this listing included).
  const count = Number(
    attributes[DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE]?.StringValue ?? message.Attributes?.ApproximateReceiveCount,
  );
  return {
    messageId: message.MessageId ?? '',
    summary: decoded.ok ? messageSummary(decoded.message) : 'undecodable',
    ...(reason !== undefined && { reason }),
    ...(Number.isFinite(count) && { receiveCount: count }),
  };
}
