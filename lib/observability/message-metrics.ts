// The verifier's figures about its queue, taken around the verifier rather than inside it: the messages it handled
// (an event's `check-app` counts as that event verified), the ones that failed and come back later, how long a
// cluster poll took, and the bodies the consumer dead-lettered.
import type { DeadLetters, MessageHandler } from '../queue/index.js';
import type { MetricsSink } from './metrics-port.js';

/** The verifier's handler, counting what it did with each message. */
export function measuredMessages(handle: MessageHandler, metrics: MetricsSink): MessageHandler {
  return async (message, context) => {
    const started = performance.now();
    try {
      await handle(message, context);
    } catch (error) {
      metrics.record('MessagesFailed', 1);
      throw error;
    } finally {
      // A slow poll is most worth seeing when it failed (a cluster that answers too slowly), so it is measured both ways.
      if (message.type === 'poll') metrics.record('ClusterPollDuration', performance.now() - started);
    }
    // A re-check of the same app (`recheck`) is the verifier waiting for a target to settle, not another event.
    if (message.type === 'check-app' && message.cause === 'event') metrics.record('EventsVerified', 1);
  };
}

/** The consumer's dead letters, counted once each has been sent (a failed send is retried, not counted). */
export function countedDeadLetters(deadLetters: DeadLetters, metrics: MetricsSink): DeadLetters {
  return {
    async deadLetter(body, reason, source) {
      await deadLetters.deadLetter(body, reason, source);
      metrics.record('DeadLetters', 1);
    },
  };
}
