// The verifier's queue metrics as its Lambda wires them around the shared consumer: an event's check-app handled is an
// event verified, a re-check is not; a failed message is counted and still retried; a cluster poll is timed; a body
// the consumer dead-letters is counted once it is in the dead-letter queue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SQSEvent } from 'aws-lambda';
import { countedDeadLetters, measuredMessages } from '../../lib/observability/message-metrics.js';
import { MemoryMetrics } from '../../lib/observability/memory-metrics.js';
import {
  consumeBatch,
  encodeMessage,
  toSqsRecord,
  type DeadLetters,
  type QueueMessage,
} from '../../lib/queue/index.js';
import { DEV, PIPELINE } from '../verifier/world.js';

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:queue';
const EVENT_CHECK: QueueMessage = { type: 'check-app', app: DEV, cause: 'event', attempt: 0 };
const RECHECK: QueueMessage = { type: 'check-app', app: DEV, cause: 'recheck', attempt: 1 };
const POLL: QueueMessage = { type: 'poll', cluster: DEV.cluster, kind: 'HelmRelease' };
const DECIDE: QueueMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'poll', readTargets: false };

function batch(...bodies: string[]): SQSEvent {
  return {
    Records: bodies.map((body, index) =>
      toSqsRecord({ MessageId: `m${index}`, ReceiptHandle: `r${index}`, Body: body }, QUEUE_ARN),
    ),
  };
}

class KeptDeadLetters implements DeadLetters {
  readonly kept: string[] = [];
  failing = false;
  deadLetter(body: string): Promise<void> {
    if (this.failing) return Promise.reject(new Error('AWS.SimpleQueueService.NonExistentQueue'));
    this.kept.push(body);
    return Promise.resolve();
  }
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('verifier queue metrics', () => {
  it('counts the events verified (not the re-checks), times cluster polls, counts failures and still retries them', async () => {
    const metrics = new MemoryMetrics();
    const deadLetters = new KeptDeadLetters();
    const handled: string[] = [];
    const verifier = measuredMessages(async (message) => {
      await Promise.resolve();
      if (message.type === 'check-pipeline') throw new Error('the store timed out');
      handled.push(message.type);
    }, metrics);

    const response = await consumeBatch(
      batch(encodeMessage(EVENT_CHECK), encodeMessage(RECHECK), encodeMessage(POLL), encodeMessage(DECIDE)),
      verifier,
      { deadLetters: countedDeadLetters(deadLetters, metrics), logger: quiet },
    );

    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm3' }], 'the failed message is retried');
    assert.deepEqual(handled.sort(), ['check-app', 'check-app', 'poll']);
    assert.equal(metrics.total('EventsVerified'), 1);
    assert.equal(metrics.total('MessagesFailed'), 1);
    assert.equal(metrics.values('ClusterPollDuration').length, 1);
    assert.ok((metrics.values('ClusterPollDuration')[0] ?? -1) >= 0);
    assert.equal(metrics.total('DeadLetters'), 0);
  });

  it('counts a body dead-lettered by the consumer, and not one whose dead-lettering failed (it is retried instead)', async () => {
    const metrics = new MemoryMetrics();
    const deadLetters = new KeptDeadLetters();
    const verifier = measuredMessages(() => Promise.resolve(), metrics);
    const deps = { deadLetters: countedDeadLetters(deadLetters, metrics), logger: quiet };

    await consumeBatch(batch('{"v":1,"type":"no-such-message"}', 'not json'), verifier, deps);
    assert.equal(deadLetters.kept.length, 2);
    assert.equal(metrics.total('DeadLetters'), 2);

    deadLetters.failing = true;
    const response = await consumeBatch(batch('not json either'), verifier, deps);
    assert.equal(response.batchItemFailures.length, 1);
    assert.equal(metrics.total('DeadLetters'), 2);
    assert.equal(metrics.total('MessagesFailed'), 0, 'a body that never reached the verifier is not its failure');
  });
});
