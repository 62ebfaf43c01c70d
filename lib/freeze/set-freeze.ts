// Setting a stop switch (docs/freeze.md, "Stop switch"). Two doors lead here, `pipelinectl freeze`
// (lib/cli/operations/freeze.ts) and the dashboard's Freeze button (lib/cli/dashboard/routes.ts): each reads its
// caller's identity and words its own answers; what a switch checks, writes and records is decided here, once.
// Freezing enqueues nothing: a switch only holds back promotions that have not started, and the verifier reads the
// switches at its next decision anyway.
import { listAll } from '../util/paged.js';
import { isPrintable } from '../logging/printable.js';
import type { FreezeWindow } from '../pipeline/environment-policies.js';
import { objectKeyString, pipelineKeyOf, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import { durationMs } from '../util/duration.js';
import { mapLimit } from '../util/map-limit.js';
import type { FreezeScope, FreezeSwitch } from '../pipeline/freeze.js';
import { describeWindow, holdsForever, isTimeZone, parseWindowTime } from '../pipeline/freeze-window.js';

/** The most characters a reason may have: it is one line in the audit trail, `status` and the dashboard. */
export const REASON_MAX_LENGTH = 500;
/** Recurring windows one switch may have. */
export const WINDOWS_MAX = 20;
/** Audit entries written at once for an installation-wide switch. */
const CONCURRENCY = 8;

/** An audit entry of a switch, as lib/store/port.ts's `AuditEntry` has it. */
export interface FreezeAuditEntry {
  at: string;
  pipeline: ObjectKey;
  type: 'freeze-set' | 'freeze-cleared';
  env?: string;
  message: string;
  actor: string;
}

/**
 * The Store methods a switch needs, by their shape: lib/store/port.ts imports this folder's types, so importing it
 * back would make lib/freeze and lib/store a cycle (test/lint/module-cycles.test.ts). Every Store is one.
 */
export interface FreezeStore {
  getPipeline(key: ObjectKey): Promise<{ pipeline: Pipeline } | undefined>;
  listPipelines(page?: { cursor?: string }): Promise<{ items: readonly { pipeline: Pipeline }[]; cursor?: string }>;
  listFreezes(): Promise<FreezeSwitch[]>;
  setFreeze(freeze: FreezeSwitch): Promise<void>;
  clearFreezes(scope: FreezeScope, env?: string): Promise<FreezeSwitch[]>;
  appendAudit(entry: FreezeAuditEntry): Promise<void>;
}

export interface SetFreezeDeps {
  store: Pick<FreezeStore, 'getPipeline' | 'listPipelines' | 'listFreezes' | 'setFreeze' | 'appendAudit'>;
}

export interface SetFreezeRequest {
  scope: FreezeScope;
  /** The one environment to stop; absent: every environment in scope. */
  env?: string;
  reason: string;
  /** When the switch ends by itself; absent: at `unfreeze`. */
  until?: Date;
  /** Recurring windows: the switch holds only within them. */
  windows?: readonly FreezeWindow[];
  /**
   * Who sets it, recorded on the switch and as the audit entries' actor. A function is called only once the request
   * is known to be valid, so a caller whose identity cannot be read still hears about a wrong environment first.
   */
  by: string | (() => Promise<string>);
  /** The door, for the audit entries' message: `pipelinectl`, `the dashboard`. */
  via: string;
  now: Date;
}

export type ReasonProblem = 'empty' | 'too-long' | 'unprintable';

export type WindowProblem =
  /** `from` is not a time such as `Fri 16:00` or `16:00`. */
  | 'bad-from'
  | 'bad-to'
  /** One end names a weekday and the other does not. */
  | 'mixed-ends'
  /** `from` and `to` are the same time. */
  | 'empty'
  | 'unknown-time-zone';

export type WindowsProblem =
  | { problem: WindowProblem; index: number }
  /** The windows together leave no gap: write the switch without windows. */
  | { problem: 'holds-forever' }
  | { problem: 'too-many' };

export type EnvironmentProblem = 'empty' | 'too-long' | 'not-a-name';

/** What a set switch may deserve a word about, besides being set. */
export type FreezeWarning =
  /** Installation-wide for one environment that no stored pipeline has: it holds nothing until one has it. */
  'environment-in-no-pipeline';

/** What is wrong with a request before anything is read: the same answer at every door, before it opens a store. */
export type FreezeRequestProblem =
  | { outcome: 'invalid-reason'; problem: ReasonProblem }
  | { outcome: 'invalid-environment'; problem: EnvironmentProblem }
  /** `until` is not after `now`. */
  | { outcome: 'until-passed' }
  | ({ outcome: 'invalid-windows' } & WindowsProblem);

export type SetFreezeResult =
  | FreezeRequestProblem
  | { outcome: 'unknown-pipeline' }
  /** The pipeline has no such environment. */
  | { outcome: 'unknown-environment'; environments: string[] }
  | {
      outcome: 'frozen';
      freeze: FreezeSwitch;
      /** The switch of the same scope and environment that this one replaced. */
      replaced?: FreezeSwitch;
      /** The stored pipelines it covers, each with a `freeze-set` audit entry. */
      pipelines: ObjectKey[];
      warnings: FreezeWarning[];
    };

/** The first problem of a request's own values (no store is read), or undefined. */
export function freezeRequestProblem(
  request: Pick<SetFreezeRequest, 'reason' | 'env' | 'until' | 'windows' | 'now'>,
): FreezeRequestProblem | undefined {
  const reasonProblem = reasonProblemOf(request.reason.trim());
  if (reasonProblem) return { outcome: 'invalid-reason', problem: reasonProblem };
  const envProblem = request.env === undefined ? undefined : environmentProblemOf(request.env);
  if (envProblem) return { outcome: 'invalid-environment', problem: envProblem };
  if (request.until !== undefined && !(request.until.getTime() > request.now.getTime())) {
    return { outcome: 'until-passed' };
  }
  const windowsProblem = request.windows && request.windows.length > 0 && windowsProblemOf(request.windows);
  return windowsProblem ? { outcome: 'invalid-windows', ...windowsProblem } : undefined;
}

export async function setFreeze(deps: SetFreezeDeps, request: SetFreezeRequest): Promise<SetFreezeResult> {
  const { scope, env, now } = request;
  const problem = freezeRequestProblem(request);
  if (problem) return problem;
  const reason = request.reason.trim();
  const windows = request.windows && request.windows.length > 0 ? [...request.windows] : undefined;

  if ('pipeline' in scope) {
    const stored = await deps.store.getPipeline(scope.pipeline);
    if (!stored) return { outcome: 'unknown-pipeline' };
    const environments = stored.pipeline.environments.map((e) => e.name);
    if (env !== undefined && !environments.includes(env)) return { outcome: 'unknown-environment', environments };
  }

  const by = typeof request.by === 'string' ? request.by : await request.by();
  const freeze: FreezeSwitch = {
    scope: 'pipeline' in scope ? { pipeline: pipelineKeyOf(scope.pipeline) } : { installation: true },
    ...(env === undefined ? {} : { env }),
    reason,
    by,
    at: now.toISOString(),
    ...(request.until === undefined ? {} : { until: request.until.toISOString() }),
    ...(windows === undefined ? {} : { windows }),
  };
  const replaced = (await deps.store.listFreezes()).find((other) => sameSlot(other, freeze));
  await deps.store.setFreeze(freeze);

  const covered = await pipelinesCovered(deps.store, freeze);
  const message = `${switchText(freeze)} with ${request.via}: ${reason}`;
  await mapLimit(covered, CONCURRENCY, (pipeline) =>
    deps.store.appendAudit({
      at: freeze.at,
      pipeline: pipelineKeyOf(pipeline),
      type: 'freeze-set',
      ...(env === undefined ? {} : { env }),
      message,
      actor: by,
    }),
  );
  const warnings: FreezeWarning[] = env !== undefined && covered.length === 0 ? ['environment-in-no-pipeline'] : [];
  return {
    outcome: 'frozen',
    freeze,
    ...(replaced ? { replaced } : {}),
    pipelines: covered.map(pipelineKeyOf),
    warnings,
  };
}

// ---------------------------------------------------------------- reading what a person typed

/**
 * `--until` as either door takes it: an ISO 8601 time with its zone (`2026-11-24T08:00:00Z`,
 * `2026-11-24T09:00+01:00`) or a duration from `now` (`2h`, `30m`, `1h30m`, `2d`, `1d12h`). Undefined when it is
 * neither; a time in the past is returned as it is (`setFreeze` refuses it, with its own outcome).
 */
export function untilOf(text: string, now: Date): Date | undefined {
  const value = text.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i.test(value)) {
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : new Date(time);
  }
  // Days are taken here as `--since` takes them: a freeze over a long weekend is usual.
  const days = /^(\d+)d(.*)$/.exec(value);
  const rest = days ? (days[2] ?? '') : value;
  const restMs = rest === '' ? (days ? 0 : undefined) : durationMs(rest);
  if (restMs === undefined) return undefined;
  return new Date(now.getTime() + Number(days?.[1] ?? 0) * 86_400_000 + restMs);
}

