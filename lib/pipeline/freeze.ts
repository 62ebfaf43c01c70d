// What keeps promotions into an environment from starting (docs/freeze.md): recurring windows written in a Pipeline
// or set for the whole installation, and the stop switch `pipelinectl freeze` sets. Plain data: the decision reads
// them with the time passed in, and the store keeps the switches.
import type { FreezeWindow } from './environment-policies.js';
import { objectKeyString, type ObjectKey } from './model.js';

/** Where a stop switch applies: every pipeline of the installation, or one. */
export type FreezeScope = { installation: true } | { pipeline: ObjectKey };

/** A stop switch (`pipelinectl freeze`), kept in the store until `unfreeze` or `until`. */
export interface FreezeSwitch {
  scope: FreezeScope;
  /** The one environment it stops; absent: every environment in scope. */
  env?: string;
  reason: string;
  /** Who set it: the CLI caller's identity. */
  by: string;
  /** ISO 8601: when it was set. */
  at: string;
  /** ISO 8601: when it ends by itself; absent: at `unfreeze`. */
  until?: string;
  /** Recurring windows: the switch stops promotions only within them (an installation-wide schedule). */
  windows?: FreezeWindow[];
}

/** Whether a switch still holds at `now`: its `until` has not passed (one that cannot be read holds). */
export function inForce(freeze: Pick<FreezeSwitch, 'until'>, now: Date): boolean {
  if (freeze.until === undefined) return true;
  const until = Date.parse(freeze.until);
  return Number.isNaN(until) || until > now.getTime();
}

/** Whether a switch's scope takes in `pipeline`: installation-wide, or that pipeline's own. */
export function coversPipeline(freeze: Pick<FreezeSwitch, 'scope'>, pipeline: ObjectKey): boolean {
  return 'installation' in freeze.scope || objectKeyString(freeze.scope.pipeline) === objectKeyString(pipeline);
}
