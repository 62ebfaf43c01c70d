// What `pipelinectl approve` does: approve the revision waiting in a manual environment, as Weave's `/approval`
// endpoint does, under the caller's identity, and hand the promotion to the verifier.
import type { ApproveOutcome } from '../../store/port.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

export interface ApproveResult {
  outcome: Exclude<ApproveOutcome, 'not-waiting'>;
  revision: string;
  by: string;
  /** False when no verifier took the promote message (local mode without `serve`). */
  delivered: boolean;
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
  const environments = stored.pipeline.environments.map((e) => e.name);
  if (!environments.includes(env)) {
    throw new CliError(`pipeline ${name} has no environment "${env}" (it has ${environments.join(', ')})`);
  }
  const marker = await backend.store.getApproval(key, env);
  const wanted = revision ?? marker?.revision;
  if (wanted === undefined) throw new CliError(`nothing waits for approval in ${name} ${env}`);

  const by = await backend.identity();
  const outcome = await backend.store.approve(key, env, wanted, by, now);
  if (outcome === 'not-waiting') {
    // Read again: the marker may have moved on since the first read.
    const current = await backend.store.getApproval(key, env);
    const waiting =
      current && current.approvedAt === undefined
        ? `${current.revision} is waiting (approve it with --revision ${current.revision})`
        : 'nothing waits for approval there';
    throw new CliError(`${wanted} is not waiting for approval in ${name} ${env}: ${waiting}`);
  }
  if (outcome === 'approved') {
    await backend.store.appendAudit({
      at: now.toISOString(),
      pipeline: key,
      type: 'approved',
      env,
      revision: wanted,
      message: `${wanted} approved for ${env} with pipelinectl`,
      actor: by,
    });
  }
  // Also after `already-approved`: the promotion record makes a repeated promote message harmless.
  const delivered = await backend.enqueue({ type: 'promote', pipeline: key, env, revision: wanted });
  return { outcome, revision: wanted, by, delivered };
}
