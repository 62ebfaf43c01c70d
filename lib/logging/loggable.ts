// What every logger writes of a message and of an attribute value: a JSON-safe copy in which strings and names are
// printable (no control characters from outside reach a log line), errors are `{name, message}`, bigints strings,
// credentials redacted by the attribute's name and cycles cut. lib/ never logs a Secret value; the redaction is the
// belt to those braces. Text is also redacted (redaction.ts): a message from outside may repeat a credential. Used by
// the console logger and by the Lambda functions' Powertools logger alike.
import { printable } from './printable.js';
import { redact } from './redaction.js';

/** A message or string as a log line holds it: secrets and tokens redacted, then made printable. */
export function loggableText(text: string): string {
  return printable(redact(text));
}

/** Names of attributes that may hold a credential: their values are never written. */
const SENSITIVE = /token|password|passwd|secret|hmac|signature|authorization|kubeconfig|private.?key|credential/i;

/**
 * A JSON-safe, printable copy: strings and names through `printable`, errors as `{name, message}`, bigints as
 * strings, credentials redacted, cycles cut.
 */
export function loggable(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return loggableText(value);
  if (value instanceof Error) return { name: printable(value.name), message: loggableText(value.message) };
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => loggable(item, seen));
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    copy[printable(name)] = SENSITIVE.test(name) ? '[redacted]' : loggable(item, seen);
  }
  return copy;
}
