// The revision an environment runs and since when, as the dashboard's fleet rows and pipeline tiles show it: the one
// all targets run, or the one most run said to be mixed, since the last of those targets reached it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runningRevision, runningRevisionText, type TargetRevision } from '../../lib/views/running-revision.js';

const on = (revision: string | null, changedAt: string | null = null): TargetRevision => ({ revision, changedAt });

describe('runningRevision', () => {
  it('all targets on one revision: that revision, since the last of them reached it', () => {
    const running = runningRevision([
      on('6.9.2', '2026-11-20T10:00:00.000Z'),
      on('6.9.2', '2026-11-20T12:30:00.000Z'),
      on('6.9.2', '2026-11-20T11:00:00.000Z'),
    ]);
    assert.deepEqual(running, { revision: '6.9.2', running: 3, total: 3, since: '2026-11-20T12:30:00.000Z' });
    assert.equal(runningRevisionText(running), '6.9.2');
  });

  it('mixed: the revision most targets run, how many of all, and when the last of those reached it', () => {
    const running = runningRevision([
      on('6.9.1', '2026-11-20T09:00:00.000Z'),
      on('6.9.2', '2026-11-20T10:00:00.000Z'),
      on('6.9.2', '2026-11-20T08:00:00.000Z'),
    ]);
    assert.deepEqual(running, { revision: '6.9.2', running: 2, total: 3, since: '2026-11-20T10:00:00.000Z' });
    assert.equal(runningRevisionText(running), '6.9.2 (2 of 3)');
  });

  it('a target never observed counts in the total, not as running anything', () => {
    const running = runningRevision([on('6.9.2', '2026-11-20T10:00:00.000Z'), on(null)]);
    assert.equal(runningRevisionText(running), '6.9.2 (1 of 2)');
  });

  it('a tie goes to the revision a target reached last, then to the first in order', () => {
    const newer = runningRevision([on('6.9.1', '2026-11-20T09:00:00.000Z'), on('6.9.2', '2026-11-20T10:00:00.000Z')]);
    assert.equal(runningRevisionText(newer), '6.9.2 (1 of 2)');
    const older = runningRevision([on('6.9.2', '2026-11-20T10:00:00.000Z'), on('6.9.1', '2026-11-20T09:00:00.000Z')]);
    assert.equal(runningRevisionText(older), '6.9.2 (1 of 2)');
    const unknownTimes = runningRevision([on('6.9.1'), on('6.9.2')]);
    assert.deepEqual(unknownTimes, { revision: '6.9.1', running: 1, total: 2, since: undefined });
  });

  it('an unreadable change time does not count as the latest', () => {
    const running = runningRevision([on('6.9.2', '2026-11-20T10:00:00.000Z'), on('6.9.2', 'yesterday')]);
    assert.equal(running?.since, '2026-11-20T10:00:00.000Z');
  });

  it('no target reports a revision, or there is no target: none, shown as -', () => {
    assert.equal(runningRevision([on(null), on(null)]), undefined);
    assert.equal(runningRevision([]), undefined);
    assert.equal(runningRevisionText(undefined), '-');
  });
});
