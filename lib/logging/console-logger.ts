// The logger of the local mode as `pipelinectl serve` and `demo` run it: JSON lines when the output is not a terminal
// (for a log collector), short readable lines on a terminal. Attributes whose names say they hold a credential are
// replaced by `[redacted]` wherever they are nested: lib/ never logs a Secret value, and this is the belt to those
// braces. Every string written (message, attribute names and values, error texts) goes through `printable`, in JSON
// lines too: JSON.stringify escapes C0 controls but leaves C1 controls and bidi overrides raw; messages and values
// are redacted before (`loggableText`).
import type { Logger } from './logger.js';
import { loggable, loggableText } from './loggable.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface ConsoleLoggerOptions {
  /** Default process.stdout. */
  stream?: { write(text: string): unknown; isTTY?: boolean };
  /** Default: `text` when the stream is a terminal, else `json`. */
  format?: 'json' | 'text';
  /** The lowest level written. Default `info`, or `debug` when PIPELINECTL_DEBUG=1. */
  level?: LogLevel;
  now?: () => Date;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Fields of a JSON line; an attribute with one of these names is written with a leading `_`. */
const RESERVED = new Set(['time', 'level', 'message']);

export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stdout;
  const format = options.format ?? (stream.isTTY ? 'text' : 'json');
  const threshold = LEVELS[options.level ?? (process.env.PIPELINECTL_DEBUG === '1' ? 'debug' : 'info')];
  const now = options.now ?? (() => new Date());
  const write = (level: LogLevel, message: string, attributes: Record<string, unknown> = {}): void => {
    if (LEVELS[level] < threshold) return;
    const safe = loggable(attributes) as Record<string, unknown>;
    const text = loggableText(message);
    stream.write(`${format === 'json' ? jsonLine(now(), level, text, safe) : textLine(now(), level, text, safe)}\n`);
  };
  return {
    debug: (message, attributes) => write('debug', message, attributes),
    info: (message, attributes) => write('info', message, attributes),
    warn: (message, attributes) => write('warn', message, attributes),
    error: (message, attributes) => write('error', message, attributes),
  };
}

function jsonLine(time: Date, level: LogLevel, message: string, attributes: Record<string, unknown>): string {
  const line: Record<string, unknown> = { time: time.toISOString(), level, message };
  for (const [name, value] of Object.entries(attributes)) line[RESERVED.has(name) ? `_${name}` : name] = value;
  return JSON.stringify(line);
}

/** `12:00:05 message key=value …`; warnings and errors carry their level. */
function textLine(time: Date, level: LogLevel, message: string, attributes: Record<string, unknown>): string {
  const clock = time.toTimeString().slice(0, 8);
  const parts = [clock];
  if (level !== 'info') parts.push(level.toUpperCase());
  parts.push(message);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    parts.push(`${name}=${textValue(value)}`);
  }
  return parts.join(' ');
}

function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
