// What `pipelinectl freeze` does: the set-freeze use case (lib/freeze/set-freeze.ts) under the caller's identity,
// with the flags read and every refusal worded here, naming the flag it is about.
import type { FreezeSwitch } from '../../pipeline/freeze.js';
import {
  REASON_MAX_LENGTH,
  freezeRequestProblem,
  setFreeze,
  untilOf,
  windowOf,
  WINDOWS_MAX,
  type FreezeRequestProblem,
  type FreezeWarning,
  type WindowsProblem,
} from '../../freeze/set-freeze.js';
import type { FreezeWindow } from '../../pipeline/environment-policies.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseObjectKey } from '../flags.js';
import { freezeJson, type FreezeJson } from './freezes.js';

/** What the command was asked to freeze: one pipeline, or every pipeline of the installation (`--all`). */
export type FreezeTarget = { pipeline: ObjectKey } | { all: true };

/** One pipeline, or `--all`: exactly one of them. */
export function targetOf(
  name: string | undefined,
  all: boolean | undefined,
  verb: 'freeze' | 'unfreeze',
): FreezeTarget {
  if (name !== undefined && all) throw new CliError(`${verb} one pipeline or --all, not both`);
  if (name === undefined && !all) throw new CliError(`${verb} what? Give a pipeline (NAMESPACE/NAME) or --all`);
  return name === undefined ? { all: true } : { pipeline: parseObjectKey(name, 'the pipeline') };
}

export interface FreezeFlags {
  env?: string;
  reason: string;
  /** `--until` as typed: an ISO 8601 time or a duration from now. */
  until?: string;
  /** Each `--window` as typed: `Fri 16:00-Mon 08:00`. */
  windows: readonly string[];
  timeZone?: string;
}

export interface FreezeResult {
  freeze: FreezeSwitch;
  replaced?: FreezeSwitch;
  /** The stored pipelines it covers (each has a `freeze-set` audit entry). */
  pipelines: ObjectKey[];
  warnings: FreezeWarning[];
}

/** What `pipelinectl freeze -o json` prints. */
export interface FreezeResultJson {
  freeze: FreezeJson;
  /** The switch of the same scope and environment it replaced, or null. */
  replaced: FreezeJson | null;
  /** `NS/NAME` of each stored pipeline it covers. */
  pipelines: string[];
  warnings: FreezeWarning[];
}

export function freezeResultJson(result: FreezeResult): FreezeResultJson {
  return {
    freeze: freezeJson(result.freeze),
    replaced: result.replaced ? freezeJson(result.replaced) : null,
    pipelines: result.pipelines.map(objectKeyString),
    warnings: result.warnings,
  };
}

/** The flags, read and checked: what `freezePromotions` takes. */
export interface FreezeInput {
  env?: string;
  reason: string;
  until?: Date;
  windows?: FreezeWindow[];
}

/**
 * Reads the flags and checks what can be checked without the store, so that a mistyped flag is refused before the
 * data directory or the stack is opened. Throws a CliError naming the flag.
 */
export function readFreezeFlags(flags: FreezeFlags, now: Date): FreezeInput {
  const until = flags.until === undefined ? undefined : untilOf(flags.until, now);
  if (flags.until !== undefined && until === undefined) {
    throw new CliError(
      '--until must be a time with its zone such as 2026-11-24T08:00:00Z, or a duration from now such as 2h, 30m ' +
        `or 2d (got ${JSON.stringify(flags.until)})`,
    );
  }
  const input: FreezeInput = { env: flags.env, reason: flags.reason, until, windows: windowsOf(flags) };
  const problem = freezeRequestProblem({ ...input, now });
  if (problem) throw new CliError(refusal(problem, flags, now));
  return input;
}

/**
 * Sets the switch as the caller, `now` being the time `readFreezeFlags` read the flags at. Throws a CliError, writing
 * nothing, when the pipeline or the environment is not found.
 */
