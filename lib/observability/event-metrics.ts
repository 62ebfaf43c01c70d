// The receiver's figures: every request to the events route counts as received, and then as enqueued, ignored,
// rejected (by its named reason) or failed, so the five add up and a Flux provider with a wrong key shows as
// `EventsRejected` with `Reason` = `bad-signature`.
import type { EventOutcome } from '../http/event-outcome.js';
import type { MetricsSink } from './metrics-port.js';

/** `ReceiverDeps.onEvent` for the receiver Lambda. */
export function eventMetrics(metrics: MetricsSink): (outcome: EventOutcome) => void {
  return (outcome) => {
    metrics.record('EventsReceived', 1);
    switch (outcome) {
      case 'enqueued':
        metrics.record('EventsEnqueued', 1);
        return;
      case 'not-watched':
      case 'not-indexed':
        metrics.record('EventsIgnored', 1);
        return;
      case 'failed':
        metrics.record('EventsFailed', 1);
        return;
      default:
        metrics.record('EventsRejected', 1, { Reason: outcome });
    }
  };
}
