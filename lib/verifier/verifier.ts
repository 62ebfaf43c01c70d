// The verifier: what each queue message means, one handler per message type (handlers/), each effect of a decision
// one module (effects/). It is the same code in the Lambda (SQS) and in the local mode (embedded queue); both hand
// it messages through `consumeBatch`.
//
// Retries (docs/architecture.md, "Retries"): a read that failed in a way that may pass (unreachable, timeout, 5xx)
// is recorded on the target and the message is then failed, so the queue delivers it again with a growing delay
// (lib/queue/redelivery.ts) and, after its maximum receive count, dead-letters it. A fault a person must fix (401,
// 403, no such object, bad kubeconfig) is recorded and the message succeeds: the scheduled poll looks again, no
// retry loop hammers the cluster.
import type { MessageHandler } from '../queue/consumer.js';
import { settingsOf, type VerifierDeps } from './deps.js';
import { checkApp } from './handlers/check-app.js';
import { checkPipeline } from './handlers/check-pipeline.js';
import { poll } from './handlers/poll.js';
import { pollClusters } from './handlers/poll-clusters.js';
import { promoteApproved } from './handlers/promote.js';
import { syncSource } from './handlers/sync-config-source.js';
import { DeferredDecisions } from './deferred-decisions.js';
import { RecentPipelines } from './recent-pipelines.js';

export function createVerifier(deps: VerifierDeps): MessageHandler {
  const recentPipelines =
    deps.recentPipelines ?? new RecentPipelines(deps.store, settingsOf(deps).pollPipelineMaxAgeMs, deps.now);
  const settings = settingsOf(deps);
  const deferredDecisions =
    deps.deferredDecisions ?? new DeferredDecisions(deps.queue, settings.pollDecisionDelaySeconds, deps.now);
  return async (message, context) => {
    // A message received again may have recorded its change and then failed before the decision was made: the
    // recording handlers decide again then, changed or not (nothing else would: the poll's check of every pipeline
    // leaves one alone that time cannot change).
    const redelivered = context.receiveCount > 1;
    switch (message.type) {
      case 'check-app':
        return checkApp(message, deps, recentPipelines, redelivered);
      case 'check-pipeline':
        return checkPipeline(message, deps, recentPipelines, deferredDecisions);
      case 'poll':
        await poll(message, deps, recentPipelines, deferredDecisions, redelivered);
        return;
      case 'poll-clusters':
        await pollClusters(message, deps, recentPipelines, deferredDecisions, redelivered);
        return;
      case 'promote':
        return promoteApproved(message, deps);
      case 'sync-config-source':
        return syncSource(message, deps);
    }
  };
}
