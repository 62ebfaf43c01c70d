// Loading a configuration: files or directories of multi-document YAML → validated, resolved documents, or every
// problem at once. Nothing is returned (so nothing can be applied) unless the whole configuration is valid.
import type { GitopsClusterDocument, PipelineDocument, SecretDocument } from './schema.js';
import { resolvePipeline, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import type { ConfigProblem } from './problems.js';
import { checkReferences, keyOf, namedDocument, type KnownSecret, type NamedDocument } from './references.js';
import { expandDocument, validateDocument, type DocumentAt, type ValidDocument } from './validate.js';
import { findConfigFiles, parseConfigText, readConfigFile, type SourceDocument } from './yaml-source.js';

export interface LoadOptions {
  /** The GitopsCluster that targets without a clusterRef run on. */
  defaultCluster?: ObjectKey;
  /** What is stored already, so that this configuration may refer to it without repeating it. */
  known?: { clusters?: readonly ObjectKey[]; secrets?: readonly KnownSecret[] };
}

export interface Located<T> {
  key: ObjectKey;
  document: T;
  /** `file:line` of the document, for messages. */
  origin: string;
}

export interface LoadedSecret {
  key: ObjectKey;
  /** Decoded values by key. Never log or print these. */
  values: Record<string, string>;
  origin: string;
}

export interface Configuration {
  /** Resolved pipelines (defaults applied), in file order. */
  pipelines: Pipeline[];
  /** The Pipeline documents as written, in the same order, for storing and showing back. */
  pipelineDocuments: Located<PipelineDocument>[];
  clusters: Located<GitopsClusterDocument>[];
  secrets: LoadedSecret[];
}

export type LoadResult = { ok: true; configuration: Configuration } | { ok: false; problems: ConfigProblem[] };

/** Loads files and directories (recursively, `.yaml`/`.yml`). */
export async function loadConfiguration(
  paths: string | readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const sources: SourceDocument[] = [];
  const problems: ConfigProblem[] = [];
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    const found = await findConfigFiles(path);
    problems.push(...found.problems);
    for (const file of found.files) {
      const read = await readConfigFile(file);
      sources.push(...read.documents);
      problems.push(...read.problems);
    }
  }
  return fromSources(sources, problems, options);
}

/** Loads YAML text, e.g. from standard input; `file` names it in problems. */
export function loadConfigurationText(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const { documents, problems } = parseConfigText(text, file);
  return fromSources(documents, problems, options);
}

function fromSources(
  sources: readonly SourceDocument[],
  parseProblems: ConfigProblem[],
  options: LoadOptions,
): LoadResult {
  const problems = [...parseProblems];
  const valid: { at: DocumentAt; document: ValidDocument }[] = [];
  const named: NamedDocument[] = [];
  for (const source of sources) {
    for (const at of expandDocument(source)) {
      const result = validateDocument(at);
      problems.push(...result.problems);
      if (result.document) valid.push({ at, document: result.document });
      const document = namedDocument(at);
      if (document) named.push(document);
    }
  }
  if (sources.length === 0 && problems.length === 0) problems.push({ message: 'the configuration holds no documents' });

  problems.push(
    ...checkReferences(named, {
      defaultCluster: options.defaultCluster,
      knownClusters: options.known?.clusters ?? [],
      knownSecrets: options.known?.secrets ?? [],
    }),
  );
  if (problems.length > 0) return { ok: false, problems: problems.sort(byPlace) };

  const configuration: Configuration = { pipelines: [], pipelineDocuments: [], clusters: [], secrets: [] };
  for (const { at, document } of valid) {
    const key = keyOf(document.value.metadata);
    const where = at.source.locate(at.path);
    const origin = where ? `${at.source.file}:${where.line}` : at.source.file;
    switch (document.kind) {
      case 'Pipeline':
        configuration.pipelines.push(resolvePipeline(document.value, options.defaultCluster));
        configuration.pipelineDocuments.push({ key, document: document.value, origin });
        break;
      case 'GitopsCluster':
        configuration.clusters.push({ key, document: document.value, origin });
        break;
      case 'Secret':
        configuration.secrets.push({ key, values: secretValues(document.value), origin });
        break;
    }
  }
  return { ok: true, configuration };
}

function secretValues(secret: SecretDocument): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {}))
    values[key] = Buffer.from(value, 'base64').toString('utf8');
  // stringData wins over data, as in Kubernetes.
  for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = value;
  return values;
}

/** Problems in reading order: by file, then line and column; problems without a place first. */
function byPlace(a: ConfigProblem, b: ConfigProblem): number {
  return (
    (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)
  );
}
