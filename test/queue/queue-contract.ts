// The behaviour every Queue adapter must have, as one suite run against each: SQS (on fauxqs) and the embedded
// queue. A harness gives the producer port, the consumer's dead-letter port, and an SQS-like driver over the
// same queue (receive / delete / changeVisibility), plus a way to let time pass and to read the dead letters.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import type { SQSRecord } from 'aws-lambda';
import { consumeBatch } from '../../lib/queue/consumer.js';
import { silentLogger } from '../../lib/logging/logger.js';
import type { MessageContext, MessageHandler } from '../../lib/queue/consumer.js';
import { decodeMessage, InvalidMessageError } from '../../lib/queue/messages.js';
import { backoffRedelivery } from '../../lib/queue/redelivery.js';
import type { Redelivery } from '../../lib/queue/redelivery.js';
import type { CheckAppMessage, QueueMessage } from '../../lib/queue/messages.js';
import type { DeadLetters, Queue } from '../../lib/queue/port.js';

export interface QueueHarness {
  queue: Queue;
  /** Where the consumer sends undecodable bodies: the same dead-letter queue that redrive fills. */
  deadLetters: DeadLetters;
  /** The main queue's visibility timeout and redrive limit, as the harness configured them. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** Enqueues a body as is (no validation), to play a poison message. */
  sendRaw(body: string): Promise<void>;
  /** Up to `max` messages as SQS event records, waiting up to `waitMs` when none is visible. */
  receive(max: number, waitMs: number): Promise<SQSRecord[]>;
  delete(receiptHandle: string): Promise<void>;
  changeVisibility(receiptHandle: string, seconds: number): Promise<void>;
  /** Takes everything out of the dead-letter queue. `reason` is set when the consumer put it there. */
  drainDeadLetters(): Promise<{ body: string; reason?: string }[]>;
  /** Messages in the main queue: visible, in flight and delayed. */
  depth(): Promise<number>;
  /** Lets `ms` pass on the queue's clock: moves a fake clock, or sleeps. */
  elapse(ms: number): Promise<void>;
  /** Batch-send requests made so far, for adapters where requests are counted (SQS). */
  batchRequests?(): number;
  teardown(): Promise<void>;
}

export type ContractCase =
  | 'round trip'
  | 'batch of 25'
  | 'batch validation'
  | 'delay limits'
  | 'delay'
  | 'visibility timeout'
  | 'change visibility'
  | 'redrive'
  | 'poison'
  | 'handler failure'
  | 'backoff';

export interface ContractOptions {
  /** Cases this adapter's stand-in cannot show, each with the reason. */
  skip?: Partial<Record<ContractCase, string>>;
}

const cluster = { namespace: 'flux-system', name: 'dev-eu' };

export function app(name: string, attempt = 0): CheckAppMessage {
  return {
    type: 'check-app',
    app: { cluster, kind: 'HelmRelease', namespace: 'podinfo', name },
    cause: 'event',
    attempt,
  };
}

export const ONE_OF_EACH: readonly QueueMessage[] = [
  { ...app('podinfo'), hint: { revision: '6.5.4', reason: 'UpgradeSucceeded' } },
  { type: 'check-pipeline', pipeline: { namespace: 'default', name: 'podinfo' }, env: 'staging', cause: 'approval' },
  { type: 'poll', cluster, kind: 'Kustomization' },
  { type: 'promote', pipeline: { namespace: 'default', name: 'podinfo' }, env: 'prod', revision: '6.5.4' },
];

/** Receives until `count` records have arrived or `attempts` receives came back empty-handed. */
async function receiveAll(harness: QueueHarness, count: number, attempts = 5): Promise<SQSRecord[]> {
  const records: SQSRecord[] = [];
  for (let empty = 0; records.length < count && empty < attempts;) {
    const batch = await harness.receive(Math.min(10, count - records.length), 1000);
    if (batch.length === 0) empty++;
    records.push(...batch);
  }
  return records;
}

function decoded(record: SQSRecord): QueueMessage {
  const result = decodeMessage(record.body);
  if (!result.ok) assert.fail(`did not decode: ${result.reason}`);
  return result.message;
}

/** What the Lambda event source mapping and the embedded loop do: consume one batch, delete the successes. */
async function consumeOnce(
  harness: QueueHarness,
  handle: MessageHandler,
  redelivery?: Redelivery,
): Promise<{ records: SQSRecord[]; failures: string[] }> {
  const records = await harness.receive(10, 1000);
  const response = await consumeBatch({ Records: records }, handle, {
    deadLetters: harness.deadLetters,
    logger: silentLogger,
    redelivery,
  });
  const failures = response.batchItemFailures.map(({ itemIdentifier }) => itemIdentifier);
  for (const record of records) {
    if (!failures.includes(record.messageId)) await harness.delete(record.receiptHandle);
  }
  return { records, failures };
}

