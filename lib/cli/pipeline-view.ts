// One pipeline as `status` and `explain` show it: the stored state the verifier decides on (read through the same
// helper, so what is shown is what the verifier would decide now), arranged per environment.
import type { Promotion } from '../config/schema.js';
import { decide, type ApprovalMarker, type Decision, type EnvironmentState } from '../decision/index.js';
import { appKeyOf, appKeyString, type ObjectKey } from '../pipeline/model.js';
import type { ObservedTargetStatus, StoredPipeline, VersionedPromotionRecord } from '../store/port.js';
import { decisionInputOf, readPipelineState, type PipelineStateReader } from '../verifier/evaluate.js';

export type Health = 'healthy' | 'unhealthy' | 'unsettled' | 'error' | 'unknown';

export interface TargetView {
  cluster: ObjectKey;
  namespace: string;
  /** Absent when the target was never observed. */
  observed?: ObservedTargetStatus;
}

export interface EnvironmentView {
  name: string;
  manual: boolean;
  strategy?: 'pull-request' | 'notification';
  /** The decision's state and one-line explanation for the environment. */
  state: EnvironmentState;
  message: string;
  targets: TargetView[];
  approval?: ApprovalMarker;
  /** The environment's promotion records, newest first. */
  promotions: VersionedPromotionRecord[];
}

export interface PipelineView {
  key: ObjectKey;
  stored: StoredPipeline;
  decision: Decision;
  environments: EnvironmentView[];
}

/** Reads a pipeline's state and decides on it at `now`, writing nothing. Undefined when it is not stored. */
export async function loadPipelineView(
  store: PipelineStateReader,
  key: ObjectKey,
  now: Date,
): Promise<PipelineView | undefined> {
  const state = await readPipelineState(store, key);
  if (!state) return undefined;
  const decision = decide(decisionInputOf(state, now));
  const { pipeline } = state.stored;
  const environments = pipeline.environments.map((env): EnvironmentView => {
    const explanation = decision.environments.find((e) => e.env === env.name);
    return {
      name: env.name,
      manual: env.promotion?.manual === true,
      strategy: strategyOf(env.promotion),
      state: explanation?.state ?? 'not-reached',
      message: explanation?.message ?? '',
      targets: env.targets.map((target) => ({
        cluster: target.cluster,
        namespace: target.namespace,
        observed: state.statuses.get(appKeyString(appKeyOf(pipeline, target))),
      })),
      approval: state.approvals.find((marker) => marker.env === env.name),
      promotions: state.promotions
        .filter((record) => record.env === env.name)
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt)),
    };
  });
  return { key, stored: state.stored, decision, environments };
}

/** One word for a target: a read error, still reconciling, healthy or not, or never observed. */
export function healthOf(observed: ObservedTargetStatus | undefined): Health {
  if (!observed) return 'unknown';
  const { status } = observed;
  if (status.error !== undefined) return 'error';
  if (!status.settled) return 'unsettled';
  return status.healthy ? 'healthy' : 'unhealthy';
}

function strategyOf(promotion: Promotion | undefined): EnvironmentView['strategy'] {
  if (!promotion) return undefined;
  return promotion.strategy['pull-request'] ? 'pull-request' : 'notification';
}
