// `check-app`: an event (or a re-check) about one app. The app is read from its cluster and recorded, a target
// still progressing is looked at again later, and every pipeline the app belongs to is decided on.
import { appKeyString, objectKeyString, type AppKey, type ObjectKey } from '../../pipeline/model.js';
import type { CheckAppMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { appsOf, evaluatePipeline } from '../evaluate.js';
import { observeApp, scheduleRecheck } from '../observe.js';

export async function checkApp(message: CheckAppMessage, deps: VerifierDeps): Promise<void> {
  const pipelines = await pipelinesListing(message.app, deps);
  if (pipelines.length === 0) {
    deps.logger.debug('app is in no pipeline any more; nothing to check', { app: appKeyString(message.app) });
    return;
  }
  if (message.hint) deps.logger.debug('checking app', { app: appKeyString(message.app), hint: message.hint });
  const observation = await observeApp(message.app, deps);
  await scheduleRecheck(observation, message.attempt, deps);
  const cause = observation.changed ? 'status-changed' : 'nothing-changed';
  for (const pipeline of pipelines) await evaluatePipeline(pipeline, deps, cause);
  // Recorded and decided on first: no promotion can pass a target that could not be read.
  if (observation.retryableFailure) throw observation.retryableFailure;
}

/**
 * The pipelines whose stored definition lists the app. An index entry alone is not enough: an apply cut off
 * part-way leaves entries for targets its pipeline never got (until the next apply removes them), and no cluster is
 * read for those.
 */
async function pipelinesListing(app: AppKey, deps: VerifierDeps): Promise<ObjectKey[]> {
  const indexed = uniqueKeys((await deps.store.findTargets(app)).map((target) => target.pipeline));
  const listing: ObjectKey[] = [];
  for (const key of indexed) {
    const stored = await deps.store.getPipeline(key);
    if (stored && appsOf(stored.pipeline).some((candidate) => appKeyString(candidate) === appKeyString(app))) {
      listing.push(key);
    }
  }
  return listing;
}

function uniqueKeys(keys: readonly ObjectKey[]): ObjectKey[] {
  return [...new Map(keys.map((key) => [objectKeyString(key), key])).values()];
}
