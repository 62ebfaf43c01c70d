// `check-app`: an event (or a re-check) about one app. The app is read from its cluster and recorded, a target
// still progressing is looked at again later, and every pipeline the app belongs to is decided on when its status
// changed, or when the message is received again (an earlier receive may have recorded the change and failed before
// deciding). A redundant event (Flux repeats them, and an alert may fan out) changes nothing a decision depends on:
// what comes due with time (a retry, an expired lease, a soak's or a freeze's end) is decided by the delayed
// re-checks and the poll's check of every pipeline time can change, an approval by its own promote message. So it
// costs the reads that tell it changed nothing, and no decision (docs/architecture.md, "What each message does").
import { appKeyString, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { CheckAppMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';
import { appsOf } from '../../pipeline-state/pipeline-state.js';
import { observeApp, scheduleRecheck } from '../observe.js';
import type { RecentPipelines } from '../recent-pipelines.js';

export async function checkApp(
  message: CheckAppMessage,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
  redelivered = false,
): Promise<void> {
  const pipelines = await pipelinesListing(message, deps, recentPipelines);
  if (pipelines.length === 0) {
    deps.logger.debug('app is in no pipeline any more; nothing to check', { app: appKeyString(message.app) });
    return;
  }
  if (message.hint) deps.logger.debug('checking app', { app: appKeyString(message.app), hint: message.hint });
  const observation = await observeApp(message.app, deps);
  await scheduleRecheck(observation, message.attempt, deps);
  // Received again: an earlier receive may have recorded the change and failed before deciding.
  if (observation.changed || redelivered) {
    for (const pipeline of pipelines) await evaluatePipeline(pipeline, deps, 'status-changed');
  } else {
    deps.logger.debug('status unchanged; nothing to decide', { app: appKeyString(message.app) });
  }
  // Recorded and decided on first: no promotion can pass a target that could not be read.
  if (observation.retryableFailure) throw observation.retryableFailure;
}

/**
 * The pipelines whose stored definition lists the app: those the receiver found in the index (the message says),
 * else looked up. An index entry alone is not enough: an apply cut off part-way leaves entries for targets its
 * pipeline never got (until the next apply removes them), and no cluster is read for those. A definition a few
 * seconds old (RecentPipelines) is good enough for that: it only says whether to read the cluster, and every decision
 * reads the pipeline afresh.
 */
async function pipelinesListing(
  message: CheckAppMessage,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
): Promise<ObjectKey[]> {
  const { app } = message;
  const indexed = uniqueKeys(message.pipelines ?? (await deps.store.findTargets(app)).map((target) => target.pipeline));
  const listing: ObjectKey[] = [];
  for (const key of indexed) {
    const stored = await recentPipelines.get(key);
    if (stored && appsOf(stored.pipeline).some((candidate) => appKeyString(candidate) === appKeyString(app))) {
      listing.push(key);
    }
  }
  return listing;
}

function uniqueKeys(keys: readonly ObjectKey[]): ObjectKey[] {
  return [...new Map(keys.map((key) => [objectKeyString(key), key])).values()];
}
