// How a zod issue reads in a message, in one place for every schema (classic zod and zod/mini alike). Only types
// are imported, from zod/mini, so that the receiver's event parsing, written against zod/mini, does not load zod's
// classic API through this module (test/infra/receiver-zod-mini.test.ts).
import type { core } from 'zod/mini';

export interface DescribeIssueOptions {
  /** Keys under these path segments come from the input (a map's keys): the path stops there. */
  dynamicKeysAt?: readonly string[];
  /** What the whole input is called when the issue is at its root: `value` unless said otherwise. */
  whole?: string;
  /** A discriminated union: the discriminator's field and its values, so a wrong one is named as such. */
  discriminator?: { field: string; values: readonly string[] };
}

/**
 * The first zod issue as a short phrase that names schema fields but never repeats input values (which may come from
 * an untrusted webhook body, a queue message or a cluster).
 */
export function describeIssue(error: core.$ZodError, input: unknown, options: DescribeIssueOptions = {}): string {
  const { dynamicKeysAt = [], whole = 'value', discriminator } = options;
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path: string[] = [];
  for (const segment of issue.path) {
    path.push(String(segment));
    if (typeof segment === 'string' && dynamicKeysAt.includes(segment) && path.length < issue.path.length) {
      return `${path.join('.')} has an invalid entry`;
    }
  }
  const value = valueAt(input, issue.path);
  const where = path.length > 0 ? path.join('.') : whole;
  // zod 4 leaves the input out of its issues, so whether the field is missing is read from the input itself.
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? `${where} is missing` : `${where} must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'string' ? `${where} must not be empty` : `${where} is too small`;
    case 'invalid_union':
      // zod reports a discriminator that matches no member at the discriminator's path.
      if (discriminator === undefined || where !== discriminator.field) return `${where} is invalid`;
      return value === undefined ? `${where} is missing` : `${where} is not one of ${discriminator.values.join(', ')}`;
    case 'invalid_value':
      return `${where} is not an allowed value`;
    default:
      return `${where} is invalid`;
  }
}

/**
 * The first zod issue as `path: message`, for data we wrote ourselves (a backup file, a table item), where zod's own
 * message may be shown: `whole` stands for the path when the issue is at the root, or the message stands alone.
 */
export function issueText(error: core.$ZodError, whole?: string): string {
  const issue = error.issues[0];
  return issue ? issueLine(issue, whole) : 'not valid';
}

/** One issue as `path: message` (see `issueText`). */
export function issueLine(issue: core.$ZodIssue, whole?: string): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : whole;
  return where === undefined ? issue.message : `${where}: ${issue.message}`;
}

/** What the input holds at an issue's path (zod 4 leaves the input out of its issues); undefined where nothing is. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function article(expected: string): string {
  const noun = expected === 'int' ? 'integer' : expected;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
