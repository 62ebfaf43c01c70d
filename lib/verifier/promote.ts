// Carrying out one promotion under its record: create it (exactly one caller does), claim an attempt (exactly one
// worker holds it), run the strategy, and finish the record. A crash anywhere leaves a record that the decision
// resumes once its lease expires; the strategy's own idempotence makes that resumption safe.
import { objectKeyString, type Pipeline } from '../pipeline/model.js';
import { PromotionError } from '../promotion/port.js';
import { settingsOf, type VerifierDeps } from './deps.js';

export type PromotionRun = 'succeeded' | 'failed' | 'retry-scheduled' | 'not-claimed';

export async function runPromotion(
  pipeline: Pipeline,
  envName: string,
  revision: string,
  deps: VerifierDeps,
): Promise<PromotionRun> {
  const env = pipeline.environments.find((candidate) => candidate.name === envName);
  if (!env) return 'not-claimed';
  const key = { namespace: pipeline.namespace, name: pipeline.name };
  const settings = settingsOf(deps);
  await deps.store.createPromotion(key, envName, revision, deps.now());
  const claimed = await deps.store.claimPromotion(
    key,
    envName,
    revision,
    deps.workerId,
    settings.promotionLeaseMs,
    deps.now(),
  );
  if (!claimed) return 'not-claimed';

  const audit = (type: string, message: string) =>
    deps.store.appendAudit({
      at: deps.now().toISOString(),
      pipeline: key,
      type,
      env: envName,
      revision,
      message,
      actor: deps.workerId,
    });
  await audit('promotion-started', `promoting ${revision} to ${envName} (attempt ${claimed.attempts})`);
  const attributes = { pipeline: objectKeyString(key), env: envName, revision, attempt: claimed.attempts };
  try {
    const outcome = await deps.promoter.promote({ pipeline, env, revision, attempt: claimed.attempts });
    await deps.store.completePromotion(claimed, outcome.result, deps.now());
    await audit(
      'promotion-succeeded',
      outcome.result ? `promoted ${revision}: ${outcome.result}` : `promoted ${revision}`,
    );
    deps.logger.info('promotion succeeded', { ...attributes, result: outcome.result });
    return 'succeeded';
  } catch (error) {
    const message = error instanceof Error ? error.message : 'unknown error';
    // Anything that is not a PromotionError is unexpected, and unexpected faults are worth another try.
    const retryable = error instanceof PromotionError ? error.retryable : true;
    const delaySeconds = retryable ? settings.promotionRetryDelaysSeconds[claimed.attempts - 1] : undefined;
    const serviceDelayMs = error instanceof PromotionError ? (error.retryAfterMs ?? 0) : 0;
    const retryAt =
      delaySeconds === undefined
        ? undefined
        : new Date(deps.now().getTime() + Math.max(delaySeconds * 1000, serviceDelayMs));
    await deps.store.failPromotion(claimed, message, retryAt, deps.now());
    await audit(
      'promotion-failed',
      retryAt ? `${message}; retrying at ${retryAt.toISOString()}` : `${message}; not retried`,
    );
    deps.logger.warn('promotion failed', { ...attributes, error: message, retryAt: retryAt?.toISOString() });
    if (!retryAt) return 'failed';
    // SQS delays at most 15 minutes; a later retry is picked up by the poll instead. One second of slack, so the
    // message does not arrive just before `retryAt` and find nothing due.
    const wait = Math.ceil((retryAt.getTime() - deps.now().getTime()) / 1000) + 1;
    if (wait <= 900) {
      await deps.queue.send(
        { type: 'check-pipeline', pipeline: key, cause: 'retry' },
        { delaySeconds: Math.max(wait, 0) },
      );
    }
    return 'retry-scheduled';
  }
}
