// What `pipelinectl retry` does: a promotion that failed for good (a `failed` record without `retryAt`: bad
// credentials, no marker, an outage past the retry limit), or whose pull request was closed without merging, waits
// for a person. Once that person has fixed the cause, this makes the record due now, under the caller's identity,
// and hands the pipeline to the verifier, which claims the record and runs the strategy again as it would for any
// retry that came due (for a closed pull request: a new one is opened).
import { decide, promotionStage } from '../../decision/index.js';
import { promotionPullRequest } from '../../decision/promotion-pull-request.js';
import type { Promotion } from '../../pipeline/promotion.js';
import { sameRevision } from '../../flux/revision.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { rollbackRecordEnv, rolledBackEnv } from '../../decision/rollback-record.js';
import type { VersionedPromotionRecord } from '../../store/port.js';
import { decideWithReads } from '../../pipeline-state/decide-with-reads.js';
import { decisionInputOf, readPipelineState, type PipelineState } from '../../pipeline-state/pipeline-state.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

export interface RetryResult {
  revision: string;
  /** The attempt the verifier makes next. */
  attempt: number;
  by: string;
  /** When the retry was asked for (its audit entry's time). */
  at: string;
  /** False when no verifier took the check-pipeline message (local mode without `serve`). */
  delivered: boolean;
}

/** What `pipelinectl retry -o json` prints. */
export interface RetryJson {
  /** `NS/NAME`. */
  pipeline: string;
  env: string;
  revision: string;
  /** The attempt the verifier makes next. */
  attempt: number;
  retriedBy: string;
  retriedAt: string;
  /** Whether a verifier took the retry now; false in the local mode without `serve` (it retries at start). */
  delivered: boolean;
}

export function retryJson(key: ObjectKey, env: string, result: RetryResult): RetryJson {
  return {
    pipeline: objectKeyString(key),
    env,
    revision: result.revision,
    attempt: result.attempt,
    retriedBy: result.by,
    retriedAt: result.at,
    delivered: result.delivered,
  };
}

/**
 * Retries the promotion of `revision` (default: the environment's newest promotion record) to `env`. Throws a
 * CliError, writing nothing, when the pipeline or environment does not exist, when that promotion did not fail for
 * good and its pull request was not closed unmerged (naming what it did), or when the decision would not run it even once due (another candidate, an environment
 * that moved on): retrying then would do nothing, or promote a revision that is no longer wanted.
 */
export async function retryPromotion(
  backend: Backend,
  key: ObjectKey,
  env: string,
  revision: string | undefined,
  now = new Date(),
  options: { rollback?: boolean } = {},
): Promise<RetryResult> {
  const name = objectKeyString(key);
  const state = await readPipelineState(backend.store, key);
  if (!state) throw new CliError(`pipeline ${name} not found in ${backend.description}`);
  const environments = state.stored.pipeline.environments.map((e) => e.name);
  if (!environments.includes(env)) {
    throw new CliError(`pipeline ${name} has no environment "${env}" (it has ${environments.join(', ')})`);
  }

  // A rollback's record is (`rollback:{env}`, failed revision) (docs/rollback.md).
  const recordEnv = options.rollback ? rollbackRecordEnv(env) : env;
  const record = chosenRecord(state.promotions, recordEnv, revision, `${name} ${env}`, options.rollback === true);
  const what = options.rollback
    ? `the rollback of ${name} ${env} from ${record.revision}`
    : `the promotion of ${record.revision} to ${name} ${env}`;
  const promotion = state.stored.pipeline.environments.find((e) => e.name === env)?.promotion;
  const closedPull = options.rollback ? undefined : closedPullRequest(record, promotion);
  if (!closedPull) refuseUnlessFailedForGood(record, what, now);
  if (options.rollback) await refuseUnlessRollbackDue(backend, state, record, now, `${name} ${env}`);
  else refuseUnlessDecisionRetries(state, record, now, `${name} ${env}`);

  const by = await backend.identity();
  // failPromotion is the store's conditional end of an attempt: on a failed record it only sets retryAt, keeps the
  // error and its kind, and succeeds only if nobody touched the record since it was read (its version), so a
  // verifier that moved it meanwhile wins and nothing is overwritten. A failed record whose retryAt has come is what
  // the decision resumes and claimPromotion accepts. A succeeded one whose pull request was closed unmerged becomes
  // such a failure: the promotion is made again, and opens a new pull request (the closed one cannot be updated).
  const error = closedPull ? `the pull request was closed without merging: ${closedPull}` : (record.error ?? 'failed');
  if (!(await backend.store.failPromotion(record, error, now, now, closedPull ? undefined : record.failureKind))) {
    const current = await backend.store.getPromotion(key, recordEnv, record.revision);
    throw new CliError(`${what} changed while retrying it (it is now ${current?.state ?? 'gone'}): look again`);
  }
  const attempt = record.attempts + 1;
  await backend.store.appendAudit({
    at: now.toISOString(),
    pipeline: key,
    type: 'promotion-retry-requested',
    env,
    revision: record.revision,
    message: options.rollback
      ? `retry of the rollback of ${env} from ${record.revision} (attempt ${attempt}) requested with pipelinectl`
      : `retry of ${record.revision} to ${env} (attempt ${attempt}) requested with pipelinectl`,
    actor: by,
  });
  const delivered = await backend.enqueue({
    type: 'check-pipeline',
    pipeline: key,
    env,
    cause: 'retry',
    readTargets: false,
  });
  return { revision: record.revision, attempt, by, at: now.toISOString(), delivered };
}

