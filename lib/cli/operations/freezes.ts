// What `pipelinectl freezes` does: the stop switches in force (docs/freeze.md, "Stop switch"), installation-wide
// first, with what each stops, until when, who set it and why. Also the one JSON shape of a switch that `freeze` and
// `unfreeze` print.
import { coversPipeline, inForce } from '../../pipeline/freeze.js';
import type { FreezeSwitch } from '../../pipeline/freeze.js';
import { describeWindow } from '../../pipeline/freeze-window.js';
import type { FreezeWindow } from '../../pipeline/environment-policies.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { ago, formatTable } from '../output.js';

/** One switch as `-o json` prints it: every field, absent ones as null. */
export interface FreezeJson {
  /** `installation`: every pipeline; `pipeline`: the one named in `pipeline`. */
  scope: 'installation' | 'pipeline';
  /** `NS/NAME`, or null for an installation-wide switch. */
  pipeline: string | null;
  /** The one environment it stops, or null: every environment. */
  env: string | null;
  reason: string;
  by: string;
  /** When it was set. */
  at: string;
  /** When it ends by itself, or null: at `unfreeze`. */
  until: string | null;
  /** The recurring windows it holds within, or null: it holds all the time. */
  windows: FreezeWindow[] | null;
}

export interface FreezesJson {
  freezes: FreezeJson[];
}

export function freezeJson(freeze: FreezeSwitch): FreezeJson {
  return {
    scope: 'installation' in freeze.scope ? 'installation' : 'pipeline',
    pipeline: 'pipeline' in freeze.scope ? objectKeyString(freeze.scope.pipeline) : null,
    env: freeze.env ?? null,
    reason: freeze.reason,
    by: freeze.by,
    at: freeze.at,
    until: freeze.until ?? null,
    windows: freeze.windows ?? null,
  };
}

/**
 * The switches in force at `now` (not past their `until`), installation-wide ones first, then by pipeline and
 * environment. With `pipeline`, only those that cover it: installation-wide ones and its own; a pipeline that is not
 * stored is an error unless a switch of its own is still set (a switch outlives a deleted pipeline).
 */
export async function readFreezes(
  backend: Backend,
  pipeline: ObjectKey | undefined,
  now: Date,
): Promise<FreezeSwitch[]> {
  const all = await backend.store.listFreezes();
  const own = (freeze: FreezeSwitch) =>
    pipeline !== undefined &&
    'pipeline' in freeze.scope &&
    objectKeyString(freeze.scope.pipeline) === objectKeyString(pipeline);
  if (pipeline && !all.some(own) && !(await backend.store.getPipeline(pipeline))) {
    throw new CliError(`pipeline ${objectKeyString(pipeline)} not found in ${backend.description}`);
  }
  return all
    .filter((freeze) => inForce(freeze, now) && (pipeline === undefined || coversPipeline(freeze, pipeline)))
    .sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}

function sortKey(freeze: FreezeSwitch): string {
  // Compared by code unit (not localeCompare, which ignores control characters): `\u0000` sorts installation-wide
  // switches first, and "every environment" before a named one.
  const scope = 'pipeline' in freeze.scope ? objectKeyString(freeze.scope.pipeline) : '\u0000';
  return `${scope}\u0001${freeze.env ?? '\u0000'}`;
}

/** A switch's scope for a person: `installation-wide` or `NS/NAME`. */
export function scopeText(freeze: FreezeSwitch): string {
  return 'pipeline' in freeze.scope ? objectKeyString(freeze.scope.pipeline) : 'installation-wide';
}

/** When a switch ends, for a person: `2026-11-24T08:00Z (in 2h)`, or `unfreeze`. */
export function untilText(freeze: FreezeSwitch, now: Date): string {
  if (freeze.until === undefined) return 'unfreeze';
  const time = Date.parse(freeze.until);
  const minutes = Number.isNaN(time) ? freeze.until : new Date(time).toISOString().replace(/:\d{2}\.\d{3}Z$/, 'Z');
  return `${minutes} (${ago(freeze.until, now)})`;
}

/**
 * The table `pipelinectl freezes` prints, the reason before the windows (which are rare, and long); what the switches
 * carry is escaped by formatTable, as every cell is. `-o json` has every field whole.
 */
export function freezesTable(freezes: readonly FreezeSwitch[], now: Date): string[] {
  return formatTable(
    [
      { header: 'SCOPE' },
      { header: 'ENV' },
      { header: 'UNTIL' },
      { header: 'BY', max: 40 },
      { header: 'REASON', max: 40 },
      { header: 'WINDOWS' },
    ],
    freezes.map((freeze) => [
      scopeText(freeze),
      freeze.env ?? '(every)',
      untilText(freeze, now),
      freeze.by,
      freeze.reason,
      freeze.windows ? freeze.windows.map(describeWindow).join(', ') : '-',
    ]),
  );
}
