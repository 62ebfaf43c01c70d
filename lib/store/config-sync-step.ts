// What a ConfigSource's status becomes, in one place for the table and the in-memory store: the status of a source
// never synced, whether a commit still needs a sync, and the status a finished sync leaves (Flux's way: the
// condition's `lastTransitionTime` moves only when its status does, and the applied revision only on success).
import type { ConfigSourceStatus, ConfigSyncClaim, ConfigSyncResult, ReadyCondition } from './port.js';

/** A source applied and never synced. */
export function pendingStatus(now: Date): ConfigSourceStatus {
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'Pending',
        message: 'not synced yet: the next poll or push webhook reads the branch',
        lastTransitionTime: now.toISOString(),
      },
    ],
  };
}

/** `attempted` as the table keeps it: the generation and the revision of the last attempt, in one comparable value. */
export function attemptKey(generation: number, revision: string): string {
  return `${generation} ${revision}`;
}

/** The status once `result` ended the sync `claim` took. */
export function syncedStatus(
  previous: ConfigSourceStatus,
  claim: ConfigSyncClaim,
  result: ConfigSyncResult,
  now: Date,
): ConfigSourceStatus {
  const before = previous.conditions.find((condition) => condition.type === 'Ready');
  const ready: ReadyCondition = {
    type: 'Ready',
    ...result.ready,
    lastTransitionTime: before && before.status === result.ready.status ? before.lastTransitionTime : now.toISOString(),
  };
  const applied = result.appliedRevision !== undefined;
  return {
    ...previous,
    ...(result.attempted ? { lastAttemptedRevision: claim.revision, attemptedGeneration: claim.generation } : {}),
    ...(applied
      ? { lastAppliedRevision: result.appliedRevision, applied: result.applied, skipped: result.skipped }
      : {}),
    conditions: [ready, ...previous.conditions.filter((condition) => condition.type !== 'Ready')],
  };
}
