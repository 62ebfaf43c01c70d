// Deciding for one pipeline from what the store holds, and carrying out the decision's actions. The decision is
// pure (lib/decision); everything here is I/O around it, and every write is conditional, so two verifiers
// evaluating the same pipeline at once cannot make an effect twice.
import { decide, type ApprovalMarker, type Decision, type DecisionInput } from '../decision/index.js';
import type { TargetStatus } from '../flux/target-status.js';
import {
  appKeyOf,
  appKeyString,
  objectKeyString,
  type AppKey,
  type ObjectKey,
  type Pipeline,
  watchedObjectsOf,
} from '../pipeline/model.js';
import type { ObservedTargetStatus, Store, StoredPipeline, VersionedPromotionRecord } from '../store/port.js';
import type { VerifierDeps } from './deps.js';
import { clearApproval } from './actions/clear-approval.js';
import { promote } from './actions/promote.js';
import { recordEnvironmentFacts } from './environment-facts.js';
import { requestApproval } from './actions/request-approval.js';
import { scheduleSoakCheck, type EvaluationCause } from './actions/schedule-soak-check.js';

/** What a decision about one pipeline is made from, as the store holds it. */
export interface PipelineState {
  stored: StoredPipeline;
  /** Observed status by `appKeyString`; a target never observed is absent. */
  statuses: Map<string, ObservedTargetStatus>;
  approvals: ApprovalMarker[];
  promotions: VersionedPromotionRecord[];
}

export type PipelineStateReader = Pick<Store, 'getPipeline' | 'getTargetStatuses' | 'listApprovals' | 'listPromotions'>;

/**
 * Reads everything the decision about a pipeline needs, and writes nothing: the verifier decides on it, and
 * `pipelinectl status` and `explain` show the same decision. Undefined when the pipeline is not stored.
 */
export async function readPipelineState(
  store: PipelineStateReader,
  key: ObjectKey,
): Promise<PipelineState | undefined> {
  const stored = await store.getPipeline(key);
  if (!stored) return undefined;
  const [statuses, approvals, promotions] = await Promise.all([
    store.getTargetStatuses(appsOf(stored.pipeline)),
    store.listApprovals(key),
    store.listPromotions(key),
  ]);
  return { stored, statuses, approvals, promotions };
}

/** The decision's input for a pipeline's state at `now`. */
export function decisionInputOf(state: PipelineState, now: Date): DecisionInput {
  const observed = new Map<string, TargetStatus>();
  const statusSince = new Map<string, string>();
  for (const [app, entry] of state.statuses) {
    observed.set(app, entry.status);
    statusSince.set(app, entry.changedAt);
  }
  const { approvals, promotions } = state;
  return { pipeline: state.stored.pipeline, observed, statusSince, approvals, promotions, now };
}

/**
 * Decides for one pipeline from what the store holds and carries out the decision's actions, each through its own
 * module (actions/). `cause` says what led to this evaluation: it decides whether a soak re-check is scheduled
 * (actions/schedule-soak-check.ts). Undefined when the pipeline is not stored.
 */
export async function evaluatePipeline(
  key: ObjectKey,
  deps: VerifierDeps,
  cause: EvaluationCause = 'nothing-changed',
): Promise<Decision | undefined> {
  const state = await readPipelineState(deps.store, key);
  if (!state) {
    // An index entry can outlive its pipeline for a moment (see the store's apply order); nothing to decide.
    deps.logger.debug('pipeline not found; skipping', { pipeline: objectKeyString(key) });
    return undefined;
  }
  const { pipeline } = state.stored;
  const decision = decide(decisionInputOf(state, deps.now()));
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
    }
  }
  await scheduleSoakCheck(key, decision, cause, deps);
  await recordEnvironmentFacts(pipeline, state.statuses, deps);
  if (decision.actions.length > 0) {
    deps.logger.info('decided', {
      pipeline: objectKeyString(key),
      candidate: decision.candidate,
      actions: decision.actions.map((action) => `${action.type} ${action.env} ${action.revision}`),
    });
  }
  return decision;
}

/**
 * What a pipeline reads: with no `env`, every target's app and the pipeline's source (watchedObjectsOf); with one,
 * that environment's targets. Each once, though a target may be listed twice.
 */
export function appsOf(pipeline: Pipeline, env?: string): AppKey[] {
  if (env === undefined) return watchedObjectsOf(pipeline);
  const apps = pipeline.environments
    .filter((candidate) => candidate.name === env)
    .flatMap((candidate) => candidate.targets.map((target) => appKeyOf(pipeline, target)));
  return [...new Map(apps.map((app) => [appKeyString(app), app])).values()];
}