export async function freezePromotions(
  backend: Backend,
  target: FreezeTarget,
  input: FreezeInput,
  now: Date,
): Promise<FreezeResult> {
  const scope = 'pipeline' in target ? { pipeline: target.pipeline } : { installation: true as const };
  const result = await setFreeze(
    { store: backend.store },
    { scope, ...input, by: () => backend.identity(), via: 'pipelinectl', now },
  );
  const name = 'pipeline' in target ? objectKeyString(target.pipeline) : '';
  switch (result.outcome) {
    case 'unknown-pipeline':
      throw new CliError(`pipeline ${name} not found in ${backend.description}`);
    case 'unknown-environment':
      throw new CliError(
        `pipeline ${name} has no environment "${input.env}" (it has ${result.environments.join(', ')})`,
      );
    case 'frozen':
      return {
        freeze: result.freeze,
        ...(result.replaced ? { replaced: result.replaced } : {}),
        pipelines: result.pipelines,
        warnings: result.warnings,
      };
    default:
      // Checked by readFreezeFlags already; worded the same should a caller skip it.
      throw new CliError(refusal(result, { ...input, windows: [], until: undefined }, now));
  }
}

function refusal(problem: FreezeRequestProblem, flags: FreezeFlags, now: Date): string {
  switch (problem.outcome) {
    case 'invalid-reason':
      return {
        empty: '--reason must say why (it is shown wherever the switch holds a promotion back)',
        'too-long': `--reason must be at most ${REASON_MAX_LENGTH} characters`,
        unprintable: '--reason must be one line of printable text',
      }[problem.problem];
    case 'invalid-environment':
      return `--env must be the name of an environment (got ${JSON.stringify(flags.env)})`;
    case 'until-passed':
      return (
        `--until ${JSON.stringify(flags.until)} is not in the future (it is ${now.toISOString()} now): ` +
        'give a later time, or a duration such as 2h'
      );
    case 'invalid-windows':
      return windowsRefusal(problem, flags);
  }
}

/** The windows of `--window` in `--time-zone`, each as typed; a flag without its partner is refused here. */
function windowsOf(flags: FreezeFlags): FreezeWindow[] | undefined {
  if (flags.windows.length === 0) {
    if (flags.timeZone !== undefined) throw new CliError('--time-zone is the zone of --window: give a --window too');
    return undefined;
  }
  if (flags.timeZone === undefined) {
    throw new CliError('--window needs --time-zone: the IANA time zone it is in, such as Europe/Berlin or UTC');
  }
  const timeZone = flags.timeZone;
  return flags.windows.map((text) => {
    const window = windowOf(text, timeZone);
    if (!window) {
      throw new CliError(
        `--window must be a range such as "Fri 16:00-Mon 08:00" (weekly) or "22:00-06:00" (daily) ` +
          `(got ${JSON.stringify(text)})`,
      );
    }
    return window;
  });
}

function windowsRefusal(problem: WindowsProblem, flags: FreezeFlags): string {
  switch (problem.problem) {
    case 'too-many':
      return `--window may be given at most ${WINDOWS_MAX} times`;
    case 'holds-forever':
      return '--window: the windows together leave no time free: freeze without --window instead';
    case 'unknown-time-zone':
      return `--time-zone must be an IANA time zone such as Europe/Berlin or UTC (got ${JSON.stringify(flags.timeZone)})`;
    default: {
      const given = JSON.stringify(flags.windows[problem.index] ?? '');
      const why = {
        'bad-from': 'its start is not a time such as "Fri 16:00" or "16:00" (24-hour clock)',
        'bad-to': 'its end is not a time such as "Mon 08:00" or "08:00" (24-hour clock)',
        'mixed-ends': 'both ends name a weekday (weekly) or neither does (daily)',
        empty: 'it starts and ends at the same time',
      }[problem.problem];
      return `--window ${given}: ${why}`;
    }
  }
}
