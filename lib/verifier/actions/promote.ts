// The `promote` action: carrying out one promotion under its record. Create it (exactly one caller does), claim an
// attempt (exactly one worker holds it), run the strategy, and finish the record. A crash anywhere leaves a record
// that the decision resumes once its lease expires; the strategy's own idempotence makes that resumption safe.
import type { Action } from '../../decision/index.js';
import { objectKeyString, type Pipeline, pipelineKeyOf } from '../../pipeline/model.js';
import { PromotionError } from '../../promotion/port.js';
import type { VersionedPromotionRecord } from '../../store/port.js';
import { settingsOf, type VerifierDeps } from '../deps.js';
import { auditEffect, type EffectDetail } from '../effect-audit.js';
import { promotionRetry } from '../promotion-retry.js';

export type PromoteAction = Extract<Action, { type: 'promote' }>;

export type PromotionRun =
  /** The strategy made the effect and the record says so. */
  | 'succeeded'
  /** The attempt failed and is not retried: a person must act. */
  | 'failed'
  /** The attempt failed and the record is due again later. */
  | 'retry-scheduled'
  /** Another worker holds the attempt, or it is not due: nothing was done. */
  | 'not-claimed';

export async function promote(pipeline: Pipeline, action: PromoteAction, deps: VerifierDeps): Promise<PromotionRun> {
  const env = pipeline.environments.find((candidate) => candidate.name === action.env);
  if (!env) return 'not-claimed';
  const { revision } = action;
  const key = pipelineKeyOf(pipeline);
  const settings = settingsOf(deps);
  await deps.store.createPromotion(key, env.name, revision, deps.now());
  const claimed = await deps.store.claimPromotion(
    key,
    env.name,
    revision,
    deps.workerId,
    settings.promotionLeaseMs,
    deps.now(),
  );
  if (!claimed) return 'not-claimed';

  const audit = (type: 'promotion-started' | 'promotion-succeeded', message: string, detail: EffectDetail = {}) =>
    auditEffect(deps, pipeline, { type, env: env.name, revision, message }, detail);
  await audit('promotion-started', `promoting ${revision} to ${env.name} (attempt ${claimed.attempts})`);
  const attributes = { pipeline: objectKeyString(key), env: env.name, revision, attempt: claimed.attempts };
  try {
    const outcome = await deps.promoter.promote({ pipeline, env, revision, attempt: claimed.attempts });
    await deps.store.completePromotion(claimed, outcome.result, deps.now());
    await audit(
      'promotion-succeeded',
      outcome.result ? `promoted ${revision}: ${outcome.result}` : `promoted ${revision}`,
      outcome.result === undefined ? {} : { result: outcome.result },
    );
    deps.logger.info('promotion succeeded', { ...attributes, result: outcome.result });
    return 'succeeded';
  } catch (error) {
    return failed(pipeline, claimed, error, deps, attributes);
  }
}

/** Ends the attempt as failed, due again when the retry schedule says, and sends the message that retries it. */
async function failed(
  pipeline: Pipeline,
  claimed: VersionedPromotionRecord,
  error: unknown,
  deps: VerifierDeps,
  attributes: Record<string, unknown>,
): Promise<PromotionRun> {
  const message = error instanceof Error ? error.message : 'unknown error';
  const now = deps.now();
  const retry = promotionRetry({
    attempt: claimed.attempts,
    // Anything that is not a PromotionError is unexpected, and unexpected faults are worth another try.
    retryable: error instanceof PromotionError ? error.retryable : true,
    ...(error instanceof PromotionError && error.retryAfterMs !== undefined
      ? { serviceDelayMs: error.retryAfterMs }
      : {}),
    delaysSeconds: settingsOf(deps).promotionRetryDelaysSeconds,
    now,
  });
  await deps.store.failPromotion(claimed, message, retry?.retryAt, now);
  await auditEffect(
    deps,
    pipeline,
    {
      type: 'promotion-failed',
      env: claimed.env,
      revision: claimed.revision,
      message: retry ? `${message}; retrying at ${retry.retryAt.toISOString()}` : `${message}; not retried`,
    },
    { error: message, ...(retry ? { retryAt: retry.retryAt.toISOString() } : {}) },
  );
  deps.logger.warn('promotion failed', { ...attributes, error: message, retryAt: retry?.retryAt.toISOString() });
  if (!retry) return 'failed';
  // Beyond the queue's delay limit, the poller's check of the pipeline picks the retry up once it is due.
  if (retry.messageDelaySeconds !== undefined) {
    await deps.queue.send(
      { type: 'check-pipeline', pipeline: claimed.pipeline, cause: 'retry', readTargets: false },
      { delaySeconds: retry.messageDelaySeconds },
    );
  }
  return 'retry-scheduled';
}
