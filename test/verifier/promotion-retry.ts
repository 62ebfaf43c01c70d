// The retry arithmetic of a failed promotion (lib/verifier/promotion-retry.ts): the schedule by attempt, the
// service's Retry-After when it is longer, and the queue's 15-minute delay limit with one second of slack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { promotionRetry, type FailedAttempt } from '../../lib/verifier/promotion-retry.js';

const NOW = new Date('2026-11-01T10:00:00.000Z');
const SCHEDULE = [30, 60, 120, 300, 600];
const after = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();

const cases: {
  name: string;
  failed: Partial<FailedAttempt>;
  /** Seconds after NOW, or undefined when not retried. */
  retryIn?: number;
  messageDelaySeconds?: number;
}[] = [
  { name: 'the first attempt: the first delay', failed: { attempt: 1 }, retryIn: 30, messageDelaySeconds: 31 },
  { name: 'the third attempt: the third delay', failed: { attempt: 3 }, retryIn: 120, messageDelaySeconds: 121 },
  { name: 'the last delay', failed: { attempt: 5 }, retryIn: 600, messageDelaySeconds: 601 },
  { name: 'past the schedule: waits for a person', failed: { attempt: 6 } },
  { name: 'a fault a person must fix', failed: { attempt: 1, retryable: false } },
  {
    name: "the service's Retry-After, longer than the schedule",
    failed: { attempt: 1, serviceDelayMs: 90_000 },
    retryIn: 90,
    messageDelaySeconds: 91,
  },
  {
    name: "the schedule, longer than the service's Retry-After",
    failed: { attempt: 2, serviceDelayMs: 5_000 },
    retryIn: 60,
    messageDelaySeconds: 61,
  },
  {
    name: 'a Retry-After of a fraction of a second: rounded up, then the slack',
    failed: { attempt: 1, serviceDelayMs: 30_500 },
    retryIn: 30.5,
    messageDelaySeconds: 32,
  },
  {
    name: 'exactly at the queue limit with the slack',
    failed: { attempt: 1, serviceDelayMs: 899_000 },
    retryIn: 899,
    messageDelaySeconds: 900,
  },
  {
    name: 'beyond the queue limit: no message, the poll picks it up',
    failed: { attempt: 1, serviceDelayMs: 900_000 },
    retryIn: 900,
  },
  { name: 'a Retry-After does not revive a fault a person must fix', failed: { retryable: false, serviceDelayMs: 1 } },
  { name: 'an empty schedule: never retried', failed: { attempt: 1, delaysSeconds: [] } },
];

describe('promotionRetry', () => {
  for (const { name, failed, retryIn, messageDelaySeconds } of cases) {
    it(name, () => {
      const retry = promotionRetry({ attempt: 1, retryable: true, delaysSeconds: SCHEDULE, now: NOW, ...failed });
      if (retryIn === undefined) {
        assert.equal(retry, undefined);
        return;
      }
      assert.deepEqual(
        retry && { retryAt: retry.retryAt.toISOString(), messageDelaySeconds: retry.messageDelaySeconds },
        { retryAt: after(retryIn), messageDelaySeconds },
      );
    });
  }
});
