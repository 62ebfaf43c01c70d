// The assertion both readers' tests make: revision, health and settledness exactly, the reason by pattern.
import assert from 'node:assert/strict';
import type { TargetStatus } from '../../lib/flux/index.js';

export interface Expected {
  revision: string | undefined;
  healthy: boolean;
  settled: boolean;
  reason: RegExp;
}

export function expectStatus(actual: TargetStatus, expected: Expected): void {
  assert.equal(actual.error, undefined, `unexpected error: ${actual.error}`);
  assert.deepEqual(
    { revision: actual.revision, healthy: actual.healthy, settled: actual.settled },
    { revision: expected.revision, healthy: expected.healthy, settled: expected.settled },
    actual.reason,
  );
  assert.match(actual.reason, expected.reason);
}
