// How a zod issue reads in a message, in one place for every schema (classic zod and zod/mini alike): no other module
// reads a zod error's issues. Input from outside (a webhook body, a queue message, a cluster, a Git host's answer) is
// described by `describeIssue`, which names fields and never repeats a value; configuration people write by
// `fieldProblems`; data we wrote ourselves, or schemas whose every message is their own, by their messages. Only types
// are imported, from zod/mini, so that the receiver's event parsing, written against zod/mini, does not load zod's
// classic API through this module (test/infra/zod-mini.test.ts).
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
    case 'invalid_format':
      return issue.format === 'datetime' ? `${where} must be an ISO 8601 time` : `${where} is invalid`;
    default:
      return `${where} is invalid`;
  }
}

/** The field an issue is at, `status.history.0.chartVersion`; empty at the root. */
export function fieldOf(issue: core.$ZodIssue): string {
  return issue.path.map(String).join('.');
}

/**
 * The first issue a refinement raised with `params` that `isParams` recognises, with its field: how a check hands the
 * caller what its message needs (a value the check judged, which the caller decides whether to show).
 */
export function customIssue<P extends Record<string, unknown>>(
  error: core.$ZodError,
  isParams: (params: Record<string, unknown>) => params is P,
): { field: string; params: P } | undefined {
  for (const issue of error.issues) {
    if (issue.code === 'custom' && issue.params !== undefined && isParams(issue.params)) {
      return { field: fieldOf(issue), params: issue.params };
    }
  }
  return undefined;
}

/** The fields of every issue, each once, in order: which inputs are wrong, without a word on what they hold. */
export function issueFields(error: core.$ZodError): string[] {
  return [...new Set(error.issues.map(fieldOf))];
}

/**
 * The first issue's message as the schema wrote it, for schemas that give every check its own message (`must be a
 * list of strings`) about the whole value: the field inside it would add nothing.
 */
export function schemaMessage(error: core.$ZodError): string {
  return error.issues[0]?.message ?? 'is invalid';
}

/** A problem at a field of a document people write: the field's path and what is wrong there. */
export interface FieldProblem {
  path: PropertyKey[];
  /** `is required`, `must be a mapping (found a string)`, or the schema's own message: never the value. */
  message: string;
}

/**
 * Every issue of a document people write (a YAML configuration file) as a problem at its field: zod's wording for
 * the common cases made shorter and in YAML's terms, the schema's own messages as they are. An unknown key is one
 * problem per key, at the key, worded by `unknownField` (default `unknown field "name"`).
 */
export function fieldProblems(
  error: core.$ZodError,
  input: unknown,
  unknownField: (path: readonly PropertyKey[], key: string) => string = (_path, key) => `unknown field "${key}"`,
): FieldProblem[] {
  return error.issues.flatMap((issue): FieldProblem[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key], message: unknownField(issue.path, key) }))
      : [{ path: [...issue.path], message: fieldMessage(issue, valueAt(input, issue.path)) }],
  );
}

function fieldMessage(issue: core.$ZodIssue, found: unknown): string {
  if (found === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) return 'is required';
  if (issue.code === 'invalid_type') return `must be ${yamlType(issue.expected)} (found ${yamlTypeOf(found)})`;
  return issue.message;
}

function yamlType(type: string): string {
  const names: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'a string',
    boolean: 'true or false',
    number: 'a number',
  };
  return names[type] ?? type;
}

/** Names the type of what was found, never the value itself (it may come from a Secret). */
function yamlTypeOf(found: unknown): string {
  if (found === null) return 'null';
  if (Array.isArray(found)) return 'a list';
  if (typeof found === 'object') return 'a mapping';
  return `a ${typeof found}`;
}

/**
 * The first zod issue as `path: message`, for data we wrote ourselves (a backup file, a table item), where zod's own
 * message may be shown: `whole` stands for the path when the issue is at the root, or the message stands alone.
 */
export function issueText(error: core.$ZodError, whole?: string): string {
  const issue = error.issues[0];
  return issue ? issueLine(issue, whole) : 'not valid';
}

/** Every issue as `path: message` (see `issueText`), for settings whose schema words every message itself. */
export function issueLines(error: core.$ZodError, whole?: string): string[] {
  return error.issues.map((issue) => issueLine(issue, whole));
}

function issueLine(issue: core.$ZodIssue, whole?: string): string {
  const where = issue.path.length > 0 ? fieldOf(issue) : whole;
  return where === undefined ? issue.message : `${where}: ${issue.message}`;
}

/**
 * The fields a schema knows for the mapping at `path` (map keys and list indexes step into a record's values and a
 * list's items; a union's members all count): what an `unrecognized_keys` issue does not say, for a "did you mean"
 * hint. Empty when no mapping of known fields is there.
 */
export function knownKeysAt(schema: core.$ZodType, path: readonly PropertyKey[]): string[] {
  let schemas = [schema];
  for (const segment of path) schemas = schemas.flatMap((s) => childSchemas(s, segment));
  return [...new Set(schemas.flatMap((s) => unwrapped(s).flatMap(objectKeys)))];
}

function objectKeys(schema: core.$ZodType): string[] {
  const def = (schema as core.$ZodTypes)._zod.def;
  return def.type === 'object' ? Object.keys(def.shape) : [];
}

function childSchemas(schema: core.$ZodType, segment: PropertyKey): core.$ZodType[] {
  return unwrapped(schema).flatMap((inner): core.$ZodType[] => {
    const def = (inner as core.$ZodTypes)._zod.def;
    switch (def.type) {
      case 'object': {
        const field = typeof segment === 'string' ? def.shape[segment] : undefined;
        return field ? [field] : [];
      }
      case 'array':
        return [def.element];
      case 'record':
        return [def.valueType];
      default:
        return [];
    }
  });
}

/** The schemas a value is checked against under wrappers (optional, default, a pipe's input, a union's members). */
function unwrapped(schema: core.$ZodType, depth = 0): core.$ZodType[] {
  if (depth > 20) return [];
  const def = (schema as core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return unwrapped(def.innerType, depth + 1);
    case 'pipe':
      return unwrapped(def.in, depth + 1);
    case 'lazy':
      return unwrapped(def.getter(), depth + 1);
    case 'union':
      return def.options.flatMap((option) => unwrapped(option, depth + 1));
    case 'intersection':
      return [...unwrapped(def.left, depth + 1), ...unwrapped(def.right, depth + 1)];
    default:
      return [schema];
  }
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
