// A PipelineSet's expansion (docs/pipeline-sets.md): each element of its generators yields one ordinary Pipeline
// document, the template with `{{ key }}` replaced by the element's values in every string. The generated documents
// are then validated and checked exactly as hand-written ones are (load.ts), their problems named with the set's file
// and the element, at the template's place in it. Pure: the `apps` generator's elements are given by the caller
// (what the poll's LIST found), none when unknown.
import { PIPELINE_SET_LABEL } from '../pipeline/pipeline-set.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { ConfigProblem } from './problems.js';
import {
  MAX_GENERATED_PIPELINES,
  PIPELINE_API_VERSION,
  PipelineSetDocument as PipelineSetSchema,
  type AppsGenerator,
  type GeneratorElement,
  type PipelineSetDocument,
} from './schema.js';
import { problemAt, type DocumentAt } from './validate.js';
import type { SourceDocument } from './yaml-source.js';
import { isRecord } from '../util/is-record.js';

/** The elements an `apps` generator has now (one per matching app object), or undefined when that is not known. */
export type AppsElements = (
  set: ObjectKey,
  generator: AppsGenerator,
  index: number,
) => readonly GeneratorElement[] | undefined;

export interface Expansion {
  /** One document per element, in generator then element order, located in the set's template. */
  generated: DocumentAt[];
  /** What cannot be generated: a `{{ key }}` an element lacks, too many elements. */
  problems: ConfigProblem[];
}

/** `{{ app }}`, `{{team}}`: what the template's strings may hold. */
const PLACEHOLDER = /\{\{\s*([^{}\s]*)\s*\}\}/g;

/** Expands a valid PipelineSet (`at` is where it was read, `set` its validated value) into Pipeline documents. */
export function expandPipelineSet(at: DocumentAt, set: PipelineSetDocument, appsElements?: AppsElements): Expansion {
  const setKey = keyOfMetadata(set.metadata);
  const elements: { element: GeneratorElement; name: string }[] = [];
  set.spec.generators.forEach((generator, index) => {
    const found = generator.list?.elements ?? (generator.apps && appsElements?.(setKey, generator.apps, index)) ?? [];
    found.forEach((element, position) => elements.push({ element, name: elementName(element, index, position) }));
  });
  if (elements.length > MAX_GENERATED_PIPELINES) {
    const message =
      `the generators yield ${elements.length} elements; a PipelineSet may generate at most ` +
      `${MAX_GENERATED_PIPELINES} pipelines: split it into several sets`;
    return { generated: [], problems: [problemAt(at, ['spec', 'generators'], message)] };
  }
  const generated: DocumentAt[] = [];
  const problems: ConfigProblem[] = [];
  for (const { element, name } of elements) {
    const label = `PipelineSet ${objectKeyString(setKey)} (${name})`;
    const missing: { path: PropertyKey[]; key: string }[] = [];
    const fill = (value: unknown, path: PropertyKey[]) => substitute(value, element, path, missing);
    const { metadata, spec } = set.spec.template;
    const value = {
      apiVersion: PIPELINE_API_VERSION,
      kind: 'Pipeline',
      metadata: {
        name: fill(metadata.name, ['metadata', 'name']),
        namespace: setKey.namespace,
        labels: {
          ...(fill(metadata.labels ?? {}, ['metadata', 'labels']) as object),
          [PIPELINE_SET_LABEL]: setKey.name,
        },
        ...(metadata.annotations && { annotations: fill(metadata.annotations, ['metadata', 'annotations']) }),
      },
      spec: fill(spec, ['spec']),
    };
    const document: DocumentAt = { source: templateSource(at, value), path: [], value, label };
    if (missing.length > 0) {
      const keys = Object.keys(element).join(', ') || 'none';
      for (const { path, key } of missing) {
        const message =
          key === ''
            ? '"{{ }}" names no key: write {{ key }} with a key of the element'
            : `the element has no key "${key}" (its keys: ${keys})`;
        problems.push(problemAt(document, path, message));
      }
      continue;
    }
    generated.push(document);
  }
  return { generated, problems };
}

/**
 * The documents a PipelineSet generates, read leniently (none when it is not a valid PipelineSet): for what is looked
 * up before the load (the stored Secrets the generated pipelines refer to), which validates it.
 */
export function generatedDocuments(at: DocumentAt, appsElements?: AppsElements): DocumentAt[] {
  if (!isRecord(at.value) || at.value.kind !== 'PipelineSet') return [];
  const parsed = PipelineSetSchema.safeParse(at.value);
  return parsed.success ? expandPipelineSet(at, parsed.data, appsElements).generated : [];
}

/** `element app=frontend` (by its `app`), else by its keys, else by its place: `element 3 of generators[0]`. */
function elementName(element: GeneratorElement, generator: number, position: number): string {
  if (element.app !== undefined) return `element app=${String(element.app)}`;
  const pairs = Object.entries(element).map(([key, value]) => `${key}=${String(value)}`);
  return pairs.length > 0 ? `element ${pairs.join(', ')}` : `element ${position + 1} of generators[${generator}]`;
}

/** A copy of a template value with every `{{ key }}` of its strings replaced; keys of mappings are kept as written. */
function substitute(
  value: unknown,
  element: GeneratorElement,
  path: PropertyKey[],
  missing: { path: PropertyKey[]; key: string }[],
): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (placeholder, key: string) => {
      const replacement = element[key];
      if (replacement !== undefined && key !== '') return String(replacement);
      missing.push({ path, key });
      return placeholder;
    });
  }
  if (Array.isArray(value))
    return value.map((item: unknown, index) => substitute(item, element, [...path, index], missing));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substitute(item, element, [...path, key], missing)]),
    );
  }
  return value;
}

/**
 * The generated document as a source of its own, whose fields are located at the template's in the set's file:
 * `spec.environments[0]` of the Pipeline is `spec.template.spec.environments[0]` of the set.
 */
function templateSource(at: DocumentAt, value: unknown): SourceDocument {
  const template = [...at.path, 'spec', 'template'];
  return {
    file: at.source.file,
    index: at.source.index,
    value,
    // The set's own reserved keys are refused with the set.
    reservedKeys: [],
    locate: (path) => {
      const [first, ...rest] = path;
      if (first === 'spec' || first === 'metadata') return at.source.locate([...template, first, ...rest]);
      return at.source.locate(template);
    },
  };
}

/**
 * One problem for what is wrong the same way in many elements of a set (a template's mistake is each element's): the
 * first element's, saying how many more share it, so that a set of 300 does not print 300 equal lines. Problems that
 * differ (an element's own value in the message) are kept apart.
 */
export function collapseElementProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const kept: ConfigProblem[] = [];
  const first = new Map<string, { problem: ConfigProblem; more: number }>();
  for (const problem of problems) {
    const set = problem.document === undefined ? undefined : ELEMENT_LABEL.exec(problem.document)?.[1];
    if (set === undefined) {
      kept.push(problem);
      continue;
    }
    const id = JSON.stringify([set, problem.file, problem.line, problem.column, problem.path, problem.message]);
    const seen = first.get(id);
    if (seen) {
      seen.more += 1;
      continue;
    }
    const entry = { problem: { ...problem }, more: 0 };
    first.set(id, entry);
    kept.push(entry.problem);
  }
  for (const { problem, more } of first.values()) {
    if (more > 0) problem.message += ` (and ${more} more element${more === 1 ? '' : 's'} of the set)`;
  }
  return kept;
}

/** `PipelineSet ns/name (element …)`: the label of a generated document, with its set. */
const ELEMENT_LABEL = /^(PipelineSet \S+) \(element /;
