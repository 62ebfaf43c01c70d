// The `rollback` action (docs/rollback.md): the pull request that sets an environment's markers back to `revision`,
// the last revision healthy there, because its targets failed on `from`. It is carried out like a promotion
// (promote.ts, `underRecord`) under a record of its own, (pipeline, `rollback:{env}`, from), so it is opened at
// most once per (environment, failed revision), resumed after a crash and retried on the promotion schedule. The
// Promoter is asked for a rollback (`request.rollback`); only the pull-request strategy makes one, and never merges
// it. The audit entries name the environment and the failed revision.
import type { Action } from '../../decision/index.js';
import type { Pipeline } from '../../pipeline/model.js';
import { rollbackRecordEnv } from '../../decision/rollback-record.js';
import type { VerifierDeps } from '../deps.js';
import { type PromotionRun, underRecord } from './promote.js';

export type RollbackAction = Extract<Action, { type: 'rollback' }>;

export async function rollback(pipeline: Pipeline, action: RollbackAction, deps: VerifierDeps): Promise<PromotionRun> {
  const env = pipeline.environments.find((candidate) => candidate.name === action.env);
  if (!env) return 'not-claimed';
  const { revision, from } = action;
  return underRecord(
    pipeline,
    {
      kind: 'rollback',
      record: { env: rollbackRecordEnv(env.name), revision: from },
      audit: {
        env: env.name,
        revision: from,
        started: 'rollback-started',
        succeeded: 'rollback-succeeded',
        failed: 'rollback-failed',
      },
      startedMessage: (attempt) =>
        `rolling back ${env.name} from ${from} to ${revision} by pull request (attempt ${attempt})`,
      succeededMessage: (result) =>
        result
          ? `rollback of ${from} to ${revision} proposed: ${result}`
          : `rollback of ${from} to ${revision} proposed`,
      request: (attempt) => ({ pipeline, env, revision, attempt, rollback: { from } }),
      logAttributes: { env: env.name, revision, from },
    },
    deps,
  );
}
