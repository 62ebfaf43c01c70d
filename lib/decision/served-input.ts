// What an `external-service` environment serves before its first promotion (docs/external-service.md): the revision
// its targets run, every one of them healthy. Flux Operator applies whatever the input says, so a provider that
// started empty, or on anything else, would move a running environment; serving what already runs moves nothing.
import { strategyOf } from '../pipeline/promotion.js';
import type { PipelineEnvironment } from '../pipeline/model.js';
import type { Action, ObservedTarget, ServedInput } from './types.js';

/**
 * The `serve-current` actions due: one per `external-service` environment that serves nothing yet, is not being
 * promoted now, and whose targets all run one revision, healthy. Nothing when the served inputs were not read.
 */
export function servedCurrentActions(
  environments: readonly PipelineEnvironment[],
  served: readonly ServedInput[] | undefined,
  promoted: (env: string) => boolean,
  targetsOf: (env: PipelineEnvironment) => readonly ObservedTarget[],
): Action[] {
  if (served === undefined) return [];
  return environments.flatMap((env): Action[] => {
    if (!env.promotion || strategyOf(env.promotion) !== 'external-service') return [];
    if (served.some((input) => input.env === env.name) || promoted(env.name)) return [];
    const revision = runningRevision(targetsOf(env));
    return revision === undefined ? [] : [{ type: 'serve-current', env: env.name, revision }];
  });
}

/** The revision every target runs, each of them Ready on it; undefined when there is no such one. */
function runningRevision(targets: readonly ObservedTarget[]): string | undefined {
  const [first] = targets;
  const revision = first?.status?.revision;
  if (revision === undefined) return undefined;
  const all = targets.every(({ status }) => status?.phase === 'Ready' && status.revision === revision);
  return all ? revision : undefined;
}
