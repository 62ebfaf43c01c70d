// Telling the rest of the installation what the verifier did: notifications to people (lib/notify) and the
// CloudWatch metrics (lib/observability) listen here rather than each reaching into the effect modules (effects/). A
// listener hears an effect once it is certain (its conditional write succeeded and its audit entry was appended), so
// a redundant message tells nobody anything; and a listener's failure is only logged, because a Slack outage must
// never fail or block a promotion.
import type { Pipeline } from '../pipeline/model.js';
import type { AuditEntry } from '../store/port.js';
import type { Logger } from '../logging/logger.js';

/** What the verifier just did, after its conditional write succeeded and its audit entry was appended. */
export interface VerifierEffect {
  /**
   * The entry appended to the audit trail (types: approval-requested, approval-cleared, promotion-started,
   * promotion-succeeded, promotion-failed, environment-passed, environment-regressed, verification-passed,
   * verification-failed).
   */
  entry: AuditEntry;
  /** The pipeline's definition as the verifier decided on it. */
  pipeline: Pipeline;
  /** promotion-succeeded: the strategy's result (e.g. the pull request URL), when it gave one. */
  result?: string;
  /** promotion-failed: when it is tried again; absent when it is not retried (failed for good, a person must act). */
  retryAt?: string;
  /** promotion-failed: the error message (never contains a secret). */
  error?: string;
}

/** Told of every effect; a listener that throws is logged at warn and never fails the verifier. */
export type EffectListener = (effect: VerifierEffect) => Promise<void>;

/** Tells every listener, concurrently; resolves once all have finished, whatever they did. */
export async function tellListeners(
  deps: { listeners?: readonly EffectListener[] | undefined; logger: Logger },
  effect: VerifierEffect,
): Promise<void> {
  const listeners = deps.listeners ?? [];
  if (listeners.length === 0) return;
  const outcomes = await Promise.allSettled(listeners.map((listener) => listener(effect)));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      deps.logger.warn('an effect listener failed; the effect stands', {
        type: effect.entry.type,
        pipeline: effect.entry.pipeline.name,
        error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason),
      });
    }
  }
}