/** Exactly `revision`'s record, or else the environment's newest one (as `status` orders them: last updated). */
function chosenRecord(
  promotions: readonly VersionedPromotionRecord[],
  recordEnv: string,
  revision: string | undefined,
  where: string,
  rollback: boolean,
): VersionedPromotionRecord {
  const what = rollback ? 'rollback' : 'promotion';
  const place = `${rollback ? 'in' : 'to'} ${where}`;
  const records = promotions.filter((r) => r.env === recordEnv);
  if (revision !== undefined) {
    const exact =
      records.find((r) => r.revision === revision) ?? records.find((r) => sameRevision(r.revision, revision));
    if (!exact) throw new CliError(`no ${what} of ${revision} ${place} was recorded: nothing to retry`);
    return exact;
  }
  const newest = records.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];
  if (!newest) throw new CliError(`no ${what} ${place} was recorded: nothing to retry`);
  return newest;
}

/** As refuseUnlessDecisionRetries, for a rollback: the decision (with what it reads) must roll back now. */
async function refuseUnlessRollbackDue(
  backend: Backend,
  state: PipelineState,
  record: VersionedPromotionRecord,
  now: Date,
  where: string,
): Promise<void> {
  const due = { ...record, retryAt: now.toISOString() };
  const promotions = state.promotions.map((r) => (r.env === record.env && r.revision === record.revision ? due : r));
  const decision = await decideWithReads(backend.store, { ...state, promotions }, now);
  const retried = decision.actions.some(
    (action) => action.type === 'rollback' && sameRevision(action.from, record.revision),
  );
  if (retried) return;
  const env = rolledBackEnv(record.env);
  const explanation = decision.environments.find((e) => e.env === env);
  throw new CliError(
    `the verifier would not retry the rollback from ${record.revision} in ${where} now: ` +
      `${explanation?.state ?? 'not-reached'}: ${explanation?.message ?? ''}`,
  );
}

/** The URL of the record's pull request when its host said it was closed without merging (promotionPullRequest). */
function closedPullRequest(record: VersionedPromotionRecord, promotion: Promotion | undefined): string | undefined {
  const pull = promotionPullRequest(record, promotion);
  return pull?.state === 'closed' ? pull.url : undefined;
}

/**
 * Only a promotion that failed for good (or whose pull request was closed unmerged: closedPullRequest) waits for a
 * person; any other stage is the verifier's to move on.
 */
function refuseUnlessFailedForGood(record: VersionedPromotionRecord, what: string, now: Date): void {
  switch (promotionStage(record, now)) {
    case 'succeeded':
      throw new CliError(`${what} succeeded (attempt ${record.attempts}): nothing to retry`);
    case 'pending':
    case 'leased':
    case 'lease-expired':
      throw new CliError(`${what} is in progress (attempt ${record.attempts}): nothing to retry`);
    case 'retry-due':
    case 'retry-scheduled':
      throw new CliError(`${what} is already scheduled for retry at ${record.retryAt}`);
    case 'failed-for-good':
      return;
  }
}

/**
 * The verifier acts only on the record of the current candidate in the environment the walk stops at, so the
 * decision is asked, with the record as it would be once due: if it would not promote this revision now, a retry
 * would do nothing, or (an older revision) promote what the pipeline no longer wants.
 */
function refuseUnlessDecisionRetries(
  state: PipelineState,
  record: VersionedPromotionRecord,
  now: Date,
  where: string,
): void {
  const due = { ...record, state: 'failed' as const, retryAt: now.toISOString() };
  const promotions = state.promotions.map((r) => (r.env === record.env && r.revision === record.revision ? due : r));
  const decision = decide(decisionInputOf({ ...state, promotions }, now));
  const retried = decision.actions.some(
    (action) =>
      action.type === 'promote' && action.env === record.env && sameRevision(action.revision, record.revision),
  );
  if (retried) return;
  const notNow = `the verifier would not retry ${record.revision} in ${where} now`;
  if (decision.candidate === undefined) {
    const source = decision.environments[0];
    throw new CliError(`${notNow}: ${source ? `${source.env} has no candidate (${source.message})` : 'no candidate'}`);
  }
  if (!sameRevision(decision.candidate, record.revision)) {
    throw new CliError(
      `${record.revision} is no longer the candidate for ${where} (${decision.candidate} is): ` +
        'the verifier would not promote it',
    );
  }
  const explanation = decision.environments.find((e) => e.env === record.env);
  throw new CliError(
    `${notNow}: ${record.env} (${explanation?.state ?? 'not-reached'}): ${explanation?.message ?? ''}`,
  );
}
