// Validating one document against its kind's schema, with problems that name the field and its place in the file.
import type * as z from 'zod';
import { DOCUMENT_SCHEMAS, type DocumentKind } from './schema.js';
import { formatPath, type ConfigProblem } from './problems.js';
import { secretValueProblems } from './secret-values.js';
import type { SourceDocument } from './yaml-source.js';
import { isRecord } from '../util/is-record.js';
import { closestName } from '../util/closest-name.js';
import { fieldProblems, knownKeysAt, valueAt } from '../util/zod-issue.js';

export type ValidDocument =
  | { kind: 'Pipeline'; value: z.infer<(typeof DOCUMENT_SCHEMAS)['Pipeline']['schema']> }
  | { kind: 'GitopsCluster'; value: z.infer<(typeof DOCUMENT_SCHEMAS)['GitopsCluster']['schema']> }
  | { kind: 'Secret'; value: z.infer<(typeof DOCUMENT_SCHEMAS)['Secret']['schema']> }
  | { kind: 'ConfigSource'; value: z.infer<(typeof DOCUMENT_SCHEMAS)['ConfigSource']['schema']> }
  | { kind: 'PipelineSet'; value: z.infer<(typeof DOCUMENT_SCHEMAS)['PipelineSet']['schema']> };

/** A document as found in a file, before or after validation: `path` is its place inside a `List`, if any. */
export interface DocumentAt {
  source: SourceDocument;
  /** Prefix of field paths inside the YAML document: `['items', 2]` for the third item of a List. */
  path: PropertyKey[];
  value: unknown;
  /** `Pipeline flux-system/podinfo`, or `document 2` (`document 2, items[0]` inside a List). */
  label: string;
}

const SUPPORTED_KINDS = Object.keys(DOCUMENT_SCHEMAS) as DocumentKind[];

/** Splits a `v1 List` (what `kubectl get -o yaml` writes for several objects) into its items. */
export function expandDocument(source: SourceDocument): DocumentAt[] {
  const value = source.value;
  const position = `document ${source.index + 1}`;
  if (isRecord(value) && value.kind === 'List' && Array.isArray(value.items)) {
    return value.items.map((item: unknown, i: number) => ({
      source,
      path: ['items', i],
      value: item,
      label: labelOf(item) ?? `${position}, items[${i}]`,
    }));
  }
  return [{ source, path: [], value, label: labelOf(value) ?? position }];
}

/** A problem at a field of a document (path relative to the document, as the user sees it). */
export function problemAt(at: DocumentAt, path: readonly PropertyKey[], message: string): ConfigProblem {
  const position = at.source.locate([...at.path, ...path]);
  return {
    file: at.source.file,
    line: position?.line,
    column: position?.column,
    document: at.label,
    path: path.length > 0 ? formatPath(path) : undefined,
    message,
  };
}

export function validateDocument(at: DocumentAt): { document?: ValidDocument; problems: ConfigProblem[] } {
  const problem = (path: readonly PropertyKey[], message: string) => problemAt(at, path, message);

  // A `__proto__` key is lost on the way to the store (a JavaScript object takes it as its prototype), so a
  // document with one cannot be applied as written; refusing it is safer than keeping it in a few places only.
  const reserved = reservedKeysOf(at);
  if (reserved.length > 0) {
    return {
      problems: reserved.map((path) =>
        problem(
          path,
          'the key "__proto__" cannot be stored (JavaScript objects and JSON tools treat it specially, so its value ' +
            'would be lost): rename it',
        ),
      ),
    };
  }

  const value = at.value;
  if (!isRecord(value)) return { problems: [problem([], 'expected a Kubernetes object (a YAML mapping)')] };
  if (typeof value.kind !== 'string' || value.kind === '') return { problems: [problem(['kind'], 'is required')] };
  const kind = value.kind as DocumentKind;
  if (!SUPPORTED_KINDS.includes(kind)) {
    return {
      problems: [problem(['kind'], `unsupported kind "${value.kind}": expected ${SUPPORTED_KINDS.join(', ')}`)],
    };
  }
  const { apiVersion, schema } = DOCUMENT_SCHEMAS[kind];
  if (value.apiVersion !== apiVersion) {
    const found = typeof value.apiVersion === 'string' ? `"${value.apiVersion}"` : 'none';
    return { problems: [problem(['apiVersion'], `must be ${apiVersion} for a ${kind} (found ${found})`)] };
  }

  const result = schema.safeParse(value);
  if (result.success) {
    const document = { kind, value: result.data } as ValidDocument;
    const problems = document.kind === 'Secret' ? secretValueProblems(document.value, problem) : [];
    return problems.length > 0 ? { problems } : { document, problems };
  }
  const found = fieldProblems(result.error, value, (path, key) =>
    unknownFieldMessage(kind, path, key, nearField(schema, value, path, key)),
  );
  return { problems: found.map(({ path, message }) => problem(path, message)) };
}

/** The `__proto__` keys inside this document (or this item of a List), relative to it. */
function reservedKeysOf(at: DocumentAt): PropertyKey[][] {
  const prefix = at.path;
  return at.source.reservedKeys
    .filter((path) => prefix.every((segment, i) => path[i] === segment))
    .map((path) => path.slice(prefix.length));
}

function unknownFieldMessage(
  kind: DocumentKind,
  path: readonly PropertyKey[],
  key: string,
  near: string | undefined,
): string {
  // Early Weave releases put the strategy right under `promotion`; the CRD has required `promotion.strategy` since.
  if (path[path.length - 1] === 'promotion' && (key === 'pull-request' || key === 'notification')) {
    return `unknown field "${key}": move it under promotion.strategy (the current Weave Pipeline schema)`;
  }
  if (near !== undefined) return `unknown field "${key}" (not part of the ${kind} schema): did you mean ${near}?`;
  return `unknown field "${key}" (not part of the ${kind} schema; check its spelling and indentation)`;
}

/**
 * The known field of the mapping at `path` that an unknown `key` was most likely meant to be: at most two edits
 * away, a difference of case alone counting as none. A field the mapping already has is not suggested again.
 */
function nearField(
  schema: (typeof DOCUMENT_SCHEMAS)[DocumentKind]['schema'],
  document: unknown,
  path: readonly PropertyKey[],
  key: string,
): string | undefined {
  const present = valueAt(document, path);
  const known = knownKeysAt(schema, path).filter((field) => !(isRecord(present) && Object.hasOwn(present, field)));
  return closestName(key, known, { maxEdits: 2 });
}

function labelOf(value: unknown): string | undefined {
  if (!isRecord(value) || typeof value.kind !== 'string' || !isRecord(value.metadata)) return undefined;
  const { name, namespace } = value.metadata;
  if (typeof name !== 'string' || name === '') return undefined;
  return `${value.kind} ${typeof namespace === 'string' && namespace ? namespace : 'default'}/${name}`;
}
