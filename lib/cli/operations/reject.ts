// What `pipelinectl reject` does: the reject use case (lib/approval/reject.ts) under the caller's identity, with the
// CLI's own messages, worded like `approve`'s.
import { notWaiting, unknownEnvironment } from './marker-refusals.js';
import { MAX_REJECTION_REASON_LENGTH, reject, type RejectionReasonProblem } from '../../approval/reject.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

export type RejectResult =
  /** Rejected now, by the caller, for `reason`. */
  | { outcome: 'rejected'; revision: string; by: string; at: string; reason: string }
  /** Rejected before: by whom, when and why, as the marker says (unless it moved on meanwhile). */
  | {
      outcome: 'already-rejected';
      revision: string;
      by: string | undefined;
      at: string | undefined;
      reason: string | undefined;
    };

/** What `pipelinectl reject -o json` prints. Absent values are `null`; for `already-rejected`, the earlier rejection. */
export interface RejectJson {
  /** `NS/NAME`. */
  pipeline: string;
  env: string;
  revision: string;
  outcome: RejectResult['outcome'];
  rejectedBy: string | null;
  rejectedAt: string | null;
  reason: string | null;
}

export function rejectJson(key: ObjectKey, env: string, result: RejectResult): RejectJson {
  return {
    pipeline: objectKeyString(key),
    env,
    revision: result.revision,
    outcome: result.outcome,
    rejectedBy: result.by ?? null,
    rejectedAt: result.at ?? null,
    reason: result.reason ?? null,
  };
}

const REASON_PROBLEMS: Readonly<Record<RejectionReasonProblem, string>> = {
  empty: '--reason must say why the revision is rejected',
  'too-long': `--reason must be at most ${MAX_REJECTION_REASON_LENGTH} characters (link a ticket for the details)`,
  'control-characters': '--reason must be one line, without control characters',
};

/**
 * Rejects `revision` (default: the one waiting) in `env`, for `reason`. Throws a CliError when the reason cannot be
 * kept, the pipeline or environment does not exist, nothing waits for that revision, it was approved already, or
 * the environment's approval policy does not let the caller approve (who may approve may reject).
 */
export async function rejectRevision(
  backend: Backend,
  key: ObjectKey,
  env: string,
  revision: string | undefined,
  reason: string,
  now = new Date(),
): Promise<RejectResult> {
  const name = objectKeyString(key);
  const stored = await backend.store.getPipeline(key);
  if (!stored) throw new CliError(`pipeline ${name} not found in ${backend.description}`);
  const result = await reject(
    { store: backend.store },
    { pipeline: stored.pipeline, env, revision, rejecter: () => backend.identity(), reason, via: 'pipelinectl', now },
  );
  switch (result.outcome) {
    case 'invalid-reason':
      throw new CliError(REASON_PROBLEMS[result.problem]);
    case 'unknown-environment':
      throw unknownEnvironment(stored.pipeline, env);
    case 'nothing-waiting':
      throw new CliError(`nothing waits for approval in ${name} ${env}`);
    case 'not-waiting':
      throw await notWaiting(backend, key, env, result.revision, 'reject');
    case 'not-allowed':
      throw new CliError(
        `cannot reject ${result.revision} in ${name} ${env} (who may approve may reject): ${result.reason}`,
      );
    case 'already-approved': {
      const by = result.approvedBy ? ` by ${result.approvedBy}` : '';
      throw new CliError(
        `${result.revision} was approved for ${name} ${env} already${by}: its promotion is under way and a ` +
          'rejection does not stop it',
      );
    }
    case 'rejected':
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: result.rejecter,
        at: now.toISOString(),
        reason: result.reason,
      };
    case 'already-rejected':
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: result.rejectedBy,
        at: result.rejectedAt,
        reason: result.rejectionReason,
      };
  }
}
