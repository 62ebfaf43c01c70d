// What an `external-service` environment serves before its first promotion (docs/external-service.md): the revision
// its targets run, every one of them healthy. Flux Operator applies whatever the input says, so a provider that
// started empty, or on anything else, would move a running environment; serving what already runs moves nothing.
import { strategyOf } from '../pipeline/promotion.js';
import { isPromotedInto, type Pipeline, type PipelineEnvironment } from '../pipeline/model.js';
import type { Action, ServedInput } from './types.js';

/**
 * The `serve-current` actions due: one per `external-service` environment that serves nothing yet, is not being
 * promoted now, and whose targets all run one revision, healthy. Nothing when the served inputs were not read.
 */
export function servedCurrentActions(
  pipeline: Pipeline,
  served: readonly ServedInput[] | undefined,
  promoted: (env: string) => boolean,
  /** The revision every target of `env` runs healthily (the decision's own candidate rule), if there is one. */
  runningOf: (env: PipelineEnvironment) => string | undefined,
): Action[] {
  if (served === undefined) return [];
  return pipeline.environments.flatMap((env): Action[] => {
    if (!servesInputs(pipeline, env)) return [];
    if (served.some((input) => input.env === env.name) || promoted(env.name)) return [];
    const revision = runningOf(env);
    return revision === undefined ? [] : [{ type: 'serve-current', env: env.name, revision }];
  });
}

/** Whether the environment is promoted into by `external-service`, and so serves an input. */
export function servesInputs(pipeline: Pipeline, env: PipelineEnvironment): boolean {
  return (
    env.promotion !== undefined &&
    strategyOf(env.promotion) === 'external-service' &&
    isPromotedInto(pipeline, env.name)
  );
}
