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

/**
 * The actor of the entries the verifier appends: the controller, not the worker (a Lambda request id, a local
 * process) that happened to handle the message, which names nobody a reader of the history knows.
 */
export const VERIFIER_ACTOR = 'pipeline-controller';

/** What listeners learn beyond the audit entry. */
export type EffectDetail = Pick<VerifierEffect, 'result' | 'retryAt' | 'error'>;

/**
 * Appends the entry as the controller's, at the current time, and tells the listeners. The message and error are
 * redacted first: a failed effect's text repeats what a Git host or a cluster answered.
 */
export async function auditEffect(
  deps: Pick<VerifierDeps, 'store' | 'now' | 'listeners' | 'logger'>,
  pipeline: Pipeline,
  effect: Effect,
  detail: EffectDetail = {},
): Promise<void> {
  const entry: AuditEntry = {
    at: deps.now().toISOString(),
    pipeline: pipelineKeyOf(pipeline),
    ...effect,
    message: redact(effect.message),
    actor: VERIFIER_ACTOR,
  };
  await deps.store.appendAudit(entry);
  const error = detail.error === undefined ? {} : { error: redact(detail.error) };
  await tellListeners(deps, { entry, pipeline, ...detail, ...error });
}
