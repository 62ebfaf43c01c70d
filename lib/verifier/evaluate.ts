// Deciding for one pipeline from what the store holds, and carrying out the decision's actions. The decision is
// pure (lib/decision); everything here is I/O around it, and every write is conditional, so two verifiers
// evaluating the same pipeline at once cannot make an effect twice.
import type { Decision } from '../decision/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { VerifierDeps } from './deps.js';
import { clearApproval } from './effects/clear-approval.js';
import { promote } from './effects/promote.js';
import { rollback } from './effects/rollback.js';
import { decideWithReads } from '../pipeline-state/decide-with-reads.js';
import { readPipelineState, type KnownPipelineState } from '../pipeline-state/pipeline-state.js';
import { recordEnvironmentFacts } from './environment-facts.js';
import { recordHostDeployments } from './host-deployments.js';
import { requestApproval } from './effects/request-approval.js';
import { scheduleRecheck, type EvaluationCause } from './effects/schedule-recheck.js';
import { verify } from './effects/verify.js';
import { serveCurrent } from './effects/serve-current.js';

/**
 * Decides for one pipeline from what the store holds and carries out the decision's actions, each through its own
 * module (effects/). `cause` says what led to this evaluation: it decides whether a re-check is scheduled
 * (effects/schedule-recheck.ts). `known`: the definition and promotion records the caller has just read, which are
 * then not read again. Undefined when the pipeline is not stored.
 */
export async function evaluatePipeline(
  key: ObjectKey,
  deps: VerifierDeps,
  cause: EvaluationCause = 'nothing-changed',
  known?: KnownPipelineState,
): Promise<Decision | undefined> {
  const state = await readPipelineState(deps.store, key, known);
  if (!state) {
    // An index entry can outlive its pipeline for a moment (see the store's apply order); nothing to decide.
    deps.logger.debug('pipeline not found; skipping', { pipeline: objectKeyString(key) });
    return undefined;
  }
  const { pipeline } = state.stored;
  const decision = await decideWithReads(deps.store, state, deps.now());
  const explanation = (env: string) => decision.environments.find((e) => e.env === env)?.message ?? '';

  for (const action of decision.actions) {
    switch (action.type) {
      case 'request-approval':
        await requestApproval(pipeline, action, explanation(action.env), deps);
        break;
      case 'clear-approval':
        await clearApproval(pipeline, action, deps);
        break;
      case 'promote':
        await promote(pipeline, action, deps);
        break;
      case 'rollback':
        await rollback(pipeline, action, deps);
        break;
      case 'verify':
        await verify(pipeline, action, state.statuses, deps);
        break;
      case 'serve-current':
        await serveCurrent(pipeline, action, deps);
        break;
    }
  }
  await scheduleRecheck(key, decision, cause, deps);
  await recordEnvironmentFacts(pipeline, state.statuses, deps);
  await recordHostDeployments(pipeline, decision, state.promotions, state.statuses, deps);
  if (decision.actions.length > 0) {
    deps.logger.info('decided', {
      pipeline: objectKeyString(key),
      candidate: decision.candidate,
      actions: decision.actions.map((action) => `${action.type} ${action.env} ${action.revision}`),
    });
  }
  return decision;
}
