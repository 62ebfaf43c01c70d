// consumeBatch on hand-made SQS event records: partial batch failures, poison messages, the receive count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { consumeBatch, receiveCountOf } from '../../lib/queue/consumer.js';
import type { Logger } from '../../lib/logging/logger.js';
import type { MessageContext } from '../../lib/queue/consumer.js';
import { encodeMessage } from '../../lib/queue/messages.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import type { DeadLetters, DeadLetterSource } from '../../lib/queue/port.js';
import { backoffRedelivery } from '../../lib/queue/redelivery.js';
import { app } from './queue-contract.js';

function record(messageId: string, body: string, receiveCount = '1'): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: receiveCount,
      SentTimestamp: '1700000000000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1700000000001',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:verifier',
    awsRegion: 'eu-west-1',
  };
}

function event(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

class CollectingDeadLetters implements DeadLetters {
  readonly letters: { body: string; reason: string; source?: DeadLetterSource }[] = [];
  constructor(private readonly fail = false) {}
  deadLetter(body: string, reason: string, source?: DeadLetterSource): Promise<void> {
    if (this.fail) return Promise.reject(new Error('AccessDenied'));
    this.letters.push({ body, reason, source });
    return Promise.resolve();
  }
}

function capturingLogger(): Pick<Logger, 'info' | 'warn' | 'error'> & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string, attributes?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ level, message, ...attributes }));
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

const POISON = '{"v":1,"type":"check-app","app":{"cluster":"TOP-SECRET-TOKEN"}}';

describe('consumeBatch', () => {
  it('reports exactly the record whose handler failed', async () => {
    const handled: string[] = [];
    const response = await consumeBatch(
      event(
        record('m1', encodeMessage(app('a'))),
        record('m2', encodeMessage(app('b'))),
        record('m3', encodeMessage(app('c'))),
      ),
      (message) => {
        assert.equal(message.type, 'check-app');
        handled.push(message.app.name);
        return message.app.name === 'b' ? Promise.reject(new Error('cluster unreachable')) : Promise.resolve();
      },
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger() },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm2' }] });
    assert.deepEqual(handled.sort(), ['a', 'b', 'c']);
  });

  it('lists every record when all of them fail, without throwing', async () => {
    const response = await consumeBatch(
      event(record('m1', encodeMessage(app('a'))), record('m2', encodeMessage(app('b')))),
      () => Promise.reject(new Error('store unavailable')),
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger() },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
  });

  it('treats a thrown non-Error like any failure', async () => {
    const response = await consumeBatch(
      event(record('m1', encodeMessage(app('a')))),
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      () => Promise.reject('nope'),
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger() },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm1' }] });
  });

  it('returns no failures for a batch that succeeds, in a fresh object each time', async () => {
    const deps = { deadLetters: new CollectingDeadLetters(), logger: capturingLogger() };
    const first = await consumeBatch(event(record('m1', encodeMessage(app('a')))), () => Promise.resolve(), deps);
    const failures = first.batchItemFailures;
    assert.deepEqual(failures, []);
    first.batchItemFailures.push({ itemIdentifier: 'tampered' });
    const second = await consumeBatch(event(), () => Promise.resolve(), deps);
    assert.deepEqual(second, { batchItemFailures: [] });
  });

  it('dead-letters an undecodable record with its reason and acknowledges it, logging no body', async () => {
    const deadLetters = new CollectingDeadLetters();
    const logger = capturingLogger();
    const handled: QueueMessage[] = [];
    const response = await consumeBatch(
      event(record('ok', encodeMessage(app('a'))), record('poison', POISON, '2'), record('junk', 'TOP-SECRET-TOKEN')),
      (message) => {
        handled.push(message);
        return Promise.resolve();
      },
      { deadLetters, logger },
    );
    assert.deepEqual(response, { batchItemFailures: [] });
    assert.equal(handled.length, 1);
    assert.deepEqual(deadLetters.letters, [
      {
        body: POISON,
        reason: 'invalid message: app.cluster must be an object',
        source: { messageId: 'poison', receiveCount: 2 },
      },
      { body: 'TOP-SECRET-TOKEN', reason: 'malformed JSON', source: { messageId: 'junk', receiveCount: 1 } },
    ]);
    const warnings = logger.lines.filter((line) => line.includes('"warn"'));
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? '', /"messageId":"poison"/);
    assert.match(warnings[0] ?? '', /"reason":"invalid message: app.cluster must be an object"/);
    assert.ok(logger.lines.every((line) => !line.includes('TOP-SECRET-TOKEN')));
  });

  it('reports an undecodable record as a failure when dead-lettering fails', async () => {
    const logger = capturingLogger();
    const response = await consumeBatch(
      event(record('ok', encodeMessage(app('a'))), record('poison', POISON)),
      () => Promise.resolve(),
      { deadLetters: new CollectingDeadLetters(true), logger },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'poison' }] });
    assert.ok(logger.lines.some((line) => line.includes('"error"') && line.includes('AccessDenied')));
    assert.ok(logger.lines.every((line) => !line.includes('TOP-SECRET-TOKEN')));
  });

  it('passes the message id and the receive count to the handler', async () => {
    const contexts: MessageContext[] = [];
    await consumeBatch(
      event(record('m1', encodeMessage(app('a')), '4'), record('m2', encodeMessage(app('b')), '1')),
      (_message, context) => {
        contexts.push(context);
        return Promise.resolve();
      },
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger() },
    );
    assert.deepEqual(
      contexts.sort((a, b) => a.messageId.localeCompare(b.messageId)),
      [
        { messageId: 'm1', receiveCount: 4 },
        { messageId: 'm2', receiveCount: 1 },
      ],
    );
  });

  it('logs a handler failure with the message id and type', async () => {
    const logger = capturingLogger();
    await consumeBatch(
      event(record('m1', encodeMessage(app('a')), '3')),
      () => Promise.reject(new Error('cluster unreachable')),
      { deadLetters: new CollectingDeadLetters(), logger },
    );
    assert.equal(logger.lines.length, 1);
    const line = JSON.parse(logger.lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(line['level'], 'error');
    assert.equal(line['messageId'], 'm1');
    assert.equal(line['type'], 'check-app');
    assert.equal(line['receiveCount'], 3);
    assert.deepEqual(line['error'], { name: 'Error', message: 'cluster unreachable' });
  });
});