/**
 * A window as `--window` writes it, `Fri 16:00-Mon 08:00` or `22:00-06:00` (an en dash as `describeWindow`
 * prints it is taken too), in `timeZone`. Undefined when it is not two ends around a dash; the ends themselves are
 * checked by `setFreeze`.
 */
export function windowOf(text: string, timeZone: string): FreezeWindow | undefined {
  const match = /^\s*([^-–]+?)\s*[-–]\s*([^-–]+?)\s*$/.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { from: match[1], to: match[2], timeZone };
}

function reasonProblemOf(reason: string): ReasonProblem | undefined {
  if (reason === '') return 'empty';
  if (reason.length > REASON_MAX_LENGTH) return 'too-long';
  // It is shown as one line in terminals and pages: nothing in it may act instead of showing.
  if (!isPrintable(reason)) return 'unprintable';
  return undefined;
}

function environmentProblemOf(env: string): EnvironmentProblem | undefined {
  if (env === '') return 'empty';
  if (env.length > 253) return 'too-long';
  return /\s/.test(env) || !isPrintable(env) ? 'not-a-name' : undefined;
}

/** The first problem of a window list, or undefined when the windows can hold. */
export function windowsProblemOf(windows: readonly FreezeWindow[]): WindowsProblem | undefined {
  if (windows.length > WINDOWS_MAX) return { problem: 'too-many' };
  for (const [index, window] of windows.entries()) {
    const problem = windowProblemOf(window);
    if (problem) return { problem, index };
  }
  return holdsForever(windows) ? { problem: 'holds-forever' } : undefined;
}

