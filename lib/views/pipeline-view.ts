// One pipeline as `status` and `explain` show it: the stored state the verifier decides on (read through the same
// helper, so what is shown is what the verifier would decide now), arranged per environment.
import { predecessorsOf } from '../pipeline/environment-graph.js';
import { type StrategyName, strategyOf } from '../pipeline/promotion.js';
import {
  type ApprovalMarker,
  type Decision,
  type EnvironmentReason,
  type EnvironmentState,
} from '../decision/index.js';
import { runsSourceRevision, sameRevision } from '../flux/revision.js';
import { rolledBackEnv } from '../decision/rollback-record.js';
import { promotionPullRequest, type PromotionPullRequest } from '../decision/promotion-pull-request.js';
import type { TargetPhase, TargetReason } from '../flux/target-status.js';
import { appKeyOf, appKeyString, type ObjectKey } from '../pipeline/model.js';
import type {
  ObservedTargetStatus,
  StoredPipeline,
  VersionedPromotionRecord,
  VersionedVerificationRecord,
} from '../store/port.js';
import { decideWithReads, type DecisionReads } from '../pipeline-state/decide-with-reads.js';
import { readPipelineState, type PipelineStateReader } from '../pipeline-state/pipeline-state.js';

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
  /** The environments it follows (docs/environment-graphs.md): none for the first. */
  after: string[];
  manual: boolean;
  strategy?: StrategyName;
  /** The decision's state, reason and one-line explanation for the environment. */
  state: EnvironmentState;
  reason: EnvironmentReason;
  message: string;
  /** ISO 8601: when the soak of a soaking environment, or the one it waits for (AwaitingSoak), is served. */
  soakEndsAt?: string;
  /** ISO 8601: when the freeze holding a `frozen` environment ends by itself. */
  frozenUntil?: string;
  /** ISO 8601: when the rollback of an environment in its grace period becomes due. */
  rollbackAt?: string;
  /** `not-reached`: the environment it waits for. */
  waitsFor?: string;
  /** `AwaitingGroup`: the members of its group the release train waits for. */
  waitsForMembers?: string[];
  /** ISO 8601. `VerificationHolding`: when the checks, holding now, will have held for the whole `for`. */
  verificationEndsAt?: string;
  /** What the environment's verification checks last found, for the revision last verified there. */
  verification?: VersionedVerificationRecord;
  targets: TargetView[];
  approval?: ApprovalMarker;
  /** The environment's promotion records, its rollbacks' included (`rollback:{env}`), newest first. */
  promotions: VersionedPromotionRecord[];
  /** The pull request the promotion of the candidate opened here, as its host last said (promotionPullRequest). */
  pullRequest?: PromotionPullRequest;
}

export interface PipelineView {
  key: ObjectKey;
  stored: StoredPipeline;
  decision: Decision;
  environments: EnvironmentView[];
}

/** Reads a pipeline's state and decides on it at `now`, writing nothing. Undefined when it is not stored. */
export async function loadPipelineView(
  store: PipelineStateReader & DecisionReads,
  key: ObjectKey,
  now: Date,
): Promise<PipelineView | undefined> {
  const state = await readPipelineState(store, key);
  if (!state) return undefined;
  const decision = await decideWithReads(store, state, now);
  const { pipeline } = state.stored;
  const environments = pipeline.environments.map((env): EnvironmentView => {
    const explanation = decision.environments.find((e) => e.env === env.name);
    const { candidate } = decision;
    const candidateRecord =
      candidate === undefined
        ? undefined
        : state.promotions.find((record) => record.env === env.name && sameRevision(record.revision, candidate));
    const pullRequest = candidateRecord && promotionPullRequest(candidateRecord, env.promotion);
    return {
      name: env.name,
      after: predecessorsOf(pipeline.environments, env.name),
      manual: env.promotion?.manual === true,
      strategy: env.promotion ? strategyOf(env.promotion) : undefined,
      state: explanation?.state ?? 'not-reached',
      reason: explanation?.reason ?? 'StoppedEarlier',
      message: explanation?.message ?? '',
      ...(explanation?.soakEndsAt ? { soakEndsAt: explanation.soakEndsAt } : {}),
      ...(explanation?.frozenUntil ? { frozenUntil: explanation.frozenUntil } : {}),
      ...(explanation?.rollbackAt ? { rollbackAt: explanation.rollbackAt } : {}),
      ...(explanation?.waitsFor ? { waitsFor: explanation.waitsFor } : {}),
      ...(explanation?.waitsForMembers ? { waitsForMembers: explanation.waitsForMembers } : {}),
      ...(explanation?.verificationEndsAt ? { verificationEndsAt: explanation.verificationEndsAt } : {}),
      ...verificationOf(state.verifications, env.name),
      targets: env.targets.map((target) => ({
        cluster: target.cluster,
        namespace: target.namespace,
        observed: state.statuses.get(appKeyString(appKeyOf(pipeline, target))),
      })),
      approval: state.approvals.find((marker) => marker.env === env.name),
      promotions: state.promotions
        .filter((record) => record.env === env.name || rolledBackEnv(record.env) === env.name)
        .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt)),
      ...(pullRequest ? { pullRequest } : {}),
    };
  });
  return { key, stored: state.stored, decision, environments };
}

