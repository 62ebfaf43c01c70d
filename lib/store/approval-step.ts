// What one approval request, approval or rejection does to an approval marker, in one place for the table and the
// in-memory store: whether a request replaces the marker, which approvals are the same approver (by the identity each
// counted as, lib/pipeline/approver-identity.ts), whether an approval is recorded, completes the policy, or changes
// nothing, and whether a rejection still applies. The table turns the write into a conditional update that
// checks the same thing again; the in-memory store applies it as it is.
import { approverIdentity, countedIdentityOf } from '../pipeline/approver-identity.js';
import type { ApprovalMarker } from '../decision/types.js';
import { isNewerRevision, sameRevision } from '../flux/revision.js';
import type { ApprovalRequestOutcome, ApproveOutcome, RejectOutcome } from './port.js';

/** An approval to record: the name the door gave, and the identity it counts as. */
export interface ApprovalBy {
  by: string;
  countedAs: string;
}

/** What one approval writes, given the marker as last read. */
export type ApprovalWrite =
  /** A policy of one (or none): approved by this approval alone, as before policies existed. */
  | 'approve'
  /** Recorded; the policy needs more approvers after it. */
  | 'count'
  /** Recorded, and it is the last one the policy needs. */
  | 'count-and-approve'
  /** Counted before, and the approvals already suffice (the policy asks fewer than when they were made). */
  | 'approve-counted';

/** `by`, counted as `countedAs` (default: the identity `by` is). */
export function approvalBy(by: string, countedAs?: string): ApprovalBy {
  return { by, countedAs: countedAs ?? approverIdentity(by) };
}

/** The entry `approvals` gets: `countedAs` only where it is not the name itself, so a local user's reads as before. */
export function approvalEntry(approval: ApprovalBy, now: Date): { by: string; at: string; countedAs?: string } {
  const entry = { by: approval.by, at: now.toISOString() };
  return approval.countedAs === approval.by ? entry : { ...entry, countedAs: approval.countedAs };
}

/** What an approval does to `current` under a policy of `required` approvers: an outcome, or a write. */
export function approvalStep(
  current: ApprovalMarker | undefined,
  revision: string,
  approval: ApprovalBy,
  required: number,
): ApproveOutcome | ApprovalWrite {
  if (current?.revision !== revision) return 'not-waiting';
  if (current.approvedAt !== undefined) return 'already-approved';
  if (current.rejectedAt !== undefined) return 'rejected';
  if (required <= 1) return 'approve';
  const approvals = current.approvals ?? [];
  if (approvals.some((earlier) => countedIdentityOf(earlier) === approval.countedAs)) {
    return approvals.length >= required ? 'approve-counted' : 'already-counted';
  }
  return approvals.length + 1 >= required ? 'count-and-approve' : 'count';
}

export function isApprovalWrite(step: ApproveOutcome | ApprovalWrite): step is ApprovalWrite {
  return step === 'approve' || step === 'count' || step === 'count-and-approve' || step === 'approve-counted';
}

/**
 * What a request for `revision` does to `current`: nothing when it already waits for this revision or for a newer one
 * (an older revision never replaces a newer one), else `'request'`, a new marker in place of the old one.
 */
export function requestStep(
  current: ApprovalMarker | undefined,
  revision: string,
): Exclude<ApprovalRequestOutcome, 'requested'> | 'request' {
  if (current && sameRevision(current.revision, revision)) return 'unchanged';
  if (current && isNewerRevision(current.revision, revision)) return 'superseded';
  return 'request';
}

/**
 * What a rejection of `revision` does to `current`: the outcome when it changes nothing, else the marker it rejects
 * (the one waiting for `revision`).
 */
export function rejectStep(
  current: ApprovalMarker | undefined,
  revision: string,
): Exclude<RejectOutcome, 'rejected'> | ApprovalMarker {
  if (current?.revision !== revision) return 'not-waiting';
  if (current.approvedAt !== undefined) return 'already-approved';
  if (current.rejectedAt !== undefined) return 'already-rejected';
  return current;
}
