// What `pipelinectl approve` does: the approve use case (lib/approval/approve.ts) under the caller's identity, as
// Weave's `/approval` endpoint does under its key's name, with the CLI's own messages.
import { approve } from '../../approval/approve.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

interface ApproveResultBase {
  revision: string;
  /** False when no verifier took the promote message (local mode without `serve`). */
  delivered: boolean;
}

export type ApproveResult =
  /** Approved now, by the caller. */
  | (ApproveResultBase & { outcome: 'approved'; by: string; at: string })
  /** Approved before: by whom and when, as the marker says (unless it moved on meanwhile). */
  | (ApproveResultBase & { outcome: 'already-approved'; by: string | undefined; at: string | undefined });

/**
 * What `pipelinectl approve -o json` prints. Absent values are `null`; `approvedBy` and `approvedAt` are the
 * approval's, which for `already-approved` is the earlier one.
 */
export interface ApproveJson {
  /** `NS/NAME`. */
  pipeline: string;
  env: string;
  revision: string;
  outcome: ApproveResult['outcome'];
  approvedBy: string | null;
  approvedAt: string | null;
  /** Whether a verifier took the promotion now; false in the local mode without `serve` (it promotes at start). */
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
    delivered: result.delivered,
  };
}

/**
 * Approves `revision` (default: the one waiting) in `env`. Throws a CliError when the pipeline or environment does
 * not exist or nothing waits for that revision, naming what does wait, if anything.
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
    case 'unknown-environment': {
      const environments = stored.pipeline.environments.map((e) => e.name);
      throw new CliError(`pipeline ${name} has no environment "${env}" (it has ${environments.join(', ')})`);
    }
    case 'nothing-waiting':
      throw new CliError(`nothing waits for approval in ${name} ${env}`);
    case 'not-waiting': {
      // Read again: the marker may have moved on since the approval was refused.
      const current = await backend.store.getApproval(key, env);
      const waiting =
        current && current.approvedAt === undefined
          ? `${current.revision} is waiting (approve it with --revision ${current.revision})`
          : 'nothing waits for approval there';
      throw new CliError(`${result.revision} is not waiting for approval in ${name} ${env}: ${waiting}`);
    }
    case 'approved':
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: result.approver,
        at: now.toISOString(),
        delivered: result.delivered,
      };
    case 'already-approved': {
      // The approval that counts is the earlier one: read who gave it and when (unless the marker moved on since).
      const marker = await backend.store.getApproval(key, env);
      const earlier = marker?.revision === result.revision ? marker : undefined;
      return {
        outcome: result.outcome,
        revision: result.revision,
        by: earlier?.approvedBy,
        at: earlier?.approvedAt,
        delivered: result.delivered,
      };
    }
  }
}
