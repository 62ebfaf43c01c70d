// Recurring freeze windows (docs/freeze.md): whether one holds at an instant, and until when. Pure: the time is
// passed in, and the only thing consulted is the runtime's time-zone database (Intl), so the answer follows the
// zone's daylight-saving changes without a dependency.
//
// Windows are evaluated as instants, not by comparing wall-clock readings: each occurrence of a window is resolved to
// a [start, end) pair of instants in its zone, then the occurrences are compared. A wall time that does not exist (the
// hour skipped in spring) resolves to the first instant after the skip, and one that occurs twice (the hour repeated
// in autumn) to its first occurrence, so every occurrence is one unbroken stretch of time.
import type { FreezeWindow } from './environment-policies.js';

/** A window end as written: `Fri 16:00` (weekly) or `16:00` (daily). */
export interface WindowTime {
  /** 0 = Sunday … 6 = Saturday, as `Date.getUTCDay`; absent for a daily window. */
  weekday?: number;
  /** Minutes after local midnight, 0 … 1439. */
  minutes: number;
}

/** The window holding an instant, and the first instant after it when no window of the list holds. */
export interface ActiveFreezeWindow {
  window: FreezeWindow;
  endsAt: Date;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const DAY_MINUTES = 1440;
const WEEK_MINUTES = 7 * DAY_MINUTES;

/**
 * How far ahead windows are chained. Windows recur every week, so a list with any gap shows it within a week and a
 * day (DST can swallow a gap of under an hour on one day only); a chain that reaches this far never ends.
 */
export const FREEZE_HORIZON_MS = 15 * DAY_MS;

/**
 * `Fri 16:00`, `fri 16:00`, `16:00`, `8:00`: an optional three-letter English weekday (any case), then a 24-hour
 * time from 00:00 to 23:59. `24:00` is refused: midnight is written `00:00` at either end.
 */
export function parseWindowTime(text: string): WindowTime | undefined {
  const match = /^(?:([A-Za-z]{3})\s+)?(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const [, day, hours, minutes] = match;
  const hour = Number(hours);
  const minute = Number(minutes);
  if (hour > 23 || minute > 59) return undefined;
  if (day === undefined) return { minutes: hour * 60 + minute };
  const weekday = WEEKDAYS.findIndex((name) => name.toLowerCase() === day.toLowerCase());
  return weekday < 0 ? undefined : { weekday, minutes: hour * 60 + minute };
}

/** IANA names as the database spells them (`Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`, `UTC`). */
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * Whether `name` is an IANA time zone the runtime knows, spelled as the database spells it. Other casings
 * (`europe/berlin`) and offsets (`+05:30`), which Intl takes (offsets in newer runtimes), are refused: one zone has one
 * name in a Pipeline.
 */
export function isTimeZone(name: string): boolean {
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** `Fri 16:00–Mon 08:00 Europe/Berlin`, `22:00–06:00 UTC`: a window for messages, its ends normalised. */
export function describeWindow(window: FreezeWindow): string {
  const end = (text: string) => {
    const time = parseWindowTime(text);
    return time ? formatWindowTime(time) : text;
  };
  return `${end(window.from)}–${end(window.to)} ${window.timeZone}`;
}

function formatWindowTime(time: WindowTime): string {
  const clock = `${String(Math.floor(time.minutes / 60)).padStart(2, '0')}:${String(time.minutes % 60).padStart(2, '0')}`;
  return time.weekday === undefined ? clock : `${WEEKDAYS[time.weekday]} ${clock}`;
}

/**
 * The window of `windows` that holds `now` (the first in list order when several do), or undefined. `endsAt` is the
 * first instant after `now` when none of them holds: windows that overlap or touch are chained, so a promotion does
 * not start in the instant between one window's end and the next one's start. A window's `from` is inside it, its
 * `to` is not. When the windows leave no gap at all, `endsAt` is FREEZE_HORIZON_MS after `now`: not an end, but the
 * time to look again. A window that is not valid (the schema refuses it) never holds.
 */
export function activeFreezeWindow(windows: readonly FreezeWindow[], now: Date): ActiveFreezeWindow | undefined {
  const at = now.getTime();
  // Most of the time no window holds: the occurrences of the days around `now` say so before any chaining.
  const holds = (occurrence: Occurrence, instant: number) => occurrence.start <= instant && instant < occurrence.end;
  const near = windows.flatMap((window) => occurrencesAround(window, at, 1));
  const holding = near.find((occurrence) => holds(occurrence, at));
  if (!holding) return undefined;
  const horizon = at + FREEZE_HORIZON_MS;
  const occurrences = windows.flatMap((window) => occurrencesAround(window, at, FREEZE_HORIZON_MS / DAY_MS + 1));
  let end = at;
  while (end < horizon) {
    const next = Math.max(end, ...occurrences.filter((occurrence) => holds(occurrence, end)).map(({ end }) => end));
    if (next === end) break;
    end = next;
  }
  return { window: holding.window, endsAt: new Date(Math.min(end, horizon)) };
}

/** Whether the windows together hold at every instant: promotions would never start (the schema refuses such a list). */
export function holdsForever(windows: readonly FreezeWindow[]): boolean {
  // Any instant does: a list that always holds holds at it and never ends; one with a gap ends before the horizon.
  const probe = new Date(Date.UTC(2024, 0, 1));
  const active = activeFreezeWindow(windows, probe);
  return active !== undefined && active.endsAt.getTime() - probe.getTime() >= FREEZE_HORIZON_MS;
}

interface Occurrence {
  window: FreezeWindow;
  /** Epoch milliseconds, inclusive. */
  start: number;
  /** Epoch milliseconds, exclusive. */
  end: number;
}

/** A valid window: where it starts, and how long it lasts in wall-clock minutes. */
interface WindowShape {
  from: WindowTime;
  /** Minutes from `from` to `to`, going forward (so a window that wraps has a positive length too). */
  length: number;
}

function shapeOf(window: FreezeWindow): WindowShape | undefined {
  const from = parseWindowTime(window.from);
  const to = parseWindowTime(window.to);
  if (!from || !to || (from.weekday === undefined) !== (to.weekday === undefined)) return undefined;
  if (!isTimeZone(window.timeZone)) return undefined;
  const period = from.weekday === undefined ? DAY_MINUTES : WEEK_MINUTES;
  const offset = (time: WindowTime) => (time.weekday ?? 0) * DAY_MINUTES + time.minutes;
  const length = (((offset(to) - offset(from)) % period) + period) % period;
  return length === 0 ? undefined : { from, length };
}

/**
 * The occurrences of a window that start on the local dates (in its zone) from eight days before `at` to `daysAhead`
 * after it: the one holding `at` is among them (none is longer than a week and an hour).
 */
function occurrencesAround(window: FreezeWindow, at: number, daysAhead: number): Occurrence[] {
  const shape = shapeOf(window);
  if (!shape) return [];
  const zone = zoneClock(window.timeZone);
  const today = Math.floor(zone.wallTime(at) / DAY_MS);
  const found: Occurrence[] = [];
  for (let day = today - 8; day <= today + daysAhead; day++) {
    if (shape.from.weekday !== undefined && weekdayOf(day) !== shape.from.weekday) continue;
    const startWall = day * DAY_MS + shape.from.minutes * MINUTE_MS;
    const start = zone.instantOf(startWall);
    const end = zone.instantOf(startWall + shape.length * MINUTE_MS);
    // Both ends inside one skipped hour resolve to the same instant: that day the window does not occur.
    if (start < end) found.push({ window, start, end });
  }
  return found;
}

/** Days since 1970-01-01 (a Thursday) → 0 = Sunday … 6 = Saturday. */
function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/**
 * A zone's clock. A wall time is written as the epoch milliseconds a UTC clock would show at that reading, so that
 * local dates and times can be counted with plain arithmetic.
 */
interface ZoneClock {
  /** The wall time at an instant. */
  wallTime(instant: number): number;
  /** The first instant reading `wall`; for a wall time that is skipped, the first instant after the skip. */
  instantOf(wall: number): number;
}

const clocks = new Map<string, ZoneClock>();

function zoneClock(timeZone: string): ZoneClock {
  const cached = clocks.get(timeZone);
  if (cached) return cached;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  /** Wall time minus instant, at an instant (to the second: what formatToParts shows). */
  const offsetAt = (instant: number): number => {
    const second = Math.floor(instant / 1000) * 1000;
    const part: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
    for (const { type, value } of format.formatToParts(second)) part[type] = Number(value);
    const wall = Date.UTC(part.year ?? 1970, (part.month ?? 1) - 1, part.day, part.hour, part.minute, part.second);
    return wall - second;
  };
  const clock: ZoneClock = {
    wallTime: (instant) => instant + offsetAt(instant),
    instantOf: (wall) => {
      // The offsets a day either side: real zones change at most once in two days, so these are the candidates.
      const before = offsetAt(wall - DAY_MS);
      const after = offsetAt(wall + DAY_MS);
      if (before === after) return wall - before;
      const readings = [...new Set([before, offsetAt(wall), after])]
        .map((offset) => wall - offset)
        .filter((instant) => clock.wallTime(instant) === wall);
      if (readings.length > 0) return Math.min(...readings);
      // Skipped: the change happened between the instants reading `wall` under the later and the earlier offset.
      // Find, to the second, the first instant whose reading is past `wall`.
      let low = Math.floor((wall - Math.max(before, after)) / 1000);
      let high = Math.ceil((wall - Math.min(before, after)) / 1000);
      while (low < high) {
        const middle = Math.floor((low + high) / 2);
        if (clock.wallTime(middle * 1000) > wall) high = middle;
        else low = middle + 1;
      }
      return low * 1000;
    },
  };
  clocks.set(timeZone, clock);
  return clock;
}
