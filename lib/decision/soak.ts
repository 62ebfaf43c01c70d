// An environment's soak (docs/soak.md): once every target of it runs the candidate and is healthy, it must stay so
// for `soak` before anything after it is promoted. Measured from what the verifier recorded (when each target's
// status became what it is), never from event timestamps, so a late or replayed event cannot shorten it; a target
// whose status changes restarts the clock, because its time is then the change's.
import { MAX_SOAK_MS } from '../pipeline/environment-policies.js';
import type { PipelineEnvironment } from '../pipeline/model.js';
import { durationMs, formatDuration } from '../util/duration.js';

export interface Soak {
  /** The environment whose soak it is. */
  env: string;
  /** Milliseconds since the epoch: when the last of its targets became healthy on what it runs. */
  startedAt: number;
  /** Milliseconds since the epoch: when the soak is served. */
  endsAt: number;
}

/**
 * The soak of an environment whose targets are all healthy on the candidate, from when each one's status was first
 * recorded as it is (`since`, ISO 8601, in any order). A time that is missing or cannot be read counts as `now`: a
 * soak we cannot measure has just begun. Undefined when the environment has no soak.
 */
export function soakOf(env: PipelineEnvironment, since: readonly (string | undefined)[], now: Date): Soak | undefined {
  if (env.soak === undefined) return undefined;
  // The schema admits only what durationMs reads; a stored value it cannot read (written by another version) must
  // not let a promotion through early, so it counts as the longest soak the schema admits.
  const soakMs = durationMs(env.soak) ?? MAX_SOAK_MS;
  const times = since.map((iso) => {
    const at = iso === undefined ? Number.NaN : Date.parse(iso);
    return Number.isNaN(at) ? now.getTime() : at;
  });
  const startedAt = times.length === 0 ? now.getTime() : Math.max(...times);
  return { env: env.name, startedAt, endsAt: startedAt + soakMs };
}

export function isRunning(soak: Soak, now: Date): boolean {
  return now.getTime() < soak.endsAt;
}

/** `12m left, until 2026-11-24T10:42:00Z`: the decision's message, with a time a script can read back. */
export function timeLeft(soak: Soak, now: Date): string {
  return `${leftOf(soak.endsAt - now.getTime())} left, until ${isoSeconds(soak.endsAt)}`;
}

/**
 * `12m left (until 10:42 UTC)`, or with the date when the end is on another day (`… until 2026-11-26 10:42 UTC`):
 * what `status`, `explain` and the dashboard show next to a soak's `soakEndsAt`, a freeze's `frozenUntil` and a
 * rollback's `rollbackAt`. Undefined when `endsAt` (ISO 8601) cannot be read.
 */
export function timeLeftUntil(end: string, now: Date): string | undefined {
  const endsAt = Date.parse(end);
  if (Number.isNaN(endsAt)) return undefined;
  const [day, time] = new Date(endsAt).toISOString().split('T') as [string, string];
  const sameDay = day === now.toISOString().slice(0, 10);
  return `${leftOf(endsAt - now.getTime())} left (until ${sameDay ? '' : `${day} `}${time.slice(0, 5)} UTC)`;
}

/** Whole minutes rounded up (`1h12m`), seconds in the last minute (`40s`), `0s` once over. */
function leftOf(ms: number): string {
  const seconds = Math.ceil(Math.max(0, ms) / 1000);
  const rounded = seconds >= 60 ? Math.ceil(seconds / 60) * 60 : seconds;
  return formatDuration(rounded * 1000);
}

/** ISO 8601 to the second, as people read it: `2026-11-24T10:42:00Z`. */
export function isoSeconds(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
