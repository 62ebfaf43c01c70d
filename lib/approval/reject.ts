// Rejecting the revision that waits in a manual environment: it is not promoted there, whatever approvals follow,
// until a newer candidate arrives (docs/approval-policies.md). Two doors lead here, `pipelinectl reject`
// (lib/cli/operations/reject.ts) and the dashboard; Weave's webhook has no rejection. Whoever the environment's policy
// lets approve may reject, checked here once, as approve.ts does for approvals.
import type { Pipeline } from '../pipeline/model.js';
import type { Store } from '../store/port.js';
import type { ApproverRefusal } from './approver-policy.js';
import { admitToMarker, markerFor, rejectionOf } from './marker-admission.js';

export interface RejectionDeps {
  store: Pick<Store, 'getApproval' | 'reject' | 'appendAudit'>;
}

export interface RejectionRequest {
  pipeline: Pipeline;
  env: string;
  /** Exactly this revision; undefined: the one the environment's marker names. */
  revision?: string;
  /** Who rejects (as `ApprovalRequest.approver`): read only once the environment and the revision are known. */
  rejecter: string | (() => Promise<string>);
  /** Why, as the person wrote it: one line, kept on the marker and in the audit entry. */
  reason: string;
  /** The door, for the audit entry's message: `pipelinectl`, `the dashboard`. */
  via: string;
  now: Date;
}

/** The longest reason kept: a sentence or two; the details belong in a ticket it links to. */
export const MAX_REJECTION_REASON_LENGTH = 500;

/** What is wrong with a reason, before anything is read. */
export type RejectionReasonProblem = 'empty' | 'too-long' | 'control-characters';

export type RejectionResult =
  /** The reason cannot be kept: nothing was read or changed. */
  | { outcome: 'invalid-reason'; problem: RejectionReasonProblem }
  /** The pipeline has no such environment. */
  | { outcome: 'unknown-environment' }
  /** No revision was named and no marker names one. */
  | { outcome: 'nothing-waiting' }
  /** The marker waits for another revision, or there is none: nothing changed. */
  | { outcome: 'not-waiting'; revision: string }
  /** The policy does not let this identity approve here, so it may not reject either: nothing changed. */
  | { outcome: 'not-allowed'; revision: string; rejecter: string; refusal: ApproverRefusal; reason: string }
  /** Rejected now, with a `rejected` audit entry; `reason` as kept (trimmed). */
  | { outcome: 'rejected'; revision: string; rejecter: string; reason: string }
  /** Rejected before (by whom, when and why, as the marker says): nothing changed. */
  | {
      outcome: 'already-rejected';
      revision: string;
      rejecter: string;
      rejectedBy?: string;
      rejectedAt?: string;
      rejectionReason?: string;
    }
  /** Approved before: the promotion is under way and a rejection does not stop it. Nothing changed. */
  | { outcome: 'already-approved'; revision: string; rejecter: string; approvedBy?: string; approvedAt?: string };

/** Why `reason` cannot be kept, if it cannot: it must say something, in one line a terminal shows as written. */
export function rejectionReasonProblem(reason: string): RejectionReasonProblem | undefined {
  if (reason.trim() === '') return 'empty';
  if (reason.length > MAX_REJECTION_REASON_LENGTH) return 'too-long';
  // eslint-disable-next-line no-control-regex -- exactly what is refused: C0, DEL and C1 control characters.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(reason)) return 'control-characters';
  return undefined;
}

export async function reject(deps: RejectionDeps, request: RejectionRequest): Promise<RejectionResult> {
  const { env, now } = request;
  const reason = request.reason.trim();
  const problem = rejectionReasonProblem(reason);
  if (problem !== undefined) return { outcome: 'invalid-reason', problem };
  const admission = await admitToMarker(deps.store, { ...request, identity: request.rejecter });
  if (admission.outcome === 'unknown-environment' || admission.outcome === 'nothing-waiting') return admission;
  if (admission.outcome === 'not-allowed') {
    const { revision, identity: rejecter, refusal } = admission;
    return { outcome: 'not-allowed', revision, rejecter, refusal, reason: admission.reason };
  }
  const { key, revision, identity: rejecter } = admission;

  const outcome = await deps.store.reject(key, env, revision, rejecter, reason, now);
  switch (outcome) {
    case 'not-waiting':
      return { outcome, revision };
    case 'rejected':
      await deps.store.appendAudit({
        at: now.toISOString(),
        pipeline: key,
        type: 'rejected',
        env,
        revision,
        message: `${revision} rejected for ${env} with ${request.via}: ${reason}`,
        actor: rejecter,
      });
      return { outcome, revision, rejecter, reason };
    case 'already-rejected':
      return { outcome, revision, rejecter, ...rejectionOf(await markerFor(deps.store, key, env, revision)) };
    case 'already-approved': {
      const earlier = await markerFor(deps.store, key, env, revision);
      return {
        outcome,
        revision,
        rejecter,
        ...(earlier?.approvedBy !== undefined && { approvedBy: earlier.approvedBy }),
        ...(earlier?.approvedAt !== undefined && { approvedAt: earlier.approvedAt }),
      };
    }
  }
}
