// When a rollback pull request is due (docs/rollback.md): an environment with `rollback: pull-request` whose targets
// fail on a revision promoted into it, for longer than its grace period, is set back to the last revision that was
// healthy there. The rollback has its own promotion record, (`rollbackRecordEnv(env)`, failed revision), so it is
// made once per (environment, failed revision) and retried like a promotion; merging it is left to a person.
import { sameRevision } from '../flux/revision.js';
import type { PipelineEnvironment } from '../pipeline/model.js';
import { rollbackRecordEnv } from './rollback-record.js';
import { durationMs } from '../util/duration.js';
import { promotionStage } from './promotion-lifecycle.js';
import { isoSeconds } from './soak.js';
import { withDetail } from './text.js';
import type {
  Action,
  EnvironmentReason,
  EnvironmentState,
  ObservedTarget,
  PromotionRecord,
  VerificationRecord,
} from './types.js';

export interface RollbackInput {
  env: PipelineEnvironment;
  targets: readonly ObservedTarget[];
  /** This pipeline's promotion records, rollbacks' included. */
  promotions: readonly PromotionRecord[];
  /** Revisions the environment passed on, newest first (undefined: not read). */
  passed: readonly string[] | undefined;
  /** What the environment's verification checks found, for the revision last verified there (docs/verification.md). */
  verification?: VerificationRecord;
  now: Date;
}

export type RollbackStep =
  | { due: false }
  /** A rollback may be due, but the revisions the environment passed on were not read: read them and decide again. */
  | { due: 'needs-history' }
  | {
      due: true;
      state: EnvironmentState;
      reason: EnvironmentReason;
      message: string;
      actions: Action[];
      /** ISO 8601, for `RollbackGracePeriod`. */
      rollbackAt?: string;
    };

/**
 * The environment's rollback step: none unless it has a rollback policy and every target was read, all of them run
 * one revision that was promoted here (a succeeded promotion record: what someone else deployed is theirs to roll
 * back), and on it some target is Failed or the environment's verification failed.
 */
export function rollbackStep(input: RollbackInput): RollbackStep {
  const { env, now } = input;
  if (!env.rollback) return { due: false };
  const failing = failingRevision(input);
  if (!failing) return { due: false };
  const { revision: from, since } = failing;
  const recordEnv = rollbackRecordEnv(env.name);
  const record = input.promotions.find((r) => r.env === recordEnv && sameRevision(r.revision, from));
  const failed = failing.verification
    ? `verification failed on ${from}, promoted here`
    : `targets fail on ${from}, promoted here`;
  let doing = `${failed} for ${env.rollback.after}: rolling back`;
  if (record) {
    const recorded = recordedRollback(record, from, now);
    if (recorded) return recorded;
    // Claimable again (created but not started, its worker vanished, or its retry is due): carried out anew.
    doing = `${failed}: ${record.state === 'failed' ? 'retrying' : 'resuming'} the rollback (attempt ${record.attempts})`;
  } else {
    // Unreadable grace: the longest we allow, so a bad value never rolls back early.
    const dueAt = since + (durationMs(env.rollback.after) ?? 24 * 3_600_000);
    if (now.getTime() < dueAt) {
      const rollbackAt = isoSeconds(dueAt);
      const message = `${failed}; rolling back at ${rollbackAt} unless they recover`;
      return step('in-progress', 'RollbackGracePeriod', message, [], rollbackAt);
    }
  }
  if (input.passed === undefined) return { due: 'needs-history' };
  const to = input.passed.find((revision) => !sameRevision(revision, from));
  if (to === undefined) {
    const message = `${failed}; no earlier revision was healthy here: a person must act`;
    return step('in-progress', 'NothingToRollBackTo', message, []);
  }
  const action: Action = { type: 'rollback', env: env.name, revision: to, from };
  return step('rolling-back', 'RollbackDue', `${doing} to ${to}`, [action]);
}

/**
 * The failed revision and since when (ms) the environment has failed on it: every target is on it (healthy on it,
 * or failed on it: helm-controller may have rolled a target back to what ran before, `failedRevision`) and at least
 * one failed, since the first one did; or every target is healthy on it and its verification failed, since then.
 */
function failingRevision(input: RollbackInput): { revision: string; since: number; verification?: true } | undefined {
  const { targets, promotions, env, now } = input;
  if (targets.length === 0) return undefined;
  const onRevisions: string[] = [];
  for (const { status } of targets) {
    if (!status || status.phase === 'Absent' || status.phase === 'Unreadable') return undefined;
    const on = status.phase === 'Failed' ? (status.failedRevision ?? status.revision) : status.revision;
    if (on === undefined) return undefined;
    onRevisions.push(on);
  }
  const [revision] = onRevisions;
  if (revision === undefined || onRevisions.some((on) => !sameRevision(on, revision))) return undefined;
  const promoted = promotions.some(
    (r) => r.env === env.name && r.state === 'succeeded' && sameRevision(r.revision, revision),
  );
  if (!promoted) return undefined;
  const failed = targets.filter((t) => t.status?.phase === 'Failed');
  if (failed.length === 0) {
    const { verification } = input;
    if (verification?.outcome !== 'failed' || !sameRevision(verification.revision, revision)) return undefined;
    const decidedAt = verification.decidedAt === undefined ? Number.NaN : Date.parse(verification.decidedAt);
    return { revision, since: Number.isNaN(decidedAt) ? now.getTime() : decidedAt, verification: true };
  }
  // A time we cannot read counts as now: the grace period starts over rather than ending early.
  const times = failed.map((t) => (t.since === undefined ? Number.NaN : Date.parse(t.since)));
  const since = Math.min(...times.map((time) => (Number.isNaN(time) ? now.getTime() : time)));
  return { revision, since };
}

/** The step a rollback record settles by itself; undefined when an attempt may start now. */
function recordedRollback(record: PromotionRecord, from: string, now: Date): RollbackStep | undefined {
  const attempt = `attempt ${record.attempts}`;
  const failure = withDetail(`rollback of ${from} failed (${attempt})`, record.error);
  switch (promotionStage(record, now)) {
    case 'succeeded':
      return step('rolling-back', 'RollbackOpened', withDetail(`rollback of ${from} opened`, record.result), []);
    case 'leased':
      return step('rolling-back', 'RollbackInProgress', `rollback of ${from} in progress (${attempt})`, []);
    case 'retry-scheduled':
      return step('rolling-back', 'RollbackRetryScheduled', `${failure}; retrying at ${record.retryAt}`, []);
    case 'failed-for-good':
      return step('rolling-back', 'RollbackFailedForGood', `${failure}; not retried, a person must act`, []);
    case 'pending':
    case 'lease-expired':
    case 'retry-due':
      return undefined;
  }
}

function step(
  state: EnvironmentState,
  reason: EnvironmentReason,
  message: string,
  actions: Action[],
  rollbackAt?: string,
): RollbackStep {
  return { due: true, state, reason, message, actions, ...(rollbackAt === undefined ? {} : { rollbackAt }) };
}
