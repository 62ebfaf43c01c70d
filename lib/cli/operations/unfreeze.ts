// What `pipelinectl unfreeze` does: the clear-freeze use case (lib/freeze/clear-freeze.ts) under the caller's
// identity. When nothing of that scope was frozen it says so, and names the switches that still hold it from
// elsewhere with the command that lifts each, so a person is not left guessing why promotions stay stopped.
import { clearFreeze } from '../../freeze/clear-freeze.js';
import type { FreezeSwitch } from '../../pipeline/freeze.js';
import { switchText } from '../../freeze/set-freeze.js';
import { printable } from '../../logging/printable.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import type { FreezeTarget } from './freeze.js';
import { freezeJson, scopeText, type FreezeJson } from './freezes.js';

export interface UnfreezeResult {
  removed: FreezeSwitch[];
  /** Switches in force that still hold what was unfrozen, from elsewhere. */
  holding: FreezeSwitch[];
  /** The stored pipelines the removed switches covered (each re-checked). */
  pipelines: ObjectKey[];
  by: string;
  at: string;
  /** False when no verifier took the re-checks (local mode without `serve`). */
  delivered: boolean;
}

/** What `pipelinectl unfreeze -o json` prints. */
export interface UnfreezeJson {
  removed: FreezeJson[];
  holding: FreezeJson[];
  pipelines: string[];
  unfrozenBy: string;
  unfrozenAt: string;
  /** Whether a verifier took the re-checks now; false in the local mode without `serve` (it decides at start). */
  delivered: boolean;
}

export function unfreezeJson(result: UnfreezeResult): UnfreezeJson {
  return {
    removed: result.removed.map(freezeJson),
    holding: result.holding.map(freezeJson),
    pipelines: result.pipelines.map(objectKeyString),
    unfrozenBy: result.by,
    unfrozenAt: result.at,
    delivered: result.delivered,
  };
}

/**
 * Lifts the switches of `target` (for `env` only, when given). Throws a CliError, writing nothing, when none is set
 * there (naming what still holds it) or the pipeline or environment does not exist.
 */
export async function unfreezePromotions(
  backend: Backend,
  target: FreezeTarget,
  env: string | undefined,
  now = new Date(),
): Promise<UnfreezeResult> {
  const scope = 'pipeline' in target ? { pipeline: target.pipeline } : { installation: true as const };
  const result = await clearFreeze(
    { store: backend.store, enqueue: (message) => backend.enqueue(message) },
    { scope, env, by: () => backend.identity(), via: 'pipelinectl', now },
  );
  const name = 'pipeline' in target ? objectKeyString(target.pipeline) : '';
  switch (result.outcome) {
    case 'unknown-pipeline':
      throw new CliError(`pipeline ${name} not found in ${backend.description}`);
    case 'unknown-environment':
      throw new CliError(`pipeline ${name} has no environment "${env}" (it has ${result.environments.join(', ')})`);
    case 'not-frozen': {
      const what = 'pipeline' in target ? `${name} has no stop switch of its own` : 'no installation-wide stop switch';
      const nothing = `${what}${env === undefined ? '' : ` for ${env}`}${'pipeline' in target ? '' : ' is set'}`;
      throw new CliError(result.holding.length === 0 ? nothing : `${nothing}; ${holdingText(result.holding)}`);
    }
    case 'unfrozen':
      return {
        removed: result.removed,
        holding: result.holding,
        pipelines: result.pipelines,
        by: result.by,
        at: now.toISOString(),
        delivered: result.delivered,
      };
  }
}

/** `still held by: …; lift it with pipelinectl unfreeze …` for each switch. */
export function holdingText(holding: readonly FreezeSwitch[]): string {
  const each = holding.map((freeze) => `${switchText(freeze)} by ${freeze.by} (lift it with ${liftCommand(freeze)})`);
  return printable(`still held by: ${each.join('; ')}`);
}

/** The command that lifts exactly `freeze`. */
export function liftCommand(freeze: FreezeSwitch): string {
  const target = 'pipeline' in freeze.scope ? scopeText(freeze) : '--all';
  return `pipelinectl unfreeze ${target}${freeze.env === undefined ? '' : ` --env ${freeze.env}`}`;
}
