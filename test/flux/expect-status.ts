// The assertion both readers' tests make: phase, reason and revision exactly, the message by pattern.
import assert from 'node:assert/strict';
import type { TargetPhase, TargetReason, TargetStatus } from '../../lib/flux/index.js';

export interface Expected {
  phase: TargetPhase;
  reason: TargetReason;
  /** What the target runs; undefined when the status must carry no revision at all. */
  revision: string | undefined;
  /** Failed only: the revision Flux failed on when it is not `revision`; absent when the status must carry none. */
  failedRevision?: string;
  message: RegExp;
}

export function expectStatus(actual: TargetStatus, expected: Expected): void {
  assert.deepEqual(
    { phase: actual.phase, reason: actual.reason, revision: actual.revision, failedRevision: actual.failedRevision },
    {
      phase: expected.phase,
      reason: expected.reason,
      revision: expected.revision,
      failedRevision: expected.failedRevision,
    },
    actual.message,
  );
  // A status is stored and printed as JSON: no fields beyond these, and no `revision: undefined` key.
  const fields = [
    'phase',
    'reason',
    'message',
    ...(expected.revision === undefined ? [] : ['revision']),
    ...(expected.failedRevision === undefined ? [] : ['failedRevision']),
  ];
  assert.deepEqual(Object.keys(actual).sort(), fields.sort(), 'the fields of the status');
  assert.match(actual.message, expected.message);
}
