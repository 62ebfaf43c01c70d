// `check-app`: an event (or a re-check) about one app. The app is read from its cluster and recorded, a target
// still progressing is looked at again later, and every pipeline the app belongs to is decided on.
import { appKeyString, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { CheckAppMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';
import { observeApp, scheduleRecheck } from '../observe.js';

export async function checkApp(message: CheckAppMessage, deps: VerifierDeps): Promise<void> {
  const targets = await deps.store.findTargets(message.app);
  if (targets.length === 0) {
    deps.logger.debug('app is in no pipeline any more; nothing to check', { app: appKeyString(message.app) });
    return;
  }
  if (message.hint) deps.logger.debug('checking app', { app: appKeyString(message.app), hint: message.hint });
  const observation = await observeApp(message.app, deps);
  await scheduleRecheck(observation, message.attempt, deps);
  for (const pipeline of uniqueKeys(targets.map((target) => target.pipeline))) await evaluatePipeline(pipeline, deps);
  // Recorded and decided on first: no promotion can pass a target that could not be read.
  if (observation.retryableFailure) throw observation.retryableFailure;
}

function uniqueKeys(keys: readonly ObjectKey[]): ObjectKey[] {
  return [...new Map(keys.map((key) => [objectKeyString(key), key])).values()];
}
