// The `serve-current` action (docs/external-service.md): an `external-service` environment serves nothing yet, and
// every target of it runs one revision, healthy: serve that one until the first promotion, so that an input provider
// set up on a running environment keeps it where it is. Written only where nothing is served, so it never replaces
// a promotion that landed meanwhile.
import type { Action } from '../../decision/index.js';
import { objectKeyString, pipelineKeyOf, type Pipeline } from '../../pipeline/model.js';
import type { VerifierDeps } from '../deps.js';

export type ServeCurrentAction = Extract<Action, { type: 'serve-current' }>;

export async function serveCurrent(pipeline: Pipeline, action: ServeCurrentAction, deps: VerifierDeps): Promise<void> {
  const key = pipelineKeyOf(pipeline);
  const input = { env: action.env, version: action.revision, servedSince: deps.now().toISOString() };
  if (!(await deps.store.seedServedInput(key, input))) return;
  deps.logger.info('serving the revision the environment runs', {
    pipeline: objectKeyString(key),
    env: action.env,
    revision: action.revision,
  });
}
