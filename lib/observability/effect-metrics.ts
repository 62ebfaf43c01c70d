// The verifier's figures about what it did, heard as an EffectListener (lib/verifier/effect-listener.ts): each effect
// is told once, after its conditional write succeeded, so a redundant message counts nothing.
import type { AuditLog } from '../store/port.js';
import type { EffectListener } from '../verifier/effect-listener.js';
import { leadTimeOfArrival } from './lead-time-of-arrival.js';
import type { MetricsSink } from './metrics-port.js';

export interface EffectMetricsDeps {
  metrics: MetricsSink;
  /** Read back only when a revision arrives in a pipeline's last environment, for its lead time. */
  audit: Pick<AuditLog, 'listAudit'>;
}

export function effectMetrics(deps: EffectMetricsDeps): EffectListener {
  const { metrics } = deps;
  return async ({ entry, pipeline, retryAt }) => {
    switch (entry.type) {
      case 'promotion-started':
        metrics.record('PromotionsStarted', 1);
        return;
      case 'promotion-succeeded':
        metrics.record('PromotionsSucceeded', 1);
        return;
      case 'promotion-failed':
        metrics.record(retryAt === undefined ? 'PromotionsFailedForGood' : 'PromotionsFailedRetrying', 1, {
          Reason: entry.failureKind ?? 'Unknown',
        });
        return;
      case 'approval-requested':
        metrics.record('ApprovalsRequested', 1);
        return;
      case 'environment-passed': {
        const leadTimeMs = await leadTimeOfArrival(deps.audit, pipeline, entry);
        if (leadTimeMs !== undefined) metrics.record('LeadTime', leadTimeMs);
        return;
      }
      default:
        return;
    }
  };
}
