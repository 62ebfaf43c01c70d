// Lifting stop switches (docs/freeze.md, "Stop switch"): the one definition behind `pipelinectl unfreeze` and the
// dashboard's Unfreeze button. Each removed switch is recorded in the trail of every pipeline it covered, and each
// such pipeline is handed to the verifier at once, so that a promotion the switch held back starts now rather than
// at the next poll.
import { objectKeyString, pipelineKeyOf, type ObjectKey } from '../pipeline/model.js';
import { mapLimit } from '../util/map-limit.js';
import { inForce, type FreezeScope, type FreezeSwitch } from '../pipeline/freeze.js';
import { pipelinesCovered, scopeString, switchText, type FreezeStore } from './set-freeze.js';

/** Audit entries and messages written at once when installation-wide switches are lifted. */
const CONCURRENCY = 8;

/**
 * The check-pipeline message of lib/queue/messages.ts, by its shape (lib/queue imports lib/config, which imports this
 * folder). It decides from the stored state alone: lifting a switch changes nothing on the clusters; its cause
 * `unfreeze` lets that decision start a re-check chain for a window that still holds (schedule-recheck.ts).
 */
export interface ResumeMessage {
  type: 'check-pipeline';
  pipeline: ObjectKey;
  cause: 'unfreeze';
  readTargets: false;
}

export interface ClearFreezeDeps {
  store: Pick<FreezeStore, 'getPipeline' | 'listPipelines' | 'listFreezes' | 'clearFreezes' | 'appendAudit'>;
  /** Hands a message to the verifier; false when nothing took it (the local mode without `serve`). */
  enqueue(message: ResumeMessage): Promise<boolean>;
}

export interface ClearFreezeRequest {
  scope: FreezeScope;
  /** Lift only the switch for this environment; absent: every switch of the scope. */
  env?: string;
  /** Who lifts them, the audit entries' actor; a function is called only once there is something to lift. */
  by: string | (() => Promise<string>);
  /** The door, for the audit entries' message: `pipelinectl`, `the dashboard`. */
  via: string;
  now: Date;
}

export type ClearFreezeResult =
  /** No switch of the scope, and no such stored pipeline. */
  | { outcome: 'unknown-pipeline' }
  /** No switch for `env`, and the pipeline has no such environment. */
  | { outcome: 'unknown-environment'; environments: string[] }
  /**
   * No switch of this scope (and environment) was set. `holding`: the switches in force that still cover it from
   * elsewhere (installation-wide, or for every environment when one was named).
   */
  | { outcome: 'not-frozen'; holding: FreezeSwitch[] }
  | {
      outcome: 'unfrozen';
      removed: FreezeSwitch[];
      holding: FreezeSwitch[];
      /** The stored pipelines the removed switches covered: each has a `freeze-cleared` entry and was re-checked. */
      pipelines: ObjectKey[];
      by: string;
      /** False when no verifier took the re-checks (the local mode without `serve`: it decides when it starts). */
      delivered: boolean;
    };

export async function clearFreeze(deps: ClearFreezeDeps, request: ClearFreezeRequest): Promise<ClearFreezeResult> {
  const { scope, env, now } = request;
  const switches = await deps.store.listFreezes();
  const matching = switches.filter((freeze) => lifts(request, freeze));
  if (matching.length === 0) {
    // A switch can outlive its pipeline or environment (it is kept when the pipeline is deleted), so these are asked
    // only when there is nothing to lift.
    if ('pipeline' in scope) {
      const stored = await deps.store.getPipeline(scope.pipeline);
      if (!stored) return { outcome: 'unknown-pipeline' };
      const environments = stored.pipeline.environments.map((e) => e.name);
      if (env !== undefined && !environments.includes(env)) return { outcome: 'unknown-environment', environments };
    }
    return { outcome: 'not-frozen', holding: holdingAfter(request, switches, now) };
  }

  const by = typeof request.by === 'string' ? request.by : await request.by();
  const removed = await deps.store.clearFreezes(scope, env);
  // Another unfreeze may have lifted them in between: what is gone is not recorded twice.
  if (removed.length === 0) {
    return { outcome: 'not-frozen', holding: holdingAfter(request, await deps.store.listFreezes(), now) };
  }
  const at = now.toISOString();
  const covered = new Map<string, ObjectKey>();
  for (const freeze of removed) {
    const pipelines = await pipelinesCovered(deps.store, freeze);
    const message = `${switchText(freeze)} lifted with ${request.via} (set by ${freeze.by}: ${freeze.reason})`;
    await mapLimit(pipelines, CONCURRENCY, (pipeline) =>
      deps.store.appendAudit({
        at,
        pipeline: pipelineKeyOf(pipeline),
        type: 'freeze-cleared',
        ...(freeze.env === undefined ? {} : { env: freeze.env }),
        message,
        actor: by,
      }),
    );
    for (const pipeline of pipelines) covered.set(objectKeyString(pipeline), pipelineKeyOf(pipeline));
  }
  const pipelines = [...covered.values()];
  const taken = await mapLimit(pipelines, CONCURRENCY, (pipeline) =>
    deps.enqueue({ type: 'check-pipeline', pipeline, cause: 'unfreeze', readTargets: false }),
  );
  const holding = holdingAfter(request, await deps.store.listFreezes(), now);
  return { outcome: 'unfrozen', removed, holding, pipelines, by, delivered: taken.every(Boolean) };
}

/** Whether `freeze` is one the request lifts: the same scope and, when the request names one, environment. */
function lifts(request: Pick<ClearFreezeRequest, 'scope' | 'env'>, freeze: FreezeSwitch): boolean {
  if (scopeString(freeze.scope) !== scopeString(request.scope)) return false;
  return request.env === undefined || freeze.env === request.env;
}

/**
 * The switches in force that hold what the request names from elsewhere: installation-wide ones, and those of the
 * same scope for every environment when the request names one environment.
 */
function holdingAfter(
  request: Pick<ClearFreezeRequest, 'scope' | 'env'>,
  switches: readonly FreezeSwitch[],
  now: Date,
): FreezeSwitch[] {
  return switches.filter((freeze) => {
    if (!inForce(freeze, now) || lifts(request, freeze)) return false;
    const sameScope = scopeString(freeze.scope) === scopeString(request.scope);
    if (!('installation' in freeze.scope) && !sameScope) return false;
    return freeze.env === undefined || request.env === undefined || freeze.env === request.env;
  });
}
