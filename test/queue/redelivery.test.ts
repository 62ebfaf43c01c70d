// The backoff schedule of failed messages: which delay a receive count gets, and which schedules are refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  backoffRedelivery,
  checkRetryDelays,
  DEFAULT_RETRY_DELAYS_SECONDS,
  retryDelaySeconds,
} from '../../lib/queue/redelivery.js';

describe('retryDelaySeconds', () => {
  it('gives the nth failed receive entry n-1, the last entry past the end, the first below 1', () => {
    const delays = [30, 60, 120];
    assert.deepEqual(
      [1, 2, 3, 4, 50].map((count) => retryDelaySeconds(delays, count)),
      [30, 60, 120, 120, 120],
    );
    assert.equal(retryDelaySeconds(delays, 0), 30);
  });
});

describe('DEFAULT_RETRY_DELAYS_SECONDS', () => {
  it('doubles from 30 s and, with the DLQ after 5 receives, dead-letters about 15 min after the first failure', () => {
    assert.deepEqual(DEFAULT_RETRY_DELAYS_SECONDS, [30, 60, 120, 240, 480]);
    const maxReceiveCount = 5; // infra/pipeline-controller.ts
    const hidden = Array.from({ length: maxReceiveCount }, (_, i) =>
      retryDelaySeconds(DEFAULT_RETRY_DELAYS_SECONDS, i + 1),
    );
    assert.equal(
      hidden.reduce((sum, delay) => sum + delay, 0),
      930,
    );
    // Whole seconds: SQS's ChangeMessageVisibility takes nothing else.
    assert.ok(DEFAULT_RETRY_DELAYS_SECONDS.every((delay) => Number.isInteger(delay)));
  });
});

describe('backoffRedelivery', () => {
  it('uses the default schedule unless given one, and the given changeVisibility', async () => {
    const changes: [string, number][] = [];
    const redelivery = backoffRedelivery((receiptHandle, seconds) => {
      changes.push([receiptHandle, seconds]);
      return Promise.resolve();
    });
    assert.deepEqual(
      [1, 5, 6].map((count) => redelivery.delaySeconds(count)),
      [30, 480, 480],
    );
    await redelivery.changeVisibility('rh', 30);
    assert.deepEqual(changes, [['rh', 30]]);
    assert.equal(backoffRedelivery(() => Promise.resolve(), [0.3, 0.6]).delaySeconds(2), 0.6);
  });

  it('keeps its own copy of the schedule', () => {
    const delays = [1, 2];
    const redelivery = backoffRedelivery(() => Promise.resolve(), delays);
    delays[0] = 99;
    assert.equal(redelivery.delaySeconds(1), 1);
  });
});

describe('checkRetryDelays', () => {
  it('refuses an empty schedule and delays outside 0..12 h', () => {
    for (const delays of [[], [-1], [43_201], [30, Number.NaN]]) {
      assert.throws(() => checkRetryDelays(delays), RangeError, JSON.stringify(delays));
    }
    checkRetryDelays([0, 43_200]);
  });
});
