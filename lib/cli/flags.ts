// Parsing and checking command-line values. Each failure is a CliError with one line naming the flag and what it
// takes, and quoting what was given (flags never carry secrets).
import { DEFAULT_NAMESPACE, type ObjectKey } from '../pipeline/model.js';
import { CliError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** `30s`, `5m`, `1h`, `1h30m`, `1500ms` → milliseconds. */
export function parseDuration(text: string, flag: string, bounds: { minMs?: number; maxMs?: number } = {}): number {
  const value = text.trim();
  if (!DURATION.test(value)) {
    throw new CliError(`${flag} must be a duration such as 30s, 5m or 1h (got ${JSON.stringify(text)})`);
  }
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(DURATION_PART)) ms += Number(amount) * (UNIT_MS[unit ?? ''] ?? 0);
  ms = Math.round(ms);
  const { minMs = 1, maxMs = Number.MAX_SAFE_INTEGER } = bounds;
  if (ms < minMs || ms > maxMs) {
    throw new CliError(
      `${flag} must be from ${formatDuration(minMs)} to ${formatDuration(maxMs)} (got ${JSON.stringify(text)})`,
    );
  }
  return ms;
}

/** The shortest exact writing of a duration: `1h30m`, `5m`, `1500ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] ?? 1;
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}

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
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new CliError(`${flag} must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  }
  return value.replace(/\/+$/, '');
}
