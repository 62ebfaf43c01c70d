// How a zod issue reads in a message: the schema's field names, never the input's values (which may come from an
// untrusted webhook body or a cluster). Its own module, apart from the Flux schemas in conditions.ts, so that the
// receiver's event parsing (event.ts, written against zod/mini) does not load zod's classic API with them.
import type { core } from 'zod/mini';

/**
 * The first zod issue as a short phrase that names schema fields but never repeats input values. Keys under a
 * path listed in `dynamicKeysAt` come from the input (a map's keys), so the path stops there. Takes the error of
 * a classic or a zod/mini schema alike.
 */
export function describeIssue(error: core.$ZodError, input: unknown, dynamicKeysAt: readonly string[] = []): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path: string[] = [];
  let value = input;
  for (const segment of issue.path) {
    path.push(String(segment));
    if (typeof segment === 'string' && dynamicKeysAt.includes(segment) && path.length < issue.path.length) {
      return `${path.join('.')} has an invalid entry`;
    }
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  const where = path.length > 0 ? path.join('.') : 'value';
  // zod 4 leaves the input out of its issues, so whether the field is missing is read from the input itself.
  if (issue.code === 'invalid_type')
    return value === undefined ? `${where} is missing` : `${where} must be ${noun(issue.expected)}`;
  if (issue.code === 'too_small' && issue.origin === 'string') return `${where} must not be empty`;
  return `${where} is invalid`;
}

function noun(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
