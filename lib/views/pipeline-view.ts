// One pipeline as `status` and `explain` show it: the stored state the verifier decides on (read through the same
// helper, so what is shown is what the verifier would decide now), arranged per environment.
import type { Promotion } from '../config/schema.js';
import {
  decide,
  type ApprovalMarker,
  type Decision,
  type EnvironmentReason,
  type EnvironmentState,
} from '../decision/index.js';
import type { TargetPhase, TargetReason } from '../flux/target-status.js';
import { appKeyOf, appKeyString, type ObjectKey } from '../pipeline/model.js';
import type { ObservedTargetStatus, StoredPipeline, VersionedPromotionRecord } from '../store/port.js';
import { decisionInputOf, readPipelineState, type PipelineStateReader } from '../verifier/evaluate.js';

/** A target's phase as `status` and `explain` show it: its status's phase, or `Unobserved` before a first read. */
export type TargetViewPhase = TargetPhase | 'Unobserved';
/** A target's reason as shown: its status's reason, or `NeverObserved` before a first read. */
export type TargetViewReason = TargetReason | 'NeverObserved';

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
  /** The decision's state, reason and one-line explanation for the environment. */
  state: EnvironmentState;
  reason: EnvironmentReason;
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
      reason: explanation?.reason ?? 'StoppedEarlier',
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

/** A target's phase and reason as shown, including a target never observed. */
export function phaseOf(observed: ObservedTargetStatus | undefined): {
  phase: TargetViewPhase;
  reason: TargetViewReason;
} {
  if (!observed) return { phase: 'Unobserved', reason: 'NeverObserved' };
  return { phase: observed.status.phase, reason: observed.status.reason };
}

function strategyOf(promotion: Promotion | undefined): EnvironmentView['strategy'] {
  if (!promotion) return undefined;
  return promotion.strategy['pull-request'] ? 'pull-request' : 'notification';
}