describe('consumeBatch with a redelivery backoff', () => {
  /** A backoff of 30, 60, 120 s whose visibility changes are recorded (or fail, with `fail`). */
  function recordingBackoff(fail = false) {
    const changes: { receiptHandle: string; seconds: number }[] = [];
    const redelivery = backoffRedelivery(
      (receiptHandle, seconds) => {
        if (fail) return Promise.reject(new Error('AccessDenied'));
        changes.push({ receiptHandle, seconds });
        return Promise.resolve();
      },
      [30, 60, 120],
    );
    return { changes, redelivery };
  }

  it('hides each failed record for the delay of its receive count before reporting it', async () => {
    const { changes, redelivery } = recordingBackoff();
    const response = await consumeBatch(
      event(
        record('first', encodeMessage(app('a')), '1'),
        record('second', encodeMessage(app('b')), '2'),
        record('late', encodeMessage(app('c')), '9'),
        record('fine', encodeMessage(app('ok')), '2'),
      ),
      (message) =>
        message.type === 'check-app' && message.app.name === 'ok'
          ? Promise.resolve()
          : Promise.reject(new Error('cluster unreachable')),
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger(), redelivery },
    );
    assert.deepEqual(response, {
      batchItemFailures: [{ itemIdentifier: 'first' }, { itemIdentifier: 'second' }, { itemIdentifier: 'late' }],
    });
    assert.deepEqual(
      changes.sort((a, b) => a.seconds - b.seconds),
      [
        { receiptHandle: 'rh-first', seconds: 30 },
        { receiptHandle: 'rh-second', seconds: 60 },
        { receiptHandle: 'rh-late', seconds: 120 },
      ],
    );
  });

  it('logs the delay with the failure', async () => {
    const logger = capturingLogger();
    await consumeBatch(
      event(record('m1', encodeMessage(app('a')), '2')),
      () => Promise.reject(new Error('cluster unreachable')),
      { deadLetters: new CollectingDeadLetters(), logger, redelivery: recordingBackoff().redelivery },
    );
    assert.equal(logger.lines.length, 1);
    const line = JSON.parse(logger.lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(line['level'], 'error');
    assert.equal(line['redeliveryDelaySeconds'], 60);
  });

  it('changes nothing for a success or an undecodable body', async () => {
    const { changes, redelivery } = recordingBackoff();
    const response = await consumeBatch(
      event(record('ok', encodeMessage(app('a'))), record('poison', POISON)),
      () => Promise.resolve(),
      { deadLetters: new CollectingDeadLetters(), logger: capturingLogger(), redelivery },
    );
    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(changes, []);
  });

  it('still reports the failure when the visibility cannot be changed, and logs why without the body', async () => {
    const logger = capturingLogger();
    const response = await consumeBatch(
      event(record('m1', encodeMessage(app('TOP-SECRET-TOKEN')), '1')),
      () => Promise.reject(new Error('cluster unreachable')),
      { deadLetters: new CollectingDeadLetters(), logger, redelivery: recordingBackoff(true).redelivery },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'm1' }] });
    const warning = logger.lines.find((line) => line.includes('"warn"'));
    assert.ok(warning, 'a warning');
    const fields = JSON.parse(warning) as Record<string, unknown>;
    assert.match(String(fields['message']), /visibility timeout applies/);
    assert.equal(fields['messageId'], 'm1');
    assert.equal(fields['redeliveryDelaySeconds'], 30);
    assert.deepEqual(fields['error'], { name: 'Error', message: 'AccessDenied' });
    assert.ok(logger.lines.every((line) => !line.includes('TOP-SECRET-TOKEN')));
  });
});

describe('receiveCountOf', () => {
  it('reads ApproximateReceiveCount, and 1 when it is missing or not a positive integer', () => {
    assert.equal(receiveCountOf(record('m', '', '7')), 7);
    for (const odd of ['', '0', '-2', '1.5', 'many']) assert.equal(receiveCountOf(record('m', '', odd)), 1, odd);
  });
});
