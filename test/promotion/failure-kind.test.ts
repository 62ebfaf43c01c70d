// Why a promotion failed, by name, and whether that failure is tried again: one row per kind (a new kind is a decision
// to make here), the HTTP statuses the Git hosts and the webhook share, and what counts when something else is thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  failureKindOfStatus,
  isPromotionFailureKind,
  isRetried,
  PROMOTION_FAILURE_KINDS,
  type PromotionFailureKind,
} from '../../lib/promotion/failure-kind.js';
import { failureKindOf, PromotionError } from '../../lib/promotion/port.js';

/** Each kind and whether the verifier tries the promotion again (docs/promotion-strategies.md). */
const RETRIED: Record<PromotionFailureKind, boolean> = {
  Conflict: false,
  ConcurrentChange: true,
  RateLimited: true,
  Unauthorized: false,
  Forbidden: false,
  NotFound: false,
  HostUnavailable: true,
  Timeout: true,
  StaleCredentials: true,
  NoMarkers: false,
  Invalid: false,
  Unsupported: false,
  UnexpectedAnswer: false,
  Unknown: true,
};

describe('promotion failure kinds', () => {
  it('are exactly the kinds of this table', () => {
    assert.deepEqual([...PROMOTION_FAILURE_KINDS].sort(), Object.keys(RETRIED).sort());
  });

  for (const [kind, retried] of Object.entries(RETRIED) as [PromotionFailureKind, boolean][]) {
    it(`${kind}: ${retried ? 'retried' : 'not retried, a person must act'}`, () => {
      assert.equal(isRetried(kind), retried);
      const error = new PromotionError(kind, 'it failed', { retryAfterMs: 1_000 });
      assert.equal(error.kind, kind);
      assert.equal(error.retryable, retried, 'a PromotionError is retried as its kind says');
      assert.equal(error.retryAfterMs, 1_000);
    });
  }

  it('anything thrown that is not a PromotionError is Unknown, and retried', () => {
    for (const thrown of [new Error('socket hang up'), new TypeError('x is undefined'), 'a string', undefined]) {
      assert.equal(failureKindOf(thrown), 'Unknown');
    }
    assert.equal(isRetried(failureKindOf(new Error('boom'))), true);
    assert.equal(failureKindOf(new PromotionError('NoMarkers', 'no marker')), 'NoMarkers');
  });

  it('tells a stored kind from anything else (an older or damaged record)', () => {
    for (const kind of PROMOTION_FAILURE_KINDS) assert.ok(isPromotionFailureKind(kind));
    for (const value of [undefined, null, '', 'conflict', 'toString', 'hasOwnProperty', 42, {}]) {
      assert.equal(isPromotionFailureKind(value), false, JSON.stringify(value));
    }
  });

  it('names an HTTP error status as the Git hosts and the webhook answer it', () => {
    const rows: [number, PromotionFailureKind][] = [
      [401, 'Unauthorized'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [409, 'Conflict'],
      [422, 'Conflict'],
      [429, 'RateLimited'],
      [400, 'Invalid'],
      [413, 'Invalid'],
      [500, 'HostUnavailable'],
      [502, 'HostUnavailable'],
      [503, 'HostUnavailable'],
      [504, 'HostUnavailable'],
      [501, 'Unsupported'],
      [304, 'Unknown'],
    ];
    assert.deepEqual(
      rows.map(([status]) => [status, failureKindOfStatus(status)]),
      rows,
    );
  });
});
