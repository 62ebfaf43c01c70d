// The embedded queue of the local mode: the shared Queue contract on a hand-moved clock, then its consumer loop
// for real, on the system clock with short timeouts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { EmbeddedQueue } from '../../lib/queue/embedded.js';
import type { EmbeddedQueueOptions } from '../../lib/queue/embedded.js';
import type { MessageContext } from '../../lib/queue/consumer.js';
import { encodeMessage } from '../../lib/queue/messages.js';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../../lib/queue/redelivery.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { app, queueContract } from './queue-contract.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import type { QueueHarness } from './queue-contract.js';

function fakeClock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return { now: () => time, advance: (ms) => (time += ms) };
}

function embeddedHarness(): Promise<QueueHarness> {
  const clock = fakeClock();
  const queue = new EmbeddedQueue({ visibilityTimeoutSeconds: 30, maxReceiveCount: 3, clock, logger: silentLogger });
  return Promise.resolve({
    queue,
    deadLetters: queue,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 3,
    sendRaw: (body) => queue.sendRaw(body),
    receive: (max, waitMs) => queue.receive(max, waitMs),
    delete: (receiptHandle) => queue.delete(receiptHandle),
    changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
    // The embedded dead-letter list only grows; the harness hands out what is new since the last drain.
    drainDeadLetters: (() => {
      let taken = 0;
      return () => {
        const all = queue.deadLetters();
        const fresh = all.slice(taken);
        taken = all.length;
        return Promise.resolve(fresh);
      };
    })(),
    depth: () => {
      const { visible, inFlight, delayed } = queue.stats();
      return Promise.resolve(visible + inFlight + delayed);
    },
    elapse: (ms) => {
      clock.advance(ms);
      return Promise.resolve();
    },
    teardown: () => queue.stop(),
  });
}

queueContract('embedded', embeddedHarness);

function realQueue(t: TestContext, options: EmbeddedQueueOptions = {}): EmbeddedQueue {
  const queue = new EmbeddedQueue({
    visibilityTimeoutSeconds: 0.1,
    retryDelaysSeconds: [0.1],
    maxReceiveCount: 3,
    logger: silentLogger,
    ...options,
  });
  t.after(() => queue.stop());
  return queue;
}

