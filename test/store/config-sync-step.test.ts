// What a finished sync does to a ConfigSource's status: the rule both stores apply.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attemptKey, pendingStatus, syncedStatus } from '../../lib/store/config-sync-step.js';
import type { ConfigSourceStatus, ConfigSyncClaim, ConfigSyncResult, ReadyCondition } from '../../lib/store/index.js';
import { at, commit } from './fixtures.js';

const BEFORE = '2026-11-01T10:00:00.000Z';
const NOW = at('2026-11-01T11:00:00Z');
const claim: ConfigSyncClaim = {
  source: { namespace: 'flux-system', name: 'fleet' },
  revision: commit('b'),
  generation: 3,
  token: 'token',
};

const ready = (status: ReadyCondition['status'], reason: ReadyCondition['reason']): ReadyCondition => ({
  type: 'Ready',
  status,
  reason,
  message: `was ${reason}`,
  lastTransitionTime: BEFORE,
});
const synced = (condition: ReadyCondition): ConfigSourceStatus => ({
  lastAttemptedRevision: commit('a'),
  lastAppliedRevision: commit('a'),
  attemptedGeneration: 3,
  applied: 5,
  skipped: 1,
  conditions: [condition],
});
const success: ConfigSyncResult = {
  attempted: true,
  appliedRevision: commit('b'),
  applied: 6,
  skipped: 0,
  ready: { status: 'True', reason: 'Succeeded', message: 'applied' },
};
const invalid: ConfigSyncResult = {
  attempted: true,
  ready: { status: 'False', reason: 'ValidationFailed', message: 'pipelines/shop.yaml: bad' },
};
const unreachable: ConfigSyncResult = {
  attempted: false,
  ready: { status: 'False', reason: 'GitUnavailable', message: 'github.com answered 503' },
};

describe('pendingStatus', () => {
  it('is Ready Unknown, reason Pending, since now, with no revision', () => {
    const status = pendingStatus(NOW);
    assert.equal(status.lastAttemptedRevision, undefined);
    assert.equal(status.lastAppliedRevision, undefined);
    assert.deepEqual(
      status.conditions.map(({ type, status: value, reason, lastTransitionTime }) => [
        type,
        value,
        reason,
        lastTransitionTime,
      ]),
      [['Ready', 'Unknown', 'Pending', '2026-11-01T11:00:00.000Z']],
    );
  });
});

describe('attemptKey', () => {
  it('tells the generations of one commit apart, and the commits of one generation', () => {
    const keys = [attemptKey(1, commit('a')), attemptKey(2, commit('a')), attemptKey(1, commit('b'))];
    assert.equal(new Set(keys).size, 3);
    assert.equal(attemptKey(1, commit('a')), attemptKey(1, commit('a')));
  });
});

describe('syncedStatus: when the Ready condition moves its time', () => {
  const cases: Array<[string, ConfigSourceStatus, ConfigSyncResult, string]> = [
    ['Pending → True: moves', pendingStatus(at(BEFORE)), success, NOW.toISOString()],
    ['True → True: stays', synced(ready('True', 'Succeeded')), success, BEFORE],
    ['True → False: moves', synced(ready('True', 'Succeeded')), invalid, NOW.toISOString()],
    ['False → False, another reason: stays', synced(ready('False', 'Conflict')), invalid, BEFORE],
    ['False → True: moves', synced(ready('False', 'ValidationFailed')), success, NOW.toISOString()],
  ];
  for (const [name, previous, result, expected] of cases) {
    it(name, () => {
      const [condition] = syncedStatus(previous, claim, result, NOW).conditions;
      assert.equal(condition?.lastTransitionTime, expected);
      assert.deepEqual([condition?.status, condition?.reason, condition?.message], Object.values(result.ready));
    });
  }
});

describe('syncedStatus: the revisions and counts', () => {
  const previous = synced(ready('True', 'Succeeded'));

  it('a success records the commit as attempted and applied, with its counts', () => {
    const status = syncedStatus(previous, claim, success, NOW);
    assert.deepEqual(
      [status.lastAttemptedRevision, status.lastAppliedRevision, status.applied, status.skipped],
      [commit('b'), commit('b'), 6, 0],
    );
    assert.equal(status.attemptedGeneration, 3);
  });

  it('an invalid commit is attempted; what was applied before stays, with its counts', () => {
    const status = syncedStatus(previous, claim, invalid, NOW);
    assert.deepEqual(
      [status.lastAttemptedRevision, status.lastAppliedRevision, status.applied, status.skipped],
      [commit('b'), commit('a'), 5, 1],
    );
  });

  it('a commit Git would not give (attempted: false) changes the condition only', () => {
    const status = syncedStatus(previous, { ...claim, generation: 4 }, unreachable, NOW);
    assert.deepEqual(status, { ...previous, conditions: status.conditions });
    assert.equal(status.conditions[0]?.reason, 'GitUnavailable');
  });
});
