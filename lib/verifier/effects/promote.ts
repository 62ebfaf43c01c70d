// The `promote` action: carrying out one promotion under its record. Create it (exactly one caller does, and takes
// the first attempt in the same write), else claim an attempt (exactly one worker holds it), run the strategy, and
// finish the record. A crash anywhere leaves a record that the decision resumes once its lease expires; the
// strategy's own idempotence makes that resumption safe.
//
// `underRecord` is that flow for any effect of the Promoter port: the `rollback` action (rollback.ts) runs through
// it too, under a record of its own, with its own audit entries.
import type { Action } from '../../decision/index.js';
import { redact } from '../../logging/redaction.js';
import { objectKeyString, type Pipeline, pipelineKeyOf } from '../../pipeline/model.js';
import { isRetried } from '../../promotion/failure-kind.js';
import { isHttpUrl } from '../../util/http-url.js';
import { failureKindOf, PromotionError, type PromotionRequest } from '../../promotion/port.js';
import type { AuditEntryType, VersionedPromotionRecord } from '../../store/port.js';
import { settingsOf, type VerifierDeps } from '../deps.js';
import { auditEffect, type EffectDetail } from '../effect-audit.js';
import { promotionRetry } from '../promotion-retry.js';
import { groupPromotionOf, wakeTheTrain } from '../group-members.js';
import { promotionGroupOf } from '../../pipeline/promotion.js';

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
  const { revision, evidence } = action;
  // A release train's pull request shows each member's evidence; the other members' promotions read it from here.
  if (evidence && promotionGroupOf(env.promotion)) {
    await deps.store.recordPromotionEvidence(pipelineKeyOf(pipeline), env.name, revision, evidence);
  }
  const run = await underRecord(
    pipeline,
    {
      kind: 'promotion',
      record: { env: env.name, revision },
      audit: {
        env: env.name,
        revision,
        started: 'promotion-started',
        succeeded: 'promotion-succeeded',
        failed: 'promotion-failed',
      },
      startedMessage: (attempt) => `promoting ${revision} to ${env.name} (attempt ${attempt})`,
      // A pull request opened is not a promotion done (the decision says when it is merged): the history says so.
      succeededMessage: (result) => {
        if (result === undefined) return `promoted ${revision}`;
        return isHttpUrl(result)
          ? `opened the pull request for ${revision}: ${result}`
          : `promoted ${revision}: ${result}`;
      },
      request: (attempt) => {
        const group = groupPromotionOf(env, deps.store, deps.now);
        return { pipeline, env, revision, attempt, ...(evidence ? { evidence } : {}), ...(group ? { group } : {}) };
      },
      logAttributes: { env: env.name, revision },
    },
    deps,
  );
  if (run === 'succeeded') await wakeTheTrain(pipeline, env, deps);
  return run;
}

/** An effect of the Promoter port made at most once under one promotion record: what differs between kinds. */
export interface RecordedEffect {
  /** Names it in log lines: `promotion succeeded`, `rollback failed`. */
  kind: 'promotion' | 'rollback';
  /** The record's key within the pipeline. */
  record: { env: string; revision: string };
  /** What its audit entries name, and their types. */
  audit: {
    env: string;
    revision: string;
    started: AuditEntryType;
    succeeded: AuditEntryType;
    failed: AuditEntryType;
  };
  startedMessage(attempt: number): string;
  succeededMessage(result: string | undefined): string;
  /** The Promoter's request for the claimed attempt. */
  request(attempt: number): PromotionRequest;
  logAttributes: Record<string, unknown>;
}

/** Creates the effect's record, claims an attempt, runs the Promoter and ends the attempt. */
export async function underRecord(
  pipeline: Pipeline,
  effect: RecordedEffect,
  deps: VerifierDeps,
): Promise<PromotionRun> {
  const key = pipelineKeyOf(pipeline);
  const settings = settingsOf(deps);
  const { env, revision } = effect.record;
  const claim = { owner: deps.workerId, leaseMs: settings.promotionLeaseMs };
  // A new record is created already claimed (one write); an existing one (a retry, a resumed attempt, another
  // worker first) is claimed under the claim's own rules, which decide whether this worker may take it.
  const creation = await deps.store.createPromotion(key, env, revision, deps.now(), claim);
  const claimed = creation.created
    ? creation.record
    : await deps.store.claimPromotion(key, env, revision, claim.owner, claim.leaseMs, deps.now());
  if (!claimed) return 'not-claimed';

  const audit = (type: AuditEntryType, message: string, detail: EffectDetail = {}) =>
    auditEffect(deps, pipeline, { type, env: effect.audit.env, revision: effect.audit.revision, message }, detail);
  await audit(effect.audit.started, effect.startedMessage(claimed.attempts));
  const attributes = { pipeline: objectKeyString(key), ...effect.logAttributes, attempt: claimed.attempts };
  try {
    const outcome = await deps.promoter.promote(effect.request(claimed.attempts));
    await deps.store.completePromotion(claimed, outcome.result, deps.now());
    await audit(
      effect.audit.succeeded,
      effect.succeededMessage(outcome.result),
      outcome.result === undefined ? {} : { result: outcome.result },
    );
    deps.logger.info(`${effect.kind} succeeded`, { ...attributes, result: outcome.result });
    return 'succeeded';
  } catch (error) {
    return failed(pipeline, effect, claimed, error, deps, attributes);
  }
}

/** Ends the attempt as failed, due again when the retry schedule says, and sends the message that retries it. */
async function failed(
  pipeline: Pipeline,
  effect: RecordedEffect,
  claimed: VersionedPromotionRecord,
  error: unknown,
  deps: VerifierDeps,
  attributes: Record<string, unknown>,
): Promise<PromotionRun> {
  // Stored, audited, logged and sent: any error's text, not only a PromotionError's, may repeat a credential.
  const message = redact(error instanceof Error ? error.message : 'unknown error');
  const now = deps.now();
  const failureKind = failureKindOf(error);
  const retry = promotionRetry({
    attempt: claimed.attempts,
    retryable: isRetried(failureKind),
    ...(error instanceof PromotionError && error.retryAfterMs !== undefined
      ? { serviceDelayMs: error.retryAfterMs }
      : {}),
    delaysSeconds: settingsOf(deps).promotionRetryDelaysSeconds,
    now,
  });
  await deps.store.failPromotion(claimed, message, retry?.retryAt, now, failureKind);
  await auditEffect(
    deps,
    pipeline,
    {
      type: effect.audit.failed,
      env: effect.audit.env,
      revision: effect.audit.revision,
      message: retry ? `${message}; retrying at ${retry.retryAt.toISOString()}` : `${message}; not retried`,
      failureKind,
    },
    { error: message, ...(retry ? { retryAt: retry.retryAt.toISOString() } : {}) },
  );
  deps.logger.warn(`${effect.kind} failed`, {
    ...attributes,
    error: message,
    failureKind,
    retryAt: retry?.retryAt.toISOString(),
  });
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