export function queueContract(name: string, factory: () => Promise<QueueHarness>, options: ContractOptions = {}): void {
  const skip = options.skip ?? {};
  const harnessFor = async (t: TestContext): Promise<QueueHarness> => {
    const harness = await factory();
    t.after(() => harness.teardown());
    return harness;
  };
  const contractCase = (id: ContractCase, title: string, body: (harness: QueueHarness) => Promise<void>): void => {
    const reason = skip[id];
    it(title, reason ? { skip: reason } : {}, async (t) => body(await harnessFor(t)));
  };

  describe(`Queue contract: ${name}`, () => {
    contractCase('round trip', 'delivers each message type as sent, on the first receive', async (harness) => {
      for (const message of ONE_OF_EACH) await harness.queue.send(message);
      const records = await receiveAll(harness, ONE_OF_EACH.length);
      assert.equal(records.length, ONE_OF_EACH.length);
      const byType = new Map(records.map((record) => [decoded(record).type, record]));
      for (const message of ONE_OF_EACH) {
        const record = byType.get(message.type);
        assert.ok(record, `${message.type} arrived`);
        assert.deepEqual(decoded(record), message);
        assert.equal(record.attributes.ApproximateReceiveCount, '1');
        assert.ok(record.messageId);
        await harness.delete(record.receiptHandle);
      }
      assert.equal(await harness.depth(), 0);
    });

    contractCase('batch of 25', 'sendBatch of 25 messages arrives complete (in 3 requests)', async (harness) => {
      const names = Array.from({ length: 25 }, (_, i) => `app-${i}`);
      await harness.queue.sendBatch(names.map((n) => ({ message: app(n) })));
      if (harness.batchRequests) assert.equal(harness.batchRequests(), 3);
      const records = await receiveAll(harness, 25);
      const received = records.map((record) => {
        const message = decoded(record);
        assert.equal(message.type, 'check-app');
        return message.app.name;
      });
      assert.deepEqual(received.sort(), [...names].sort());
      for (const record of records) await harness.delete(record.receiptHandle);
      assert.equal(await harness.depth(), 0);
    });

    contractCase('batch validation', 'sendBatch validates every message before it sends any', async (harness) => {
      await assert.rejects(
        harness.queue.sendBatch([{ message: app('a') }, { message: app('b'), delaySeconds: 901 }]),
        RangeError,
      );
      const bad = { ...app('c'), app: { ...app('c').app, name: '' } };
      await assert.rejects(harness.queue.sendBatch([{ message: app('a') }, { message: bad }]), InvalidMessageError);
      if (harness.batchRequests) assert.equal(harness.batchRequests(), 0);
      assert.equal(await harness.depth(), 0);
    });

    contractCase('delay limits', 'rejects delays that are not whole seconds from 0 to 900', async (harness) => {
      for (const delaySeconds of [-1, 901, 1.5, Number.NaN]) {
        await assert.rejects(harness.queue.send(app('a'), { delaySeconds }), RangeError, String(delaySeconds));
      }
      assert.equal(await harness.depth(), 0);
    });

    contractCase('delay', 'keeps a delayed message invisible until its delay has passed', async (harness) => {
      await harness.queue.send(app('later'), { delaySeconds: 1 });
      await harness.queue.send(app('now'));
      const first = await harness.receive(10, 1000);
      assert.deepEqual(
        first.map((record) => (decoded(record) as CheckAppMessage).app.name),
        ['now'],
      );
      for (const record of first) await harness.delete(record.receiptHandle);
      assert.deepEqual(await harness.receive(10, 0), []);
      await harness.elapse(1100);
      const second = await receiveAll(harness, 1);
      assert.deepEqual(
        second.map((record) => (decoded(record) as CheckAppMessage).app.name),
        ['later'],
      );
      assert.equal(second[0]?.attributes.ApproximateReceiveCount, '1');
    });

    contractCase(
      'visibility timeout',
      'brings back a message not deleted within the visibility timeout, with a higher receive count',
      async (harness) => {
        await harness.queue.send(app('a'));
        const [first] = await receiveAll(harness, 1);
        assert.ok(first);
        assert.equal(first.attributes.ApproximateReceiveCount, '1');
        assert.deepEqual(await harness.receive(10, 0), [], 'hidden while in flight');
        await harness.elapse(harness.visibilityTimeoutSeconds * 1000 + 200);
        const [again] = await receiveAll(harness, 1);
        assert.ok(again, 'came back');
        assert.equal(again.messageId, first.messageId);
        assert.equal(again.attributes.ApproximateReceiveCount, '2');
        assert.notEqual(again.receiptHandle, first.receiptHandle);
        await harness.delete(again.receiptHandle);
        assert.equal(await harness.depth(), 0);
      },
    );

    contractCase(
      'change visibility',
      'makes a received message visible at once with changeVisibility 0',
      async (harness) => {
        await harness.queue.send(app('a'));
        const [first] = await receiveAll(harness, 1);
        assert.ok(first);
        await harness.changeVisibility(first.receiptHandle, 0);
        const [again] = await receiveAll(harness, 1);
        assert.equal(again?.messageId, first.messageId);
        assert.equal(again?.attributes.ApproximateReceiveCount, '2');
      },
    );

    contractCase(
      'redrive',
      'moves a message to the dead-letter queue after maxReceiveCount receives',
      async (harness) => {
        await harness.queue.send(app('stuck'));
        for (let count = 1; count <= harness.maxReceiveCount; count++) {
          const [record] = await receiveAll(harness, 1);
          assert.ok(record, `receive ${count}`);
          assert.equal(record.attributes.ApproximateReceiveCount, String(count));
          await harness.changeVisibility(record.receiptHandle, 0);
        }
        assert.deepEqual(await harness.receive(10, 0), [], 'not delivered again');
        const letters = await harness.drainDeadLetters();
        assert.equal(letters.length, 1);
        const letter = letters[0];
        assert.ok(letter);
        const result = decodeMessage(letter.body);
        assert.ok(result.ok && result.message.type === 'check-app' && result.message.app.name === 'stuck');
        assert.equal(await harness.depth(), 0);
      },
    );

    contractCase(
      'poison',
      'dead-letters an undecodable body at once through consumeBatch, never retried',
      async (harness) => {
        const poison = '{"v":1,"type":"launch-missiles","target":"s3cr3t"}';
        await harness.sendRaw(poison);
        let handled = 0;
        const { records, failures } = await consumeOnce(harness, () => {
          handled++;
          return Promise.resolve();
        });
        assert.deepEqual(
          records.map((record) => record.body),
          [poison],
        );
        assert.deepEqual(failures, [], 'acknowledged, not reported as a failure');
        assert.equal(handled, 0);
        const letters = await harness.drainDeadLetters();
        assert.equal(letters.length, 1);
        assert.equal(letters[0]?.body, poison);
        assert.match(letters[0]?.reason ?? '', /type is not one of/);
        assert.ok(!(letters[0]?.reason ?? '').includes('s3cr3t'));
        await harness.elapse(harness.visibilityTimeoutSeconds * 1000 + 200);
        assert.deepEqual(await harness.receive(10, 0), [], 'nothing comes back');
        assert.equal(await harness.depth(), 0);
      },
    );

    contractCase(
      'handler failure',
      'leaves a record whose handler failed to come back, and deletes it once handled',
      async (harness) => {
        await harness.queue.send(app('flaky'));
        const first = await consumeOnce(harness, () => Promise.reject(new Error('cluster unreachable')));
        assert.equal(first.records.length, 1);
        assert.deepEqual(first.failures, [first.records[0]?.messageId]);
        await harness.elapse(harness.visibilityTimeoutSeconds * 1000 + 200);
        const contexts: MessageContext[] = [];
        const second = await consumeOnce(harness, (_message, context) => {
          contexts.push(context);
          return Promise.resolve();
        });
        assert.deepEqual(second.failures, []);
        assert.deepEqual(contexts, [{ messageId: first.records[0]?.messageId, receiveCount: 2 }]);
        assert.equal(await harness.depth(), 0);
      },
    );

    contractCase(
      'backoff',
      "hides a failed message for the consumer's backoff delay, past the fixed visibility timeout",
      async (harness) => {
        const visibilityMs = harness.visibilityTimeoutSeconds * 1000;
        // Whole seconds, as SQS requires; twice the queue's own timeout, so the two cannot be confused.
        const redelivery = backoffRedelivery(
          (receiptHandle, seconds) => harness.changeVisibility(receiptHandle, seconds),
          [harness.visibilityTimeoutSeconds * 2],
        );
        await harness.queue.send(app('down'));
        const first = await consumeOnce(harness, () => Promise.reject(new Error('cluster unreachable')), redelivery);
        const messageId = first.records[0]?.messageId;
        assert.ok(messageId);
        assert.deepEqual(first.failures, [messageId]);
        await harness.elapse(visibilityMs + 200);
        assert.deepEqual(await harness.receive(10, 0), [], 'still hidden after the fixed visibility timeout');
        await harness.elapse(visibilityMs);
        const [again] = await receiveAll(harness, 1);
        assert.equal(again?.messageId, messageId, 'back once the backoff delay has passed');
        assert.equal(again?.attributes.ApproximateReceiveCount, '2');
      },
    );
  });
}
