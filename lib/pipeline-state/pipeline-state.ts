// What a decision about one pipeline is made from, read from the store: the verifier decides on it, and
// `pipelinectl status`, `explain` and the dashboard show the same decision.
import type { ApprovalMarker, DecisionInput, ServedInput } from '../decision/index.js';
import { servesInputs } from '../decision/index.js';
import type { TargetStatus } from '../flux/target-status.js';
import {
  appKeyOf,
  appKeyString,
  type AppKey,
  type ObjectKey,
  type Pipeline,
  watchedObjectsOf,
} from '../pipeline/model.js';
import type {
  ObservedTargetStatus,
  Store,
  StoredPipeline,
  VersionedPromotionRecord,
  VersionedVerificationRecord,
} from '../store/port.js';

/** What a decision about one pipeline is made from, as the store holds it. */
export interface PipelineState {
  stored: StoredPipeline;
  /** Observed status by `appKeyString`; a target never observed is absent. */
  statuses: Map<string, ObservedTargetStatus>;
  approvals: ApprovalMarker[];
  promotions: VersionedPromotionRecord[];
  /** What the verification checks found, per environment; read only for a pipeline that has checks. */
  verifications: VersionedVerificationRecord[];
  /** What is served per `external-service` environment; read only for a pipeline that has one, else undefined. */
  servedInputs?: ServedInput[];
}

/** What a caller read of the state just before (the poll's check of a pipeline), so that it is not read twice. */
export type KnownPipelineState = Pick<PipelineState, 'stored' | 'promotions'>;

export type PipelineStateReader = Pick<
  Store,
  'getPipeline' | 'getTargetStatuses' | 'listApprovals' | 'listPromotions' | 'listVerifications' | 'listServedInputs'
>;

/**
 * Reads everything the decision about a pipeline needs, and writes nothing: the verifier decides on it, and
 * `pipelinectl status` and `explain` show the same decision. Undefined when the pipeline is not stored.
 */
export async function readPipelineState(
  store: PipelineStateReader,
  key: ObjectKey,
  known?: KnownPipelineState,
): Promise<PipelineState | undefined> {
  const stored = known ? known.stored : await store.getPipeline(key);
  if (!stored) return undefined;
  const { environments } = stored.pipeline;
  const verified = environments.some((env) => env.verification !== undefined);
  const serves = environments.some((env) => servesInputs(stored.pipeline, env));
  const [statuses, approvals, promotions, verifications, servedInputs] = await Promise.all([
    store.getTargetStatuses(appsOf(stored.pipeline)),
    store.listApprovals(key),
    known ? known.promotions : store.listPromotions(key),
    verified ? store.listVerifications(key) : [],
    serves ? store.listServedInputs(key) : undefined,
  ]);
  return { stored, statuses, approvals, promotions, verifications, ...(servedInputs ? { servedInputs } : {}) };
}

/** The decision's input for a pipeline's state at `now`. */
export function decisionInputOf(state: PipelineState, now: Date): DecisionInput {
  const observed = new Map<string, TargetStatus>();
  const statusSince = new Map<string, string>();
  for (const [app, entry] of state.statuses) {
    observed.set(app, entry.status);
    statusSince.set(app, entry.changedAt);
  }
  const { approvals, promotions, verifications, servedInputs } = state;
  return {
    pipeline: state.stored.pipeline,
    observed,
    statusSince,
    approvals,
    promotions,
    verifications,
    ...(servedInputs ? { servedInputs } : {}),
    now,
  };
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
