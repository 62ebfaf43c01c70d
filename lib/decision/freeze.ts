// Whether a promotion into an environment may start now (docs/freeze.md): not within one of its recurring freeze
// windows, nor while a stop switch covers it. Only a start is held: a promotion already under way finishes, and a
// rollback (lib/decision/rollback.ts) is never held, since it restores what was healthy.
import { coversPipeline, inForce, type FreezeSwitch } from '../pipeline/freeze.js';
import { activeFreezeWindow, describeWindow } from '../pipeline/freeze-window.js';
import type { Pipeline, PipelineEnvironment } from '../pipeline/model.js';
import { isoSeconds } from './soak.js';
import type { EnvironmentReason } from './types.js';

export type FreezeCheck =
  | { frozen: false }
  /** The switches were not read, and no window of the environment holds: the caller must read them to know. */
  | { frozen: 'unknown' }
  | {
      frozen: true;
      reason: Extract<EnvironmentReason, 'FrozenByWindow' | 'FrozenBySwitch'>;
      message: string;
      /** ISO 8601: when the last freeze holding the environment ends by itself; absent when one never does. */
      until?: string;
    };

interface Hold {
  reason: 'FrozenByWindow' | 'FrozenBySwitch';
  what: string;
  /** Milliseconds since the epoch; undefined: until someone lifts it. */
  endsAt: number | undefined;
}

/**
 * Every freeze that holds `env` of `pipeline` at `now`: its own windows, then the stop switches (`switches`
 * undefined: not read). The reason is the switch's when any switch holds, since a person set it and must lift it.
 */
export function freezeOf(
  pipeline: Pipeline,
  env: PipelineEnvironment,
  switches: readonly FreezeSwitch[] | undefined,
  now: Date,
): FreezeCheck {
  const holds: Hold[] = [];
  const window = env.freeze && activeFreezeWindow(env.freeze, now);
  if (window) {
    holds.push({ reason: 'FrozenByWindow', what: windowText(window.window), endsAt: window.endsAt.getTime() });
  }
  if (switches === undefined) return holds.length > 0 ? frozen(holds) : { frozen: 'unknown' };
  for (const freeze of switches) {
    const hold = switchHold(freeze, pipeline, env, now);
    if (hold) holds.push(hold);
  }
  return holds.length > 0 ? frozen(holds) : { frozen: false };
}

function switchHold(freeze: FreezeSwitch, pipeline: Pipeline, env: PipelineEnvironment, now: Date): Hold | undefined {
  if ((freeze.env !== undefined && freeze.env !== env.name) || !coversPipeline(freeze, pipeline)) return undefined;
  if (!inForce(freeze, now)) return undefined;
  // An `until` that cannot be read holds (inForce), with no end the re-check could wait for.
  const parsed = freeze.until === undefined ? Number.NaN : Date.parse(freeze.until);
  const until = Number.isNaN(parsed) ? undefined : parsed;
  const by = `${freeze.reason} (frozen by ${freeze.by}${freeze.env === undefined ? '' : ` for ${freeze.env}`})`;
  if (freeze.windows) {
    const window = activeFreezeWindow(freeze.windows, now);
    if (!window) return undefined;
    const endsAt = Math.min(window.endsAt.getTime(), until ?? Number.POSITIVE_INFINITY);
    return { reason: 'FrozenByWindow', what: `${windowText(window.window)}: ${by}`, endsAt };
  }
  return { reason: 'FrozenBySwitch', what: by, endsAt: until };
}

function frozen(holds: readonly Hold[]): FreezeCheck {
  const bySwitch = holds.some((hold) => hold.reason === 'FrozenBySwitch');
  const ends = holds.map((hold) => hold.endsAt);
  const until = ends.includes(undefined) ? undefined : Math.max(...(ends as number[]));
  const when = until === undefined ? 'until unfrozen' : `until ${isoSeconds(until)}`;
  const message = `frozen ${when}: ${holds.map((hold) => hold.what).join('; ')}`;
  return {
    frozen: true,
    reason: bySwitch ? 'FrozenBySwitch' : 'FrozenByWindow',
    message,
    ...(until === undefined ? {} : { until: isoSeconds(until) }),
  };
}

function windowText(window: { reason?: string } & Parameters<typeof describeWindow>[0]): string {
  return window.reason === undefined
    ? `window ${describeWindow(window)}`
    : `${window.reason} (${describeWindow(window)})`;
}
