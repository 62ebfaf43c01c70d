// The audit entry of an effect the verifier made: written after the effect's own conditional write succeeded, so a
// redundant message, which changes nothing, leaves no entry (docs/architecture.md, "Retries"); then the listeners
// (notifications, metrics) are told of it, under the same rule.
import { redact } from '../logging/redaction.js';
import { pipelineKeyOf, type Pipeline } from '../pipeline/model.js';
import type { PromotionFailureKind } from '../promotion/failure-kind.js';
import type { AuditEntry } from '../store/port.js';
import type { VerifierDeps } from './deps.js';
import { tellListeners, type VerifierEffect } from './effect-listener.js';

export interface Effect {
  type: AuditEntry['type'];
  env: string;
  revision: string;
  /** One line for a person. */
  message: string;
  /** A failed effect: why, as its audit entry keeps it. */
  failureKind?: PromotionFailureKind;
}

/** What listeners learn beyond the audit entry. */
export type EffectDetail = Pick<VerifierEffect, 'result' | 'retryAt' | 'error'>;

/**
 * Appends the entry under this worker's id, at the current time, and tells the listeners. The message and error are
 * redacted first: a failed effect's text repeats what a Git host or a cluster answered.
 */
export async function auditEffect(
  deps: Pick<VerifierDeps, 'store' | 'now' | 'workerId' | 'listeners' | 'logger'>,
  pipeline: Pipeline,
  effect: Effect,
  detail: EffectDetail = {},
): Promise<void> {
  const entry: AuditEntry = {
    at: deps.now().toISOString(),
    pipeline: pipelineKeyOf(pipeline),
    ...effect,
    message: redact(effect.message),
    actor: deps.workerId,
  };
  await deps.store.appendAudit(entry);
  const error = detail.error === undefined ? {} : { error: redact(detail.error) };
  await tellListeners(deps, { entry, pipeline, ...detail, ...error });
}
