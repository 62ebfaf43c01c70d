// Where each environment of a pipeline stands, as the facts the metrics need it (lib/metrics): every target Ready on
// one revision (`passed`), some target Failed (`failed`), or neither. Pure, over the stored statuses; the times come
// from the statuses' `changedAt`, so they are when the targets became so, not when a verifier happened to look.
import { appKeyOf, appKeyString, type Pipeline } from '../pipeline/model.js';
import type { ObservedTargetStatus } from '../store/port.js';

export type EnvironmentHealth =
  /** Every target observed Ready on `revision`, since the last of them became so. */
  | { env: string; health: 'passed'; revision: string; since: string }
  /** Some target observed Failed, since the first of them became so; `revision` when the failed ones agree. */
  | { env: string; health: 'failed'; revision?: string; since: string }
  /** Anything else: rolling out, unknown, suspended, targets on different revisions, no targets. */
  | { env: string; health: 'neither' };

/** Each environment's health, in promotion order, from the observed statuses by `appKeyString`. */
export function environmentHealth(
  pipeline: Pipeline,
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
): EnvironmentHealth[] {
  return pipeline.environments.map((env) => {
    const keys = [...new Set(env.targets.map((target) => appKeyString(appKeyOf(pipeline, target))))];
    const observed = keys.map((key) => statuses.get(key));
    const failed = observed.filter((entry) => entry?.status.phase === 'Failed');
    if (failed.length > 0) {
      const revisions = new Set(failed.map((entry) => entry?.status.revision));
      const [revision] = revisions;
      const since = failed.map((entry) => entry?.changedAt ?? '').sort()[0] ?? '';
      return { env: env.name, health: 'failed', ...(revisions.size === 1 && revision ? { revision } : {}), since };
    }
    const revisions = new Set(observed.map((entry) => entry?.status.revision));
    const [revision] = revisions;
    const allReady = observed.length > 0 && observed.every((entry) => entry?.status.phase === 'Ready');
    if (!allReady || revisions.size !== 1 || !revision) return { env: env.name, health: 'neither' };
    const since =
      observed
        .map((entry) => entry?.changedAt ?? '')
        .sort()
        .at(-1) ?? '';
    return { env: env.name, health: 'passed', revision, since };
  });
}