/** Polls `condition` every 5 ms until it holds. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  await waitFor(what, condition, { intervalMs: 5 });
}

function nameOf(message: QueueMessage): string {
  return message.type === 'check-app' ? message.app.name : message.type;
}

describe('EmbeddedQueue', () => {
  it('keeps the records in the shape of SQS event records', async () => {
    const clock = fakeClock(1000);
    const queue = new EmbeddedQueue({ name: 'local-checks', clock });
    await queue.send(app('podinfo'));
    clock.advance(5);
    const [record] = await queue.receive(1, 0);
    assert.ok(record);
    assert.equal(record.body, encodeMessage(app('podinfo')));
    assert.equal(record.eventSource, 'aws:sqs');
    assert.equal(record.eventSourceARN, 'arn:aws:sqs:local:000000000000:local-checks');
    assert.match(record.md5OfBody, /^[0-9a-f]{32}$/);
    assert.deepEqual(record.attributes, {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1000',
      SenderId: 'embedded',
      ApproximateFirstReceiveTimestamp: '1005',
    });
  });

  it('deletes nothing with a stale receipt handle, and rejects changing visibility with one', async () => {
    const clock = fakeClock();
    const queue = new EmbeddedQueue({ visibilityTimeoutSeconds: 1, clock });
    await queue.send(app('a'));
    const [first] = await queue.receive(1, 0);
    assert.ok(first);
    clock.advance(1000);
    const [second] = await queue.receive(1, 0);
    assert.ok(second);
    await queue.delete(first.receiptHandle);
    assert.deepEqual(queue.stats(), { visible: 0, inFlight: 1, delayed: 0, deadLetters: 0 });
    await assert.rejects(queue.changeVisibility(first.receiptHandle, 0), /not that of a message in flight/);
    await queue.delete(second.receiptHandle);
    assert.deepEqual(queue.stats(), { visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 });
    await assert.rejects(queue.changeVisibility(second.receiptHandle, 0), /not that of a message in flight/);
  });

  it('counts visible, in-flight, delayed and dead-lettered messages', async () => {
    const clock = fakeClock();
    const queue = new EmbeddedQueue({ clock });
    await queue.send(app('a'));
    await queue.send(app('b'));
    await queue.send(app('c'), { delaySeconds: 10 });
    await queue.receive(1, 0);
    await queue.deadLetter('x', 'malformed JSON', { messageId: 'm', receiveCount: 2 });
    assert.deepEqual(queue.stats(), { visible: 1, inFlight: 1, delayed: 1, deadLetters: 1 });
    assert.deepEqual(queue.deadLetters(), [
      { body: 'x', reason: 'malformed JSON', receiveCount: 2, messageId: 'm', at: clock.now() },
    ]);
  });

  it('says why a message was dead-lettered by redrive', async () => {
    const clock = fakeClock();
    const queue = new EmbeddedQueue({ visibilityTimeoutSeconds: 1, maxReceiveCount: 1, clock });
    await queue.send(app('a'));
    await queue.receive(1, 0);
    clock.advance(1000);
    assert.deepEqual(await queue.receive(1, 0), []);
    const [letter] = queue.deadLetters();
    assert.equal(letter?.receiveCount, 1);
    assert.equal(letter?.reason, 'received 1 times without being deleted (maxReceiveCount 1)');
  });

  it('rejects a bad configuration', () => {
    assert.throws(() => new EmbeddedQueue({ maxReceiveCount: 0 }), RangeError);
    assert.throws(() => new EmbeddedQueue({ maxReceiveCount: 1.5 }), RangeError);
    assert.throws(() => new EmbeddedQueue({ visibilityTimeoutSeconds: -1 }), RangeError);
    assert.throws(() => new EmbeddedQueue({ visibilityTimeoutSeconds: 43_201 }), RangeError);
    assert.throws(() => new EmbeddedQueue({ retryDelaysSeconds: [] }), RangeError);
    assert.throws(() => new EmbeddedQueue({ retryDelaysSeconds: [30, -1] }), RangeError);
  });

  it('answers a long poll as soon as a message is sent', async (t) => {
    const queue = realQueue(t);
    const started = Date.now();
    const receiving = queue.receive(1, 5000);
    setTimeout(() => void queue.send(app('a')), 30);
    const records = await receiving;
    assert.equal(records.length, 1);
    assert.ok(Date.now() - started < 1000, 'did not wait out the poll');
  });

  it('answers a long poll when an in-flight message comes due', async (t) => {
    const queue = realQueue(t, { visibilityTimeoutSeconds: 0.05 });
    await queue.send(app('a'));
    const [first] = await queue.receive(1, 0);
    assert.ok(first);
    const started = Date.now();
    const [again] = await queue.receive(1, 5000);
    assert.equal(again?.messageId, first.messageId);
    assert.ok(Date.now() - started < 1000);
  });
});

/**
 * A queue on a hand-moved clock whose consumer loop fails every message, and one message sent to it: when each
 * receive happened tells the backoff.
 */
async function failingForever(
  t: TestContext,
  options: Pick<EmbeddedQueueOptions, 'maxReceiveCount' | 'retryDelaysSeconds'>,
) {
  const clock = fakeClock();
  const queue = new EmbeddedQueue({ clock, logger: silentLogger, ...options });
  t.after(() => queue.stop());
  const receivedAt: number[] = [];
  queue.start(
    () => {
      receivedAt.push(clock.now());
      return Promise.reject(new Error('cluster unreachable'));
    },
    { pollIntervalMs: 2 },
  );
  const sentAt = clock.now();
  await queue.send(app('down'));
  return { clock, queue, receivedAt, sentAt };
}