function windowProblemOf(window: FreezeWindow): WindowProblem | undefined {
  const from = parseWindowTime(window.from);
  if (!from) return 'bad-from';
  const to = parseWindowTime(window.to);
  if (!to) return 'bad-to';
  if ((from.weekday === undefined) !== (to.weekday === undefined)) return 'mixed-ends';
  if (from.weekday === to.weekday && from.minutes === to.minutes) return 'empty';
  return isTimeZone(window.timeZone) ? undefined : 'unknown-time-zone';
}

// ---------------------------------------------------------------- what a switch covers, and how it reads

/** Whether two switches have the same scope and environment: setting one replaces the other. */
export function sameSlot(a: Pick<FreezeSwitch, 'scope' | 'env'>, b: Pick<FreezeSwitch, 'scope' | 'env'>): boolean {
  return a.env === b.env && scopeString(a.scope) === scopeString(b.scope);
}

/** `*` for the installation, `NS/NAME` for a pipeline. */
export function scopeString(scope: FreezeScope): string {
  return 'pipeline' in scope ? objectKeyString(scope.pipeline) : '*';
}

/**
 * The stored pipelines a switch covers: its pipeline, or every stored one (paged through) for the installation;
 * with `env`, only those that have that environment.
 */
export async function pipelinesCovered(
  store: Pick<FreezeStore, 'getPipeline' | 'listPipelines'>,
  freeze: Pick<FreezeSwitch, 'scope' | 'env'>,
): Promise<Pipeline[]> {
  const hasEnv = (pipeline: Pipeline) =>
    freeze.env === undefined || pipeline.environments.some((e) => e.name === freeze.env);
  if ('pipeline' in freeze.scope) {
    const stored = await store.getPipeline(freeze.scope.pipeline);
    return stored && hasEnv(stored.pipeline) ? [stored.pipeline] : [];
  }
  const stored = await listAll((page) => store.listPipelines(page));
  return stored.map((item) => item.pipeline).filter(hasEnv);
}

/**
 * What a switch stops, for a person: `prod frozen until 2026-11-24T08:00:00.000Z`, `every environment frozen
 * installation-wide within Fri 16:00–Mon 08:00 Europe/Berlin until unfrozen`.
 */
export function switchText(freeze: Pick<FreezeSwitch, 'scope' | 'env' | 'until' | 'windows'>): string {
  const what = freeze.env ?? 'every environment';
  const where = 'installation' in freeze.scope ? ' installation-wide' : '';
  const within = freeze.windows ? ` within ${freeze.windows.map(describeWindow).join(', ')}` : '';
  const until = freeze.until === undefined ? 'until unfrozen' : `until ${freeze.until}`;
  return `${what} frozen${where}${within} ${until}`;
}