function verificationOf(
  records: readonly VersionedVerificationRecord[],
  env: string,
): { verification?: VersionedVerificationRecord } {
  const record = records.find((candidate) => candidate.env === env);
  return record ? { verification: record } : {};
}

/**
 * The approval marker a person must act on for the environment to move on: its candidate waits for an approval
 * (or for more approvals under a policy) that was requested already. Undefined while the verifier has yet to
 * request it, or when the environment waits for anything else.
 */
export function approvalWaitingForPerson(env: EnvironmentView): ApprovalMarker | undefined {
  const waits = env.reason === 'AwaitingApproval' || env.reason === 'ApprovalsShort';
  return waits ? env.approval : undefined;
}

/** How many of an environment's targets are in one phase; Ready ones are counted per revision. */
export interface PhaseCount {
  phase: TargetViewPhase;
  /** For `Ready`: the revision those targets run (undefined when they report none). */
  revision?: string;
  count: number;
}

/** An environment's targets in short, for a fleet too large to show target by target. */
export interface TargetsSummary {
  total: number;
  /** Ready first, one entry per revision (most targets first), then the other phases, the most hopeful first. */
  counts: PhaseCount[];
  /**
   * The targets that keep the environment from being done: not Ready (Failed, Unreadable, Absent, Suspended,
   * Unobserved, Progressing: in this order, the ones a person must look at first), then Ready on another revision
   * than the environment is measured against. Within each, in the pipeline's order.
   */
  holdingBack: TargetView[];
}

/** The order of `TargetsSummary.counts` after the Ready ones. */
const COUNT_ORDER: Readonly<Record<TargetViewPhase, number>> = {
  Ready: 0,
  Progressing: 1,
  Failed: 2,
  Suspended: 3,
  Absent: 4,
  Unreadable: 5,
  Unobserved: 6,
};

/** The order of `TargetsSummary.holdingBack`: what needs a person first; a Ready target on another revision last. */
const HOLDING_BACK_ORDER: Readonly<Record<TargetViewPhase, number>> = {
  Failed: 0,
  Unreadable: 1,
  Absent: 2,
  Suspended: 3,
  Unobserved: 4,
  Progressing: 5,
  Ready: 6,
};

/**
 * Counts an environment's targets by phase and names those holding it back. A Ready target holds it back when it
 * does not run the revision the environment is measured against: the candidate (for the first environment with a
 * source, also the source's version as the decision matches it); without a candidate, the revision most of the
 * environment's Ready targets run, so that the odd ones out are named.
 */
export function summarizeTargets(view: PipelineView, env: EnvironmentView): TargetsSummary {
  const ready = new Map<string | undefined, number>();
  const others = new Map<TargetViewPhase, number>();
  for (const { observed } of env.targets) {
    const { phase } = phaseOf(observed);
    if (phase === 'Ready') {
      const revision = observed?.status.revision;
      ready.set(revision, (ready.get(revision) ?? 0) + 1);
    } else {
      others.set(phase, (others.get(phase) ?? 0) + 1);
    }
  }
  const readyCounts = [...ready]
    .map(([revision, count]): PhaseCount => ({ phase: 'Ready', revision, count }))
    .sort((a, b) => b.count - a.count || (a.revision ?? '').localeCompare(b.revision ?? ''));
  const otherCounts = [...others]
    .map(([phase, count]): PhaseCount => ({ phase, count }))
    .sort((a, b) => COUNT_ORDER[a.phase] - COUNT_ORDER[b.phase]);

  const onReference = referenceRevisionOf(view, env, readyCounts[0]?.revision);
  const holdingBack = env.targets
    .map((target, position) => ({ target, position, phase: phaseOf(target.observed).phase }))
    .filter(({ target, phase }) => phase !== 'Ready' || !onReference(target.observed?.status.revision))
    .sort((a, b) => HOLDING_BACK_ORDER[a.phase] - HOLDING_BACK_ORDER[b.phase] || a.position - b.position)
    .map(({ target }) => target);
  return { total: env.targets.length, counts: [...readyCounts, ...otherCounts], holdingBack };
}

/** Whether a Ready target's revision is the one `env` is measured against (see summarizeTargets). */
function referenceRevisionOf(
  view: PipelineView,
  env: EnvironmentView,
  mostRun: string | undefined,
): (revision: string | undefined) => boolean {
  const { candidate, source } = view.decision;
  const sourceRevision = env === view.environments[0] ? source?.revision : undefined;
  const reference = candidate ?? mostRun;
  return (revision) => {
    if (revision === undefined) return false;
    if (sourceRevision !== undefined && runsSourceRevision(revision, sourceRevision)) return true;
    return reference !== undefined && sameRevision(revision, reference);
  };
}

/** A target's phase and reason as shown, including a target never observed. */
export function phaseOf(observed: ObservedTargetStatus | undefined): {
  phase: TargetViewPhase;
  reason: TargetViewReason;
} {
  if (!observed) return { phase: 'Unobserved', reason: 'NeverObserved' };
  return { phase: observed.status.phase, reason: observed.status.reason };
}
