// Parsing and checking command-line values. Each failure is a CliError with one line naming the flag and what it
// takes, and quoting what was given (flags never carry secrets).
import { DEFAULT_NAMESPACE, type ObjectKey } from '../pipeline/model.js';
import { durationMs, formatDuration } from '../util/duration.js';
import { CliError } from './errors.js';
import { isHttpUrl } from '../util/http-url.js';

/** `30s`, `5m`, `1h`, `1h30m`, `1500ms` → milliseconds, within `bounds` (default: at least 1 ms). */
export function parseDuration(text: string, flag: string, bounds: { minMs?: number; maxMs?: number } = {}): number {
  const ms = durationMs(text);
  if (ms === undefined) {
    throw new CliError(`${flag} must be a duration such as 30s, 5m or 1h (got ${JSON.stringify(text)})`);
  }
  const { minMs = 1, maxMs = Number.MAX_SAFE_INTEGER } = bounds;
  if (ms < minMs || ms > maxMs) {
    throw new CliError(
      `${flag} must be from ${formatDuration(minMs)} to ${formatDuration(maxMs)} (got ${JSON.stringify(text)})`,
    );
  }
  return ms;
}

/** Where `serve` and the demo's receiver listen unless told: the port Flux's notification Providers name. */
export const DEFAULT_RECEIVER_PORT = '8080';

/**
 * Where `pipelinectl dashboard` listens unless told: not the receiver's, so that it runs beside `serve` or the demo on
 * their data directory.
 */
export const DEFAULT_DASHBOARD_PORT = '8090';

/** A TCP port, 0 (any free port) to 65535. */
export function parsePort(text: string, flag = '--port'): number {
  const value = text.trim();
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new CliError(`${flag} must be a whole number from 0 to 65535 (got ${JSON.stringify(text)})`);
  }
  return port;
}

/** A host name or IP address to listen on. */
export function parseHost(text: string, flag = '--host'): string {
  const value = text.trim();
  if (!/^(?:[A-Za-z0-9.-]+|\[?[0-9A-Fa-f:.]+\]?)$/.test(value)) {
    throw new CliError(`${flag} must be a host name or an IP address such as 127.0.0.1 (got ${JSON.stringify(text)})`);
  }
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}

const DNS_1123 = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** `namespace/name` of a Kubernetes object (a bare `name` is in `default`, as with kubectl). */
export function parseObjectKey(text: string, flag: string): ObjectKey {
  const parts = text.trim().split('/');
  const [namespace, name] = parts.length === 1 ? [DEFAULT_NAMESPACE, parts[0]] : parts;
  if (parts.length > 2 || !namespace || !name || !DNS_1123.test(namespace) || !DNS_1123.test(name)) {
    throw new CliError(
      `${flag} must be NAMESPACE/NAME in lowercase letters, digits, "-" and "." (got ${JSON.stringify(text)})`,
    );
  }
  return { namespace, name };
}

/** An absolute http(s) URL, without a trailing slash. */
export function parseHttpUrl(text: string, flag: string): string {
  const value = text.trim();
  if (!isHttpUrl(value)) {
    throw new CliError(`${flag} must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  }
  return value.replace(/\/+$/, '');
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * A point in the past as `--since` takes it: a duration back from `now` (`30m`, `24h`, `7d`, `1d12h`; days are
 * accepted here only, where a look back of weeks is usual) or an ISO 8601 date or time (`2026-11-01`,
 * `2026-11-01T09:30:00Z`; a date alone is midnight UTC).
 */
export function parseSince(text: string, flag: string, now: Date): Date {
  const value = text.trim();
  if (ISO_DATE.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new Date(time);
  }
  const days = /^(\d+)d(.*)$/.exec(value);
  const rest = days ? days[2] : value;
  const restMs = rest === '' ? 0 : durationMs(rest ?? '');
  if (restMs === undefined || (days === null && rest === '')) {
    throw new CliError(
      `${flag} must be a duration such as 30m, 24h or 7d, or a date such as 2026-11-01 (got ${JSON.stringify(text)})`,
    );
  }
  return new Date(now.getTime() - Number(days?.[1] ?? 0) * DAY_MS - restMs);
}
