// What one approval does to an approval marker, in one place for the table and the in-memory store: which approvals
// are the same approver (by the identity each counted as, lib/pipeline/approver-identity.ts), and whether this one is
// recorded, completes the policy, or changes nothing. The table turns the write into a conditional update that
// checks the same thing again; the in-memory store applies it as it is.
import { approverIdentity, countedIdentityOf } from '../pipeline/approver-identity.js';
import type { ApprovalMarker } from '../decision/types.js';
import type { ApproveOutcome } from './port.js';

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
