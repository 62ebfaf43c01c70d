// What `pipelinectl approve` does: the approve use case (lib/approval/approve.ts) under the caller's identity, as
// Weave's `/approval` endpoint does under its key's name, with the CLI's own messages.
import { notWaiting, unknownEnvironment } from './marker-refusals.js';
import { approve, requiredApprovals } from '../../approval/approve.js';
import { countedIdentityOf } from '../../pipeline/approver-identity.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

interface ApproveResultBase {
  revision: string;
  /** False when no verifier took the promote message (local mode without `serve`), or none was sent (`counted`). */
  delivered: boolean;
  /** Distinct approvals of the revision so far, as far as known. */
  have: number | undefined;
  /** Distinct approvals the environment's policy requires (1 without a policy). */
  need: number;
}

/** The identity the caller's approval counts as, where it is not the caller's name (the role of a session). */
interface CountedAs {
  countedAs?: string;
}

export type ApproveResult =
  /** Approved now, by the caller: the last approval needed. */
  | (ApproveResultBase & CountedAs & { outcome: 'approved'; by: string; at: string })
  /** The caller's approval was recorded now; the policy needs more approvers before the promotion starts. */
  | (ApproveResultBase & CountedAs & { outcome: 'counted'; by: string; at: string })
  /** The caller approved before (under this name or another of the same identity); more approvers are still needed. */
  | (ApproveResultBase & CountedAs & { outcome: 'already-counted'; by: string; at: string | undefined })
  /** Approved before: by whom and when, as the marker says (unless it moved on meanwhile). */
  | (ApproveResultBase & { outcome: 'already-approved'; by: string | undefined; at: string | undefined });

/**
 * What `pipelinectl approve -o json` prints. Absent values are `null`; `approvedBy` and `approvedAt` are the
 * approval's, which for `already-approved` is the earlier one (the last that completed it) and for
 * `already-counted` the caller's earlier one.
 */
export interface ApproveJson {
  /** `NS/NAME`. */
  pipeline: string;
  env: string;
  revision: string;
  outcome: ApproveResult['outcome'];
  approvedBy: string | null;
  approvedAt: string | null;
  /** Distinct approvals of the revision so far (this one included); null when the marker moved on. */
  have: number | null;
  /** Distinct approvals the environment's policy requires before the promotion starts. */
  need: number;
  /** Whether a verifier took the promotion now; false in the local mode without `serve`, and while approvals are short. */
  delivered: boolean;
}

export function approveJson(key: ObjectKey, env: string, result: ApproveResult): ApproveJson {
  return {
    pipeline: objectKeyString(key),
    env,
    revision: result.revision,
    outcome: result.outcome,
    approvedBy: result.by ?? null,
    approvedAt: result.at ?? null,
    have: result.have ?? null,
    need: result.need,
    delivered: result.delivered,
  };
}

/** `1 of 2 approvals, 1 more needed`. */
export function approvalCountText(have: number | undefined, need: number): string {
  const more = have === undefined ? undefined : need - have;
  const count = `${have ?? '?'} of ${need} approvals`;
  return more === undefined || more <= 0 ? count : `${count}, ${more} more needed`;
}

/**
 * Approves `revision` (default: the one waiting) in `env`. Throws a CliError when the pipeline or environment does
 * not exist, nothing waits for that revision (naming what does wait, if anything), the revision was rejected, or
 * the environment's approval policy does not let the caller approve.
 */
export async function approveRevision(
  backend: Backend,
  key: ObjectKey,
  env: string,
  revision: string | undefined,
  now = new Date(),
): Promise<ApproveResult> {
  const name = objectKeyString(key);
  const stored = await backend.store.getPipeline(key);
  if (!stored) throw new CliError(`pipeline ${name} not found in ${backend.description}`);
  const result = await approve(
    { store: backend.store, enqueue: (message) => backend.enqueue(message) },
    { pipeline: stored.pipeline, env, revision, approver: () => backend.identity(), via: 'pipelinectl', now },
  );
  switch (result.outcome) {
    case 'unknown-environment':
      throw unknownEnvironment(stored.pipeline, env);
    case 'nothing-waiting':
      throw new CliError(`nothing waits for approval in ${name} ${env}`);
    case 'not-waiting':
      throw await notWaiting(backend, key, env, result.revision, 'approve');
    case 'invalid-revision':
      throw new CliError(`cannot approve in ${name} ${env}: ${result.reason}`);
    case 'not-allowed':
      throw new CliError(`cannot approve ${result.revision} in ${name} ${env}: ${result.reason}`);
    case 'rejected': {
      const by = result.rejectedBy ? ` by ${result.rejectedBy}` : '';
      const why = result.rejectionReason ? ` (${result.rejectionReason})` : '';
      throw new CliError(
        `${result.revision} was rejected for ${name} ${env}${by}${why}: it is not promoted there; ` +
          'a newer revision asks for approval again',
      );
    }
    case 'approved':
    case 'counted':
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: result.approver,
        ...(result.countedAs !== undefined && { countedAs: result.countedAs }),
        at: now.toISOString(),
        have: result.have,
        need: result.need,
        delivered: result.outcome === 'approved' && result.delivered,
      };
    case 'already-counted': {
      const marker = await backend.store.getApproval(key, env);
      const mine = marker?.revision === result.revision ? marker.approvals : undefined;
      const identity = result.countedAs ?? result.approver;
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: result.approver,
        ...(result.countedAs !== undefined && { countedAs: result.countedAs }),
        at: mine?.find((approval) => countedIdentityOf(approval) === identity)?.at,
        have: result.have,
        need: result.need,
        delivered: false,
      };
    }
    case 'already-approved': {
      // The approval that counts is the earlier one: read who gave it and when (unless the marker moved on since).
      const marker = await backend.store.getApproval(key, env);
      const earlier = marker?.revision === result.revision ? marker : undefined;
      const need = requiredApprovals(stored.pipeline, env);
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: earlier?.approvedBy,
        at: earlier?.approvedAt,
        // A marker approved before policies existed lists no approvals: its one approval was all it needed.
        have: earlier && (earlier.approvals?.length ?? 1),
        need,
        delivered: result.delivered,
      };
    }
  }
}