describe('EmbeddedQueue consumer loop (hand-moved clock)', () => {
  it('redelivers a failing message after 30 s, 1, 2, 4, 8 min by default, then dead-letters it', async (t) => {
    const { clock, queue, receivedAt, sentAt } = await failingForever(t, {});
    await eventually(() => receivedAt.length === 1, 'the first receive');
    // The loop can only see a message come due when the clock moves: 1 ms short of each delay, nothing comes back.
    for (const delaySeconds of DEFAULT_RETRY_DELAYS_SECONDS) {
      const seen = receivedAt.length;
      const letters = queue.deadLetters().length;
      clock.advance(delaySeconds * 1000 - 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(receivedAt.length, seen, `hidden until ${delaySeconds} s have passed`);
      clock.advance(1);
      await eventually(
        () => receivedAt.length > seen || queue.deadLetters().length > letters,
        `back after ${delaySeconds} s`,
      );
    }
    assert.deepEqual(
      receivedAt.map((at) => (at - sentAt) / 1000),
      [0, 30, 90, 210, 450],
    );
    const [letter] = queue.deadLetters();
    assert.equal(letter?.receiveCount, 5, 'the default maxReceiveCount, as on AWS');
    assert.equal(((letter?.at ?? 0) - sentAt) / 1000, 930, 'about 15 min after the first failure');
  });

  it('follows a short schedule, the last delay repeating past its end', async (t) => {
    const { clock, receivedAt, sentAt } = await failingForever(t, { maxReceiveCount: 4, retryDelaysSeconds: [1, 5] });
    await eventually(() => receivedAt.length === 1, 'the first receive');
    for (const advanceMs of [1000, 5000, 5000]) {
      const seen = receivedAt.length;
      clock.advance(advanceMs);
      await eventually(() => receivedAt.length > seen, `a receive after ${advanceMs} ms more`);
    }
    assert.deepEqual(
      receivedAt.map((at) => at - sentAt),
      [0, 1000, 6000, 11_000],
    );
  });
});

describe('EmbeddedQueue consumer loop (real time)', () => {
  it('handles, retries, dead-letters and deletes as the Lambda would', async (t) => {
    const queue = realQueue(t);
    const calls: { name: string; context: MessageContext }[] = [];
    queue.start(
      (message, context) => {
        const name = nameOf(message);
        calls.push({ name, context });
        if (name === 'always-fails') return Promise.reject(new Error('cluster unreachable'));
        if (name === 'flaky' && context.receiveCount === 1) return Promise.reject(new Error('not settled'));
        return Promise.resolve();
      },
      { batchSize: 5, pollIntervalMs: 20 },
    );
    await queue.send(app('good'));
    await queue.send(app('flaky'));
    await queue.send(app('always-fails'));
    await queue.sendRaw('{"v":1,"type":"check-app"}');
    await eventually(() => queue.deadLetters().length === 2, 'both bad messages are dead letters');
    await eventually(() => {
      const { visible, inFlight, delayed } = queue.stats();
      return visible + inFlight + delayed === 0;
    }, 'the queue is empty');
    await queue.stop();

    const receives = (name: string): number[] =>
      calls.filter((call) => call.name === name).map((call) => call.context.receiveCount);
    assert.deepEqual(receives('good'), [1]);
    assert.deepEqual(receives('flaky'), [1, 2]);
    assert.deepEqual(receives('always-fails'), [1, 2, 3]);
    const letters = queue.deadLetters();
    const poison = letters.find((letter) => letter.body === '{"v":1,"type":"check-app"}');
    assert.equal(poison?.reason, 'invalid message: app is missing');
    assert.equal(poison?.receiveCount, 1);
    const redriven = letters.find((letter) => letter !== poison);
    assert.equal(redriven?.body, encodeMessage(app('always-fails')));
    assert.equal(redriven?.receiveCount, 3);
    assert.match(redriven?.reason ?? '', /maxReceiveCount 3/);
  });

  it('picks up a message sent while idle at once, and stops at once, whatever the poll interval', async (t) => {
    const queue = realQueue(t);
    const handled: string[] = [];
    queue.start(
      (message) => {
        handled.push(nameOf(message));
        return Promise.resolve();
      },
      { pollIntervalMs: 10_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sent = Date.now();
    await queue.send(app('a'));
    await eventually(() => handled.length === 1, 'the message is handled');
    assert.ok(Date.now() - sent < 1000);
    const stopping = Date.now();
    await queue.stop();
    assert.ok(Date.now() - stopping < 1000);
    assert.equal(queue.running, false);
  });

  it('stop() waits for the batch in hand, which is then deleted', async (t) => {
    const queue = realQueue(t, { visibilityTimeoutSeconds: 5 });
    let release: () => void = () => undefined;
    let started = false;
    let finished = false;
    queue.start(
      async () => {
        started = true;
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      },
      { pollIntervalMs: 20 },
    );
    await queue.send(app('slow'));
    await eventually(() => started, 'the handler has started');
    const stopped = queue.stop();
    let stopResolved = false;
    void stopped.then(() => (stopResolved = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(stopResolved, false, 'stop waits for the handler');
    release();
    await stopped;
    assert.equal(finished, true);
    assert.deepEqual(queue.stats(), { visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 });
  });

  it('refuses to start twice or with bad options, and can start again after stop', async (t) => {
    const queue = realQueue(t);
    const handle = (): Promise<void> => Promise.resolve();
    queue.start(handle, { pollIntervalMs: 10 });
    assert.throws(() => queue.start(handle), /already running/);
    await queue.stop();
    assert.throws(() => queue.start(handle, { pollIntervalMs: 0 }), RangeError);
    assert.throws(() => queue.start(handle, { batchSize: 0 }), RangeError);
    queue.start(handle, { pollIntervalMs: 10 });
    await queue.stop();
    await queue.stop();
    queue.start(handle, { pollIntervalMs: 10 });
    assert.equal(queue.running, true);
    await queue.stop();
  });
});
