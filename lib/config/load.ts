// Loading a configuration: files or directories of multi-document YAML → validated, resolved documents, or every
// problem at once. Nothing is returned (so nothing can be applied) unless the whole configuration is valid; a valid
// one comes with its warnings (what Weave accepts but is probably a mistake), which never stop it.
import { configSourceTreatment, type SkippedDocument } from './config-source-documents.js';
import { collapseElementProblems, expandPipelineSet, type AppsElements } from './pipeline-set.js';
import type { ConfigSourceDocument, GitopsClusterDocument, PipelineDocument, PipelineSetDocument } from './schema.js';
import { secretValues } from './secret-values.js';
import { objectKeyString, resolvePipeline, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import { generatingSet } from '../pipeline/pipeline-set.js';
import type { ConfigProblem } from './problems.js';
import { checkReferences, keyOf, namedDocument, type KnownSecret, type NamedDocument } from './references.js';
import { expandDocument, problemAt, validateDocument, type DocumentAt, type ValidDocument } from './validate.js';
import { waitingApprovalsOf, type WaitingApproval } from './waiting-approvals.js';
import type { ConfigurationWarning } from './warnings.js';
import { findConfigFiles, parseConfigText, readConfigFile, type SourceDocument } from './yaml-source.js';

export interface LoadOptions {
  /** The GitopsCluster that targets without a clusterRef run on. */
  defaultCluster?: ObjectKey;
  /** What is stored already, so that this configuration may refer to it without repeating it. */
  known?: { clusters?: readonly ObjectKey[]; secrets?: readonly KnownSecret[] };
  /**
   * Which documents to load: every one (`apply`), or those a ConfigSource applies, the others skipped and counted
   * and a Secret with values refused (config-source-documents.ts): a ConfigSource's sync and `pipelinectl validate`.
   */
  documents?: 'all' | 'config-source';
  /**
   * Set when what is stored was not read, the files being checked on their own: a reference to an object that is
   * not among them is then said to be so, followed by `hint` (how to resolve it against a deployment), rather than
   * not found; a problem, or with `unresolved: 'warning'` a warning.
   */
  filesOnly?: { hint: string; unresolved?: 'problem' | 'warning' };
  /** The elements the PipelineSets' `apps` generators have now (what the poll found); none when absent. */
  appsElements?: AppsElements;
}

export interface Located<T> {
  key: ObjectKey;
  document: T;
  /** `file:line` of the document, for messages. */
  origin: string;
  /** A problem at a field of the document, located in its file (for checks made after loading, e.g. the store's). */
  problemAt(path: readonly PropertyKey[], message: string): ConfigProblem;
}

/** A PipelineSet with the pipelines it generates (which are among the configuration's pipelines). */
export interface LocatedPipelineSet extends Located<PipelineSetDocument> {
  generated: ObjectKey[];
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
  /** Git folders the controller applies from (docs/config-sources.md). */
  configSources: Located<ConfigSourceDocument>[];
  /** PipelineSets (docs/pipeline-sets.md); their generated Pipelines are in `pipelines`, marked by the set's label. */
  pipelineSets: LocatedPipelineSet[];
  /** Approvals the Pipelines' `status` (a `kubectl get -o yaml` export of Weave's) says are waiting, in file order. */
  waitingApprovals: WaitingApproval[];
}

/** `skipped`: the documents left out, with `documents: 'config-source'` (none otherwise). */
export type LoadResult =
  | { ok: true; configuration: Configuration; warnings: ConfigurationWarning[]; skipped: SkippedDocument[] }
  | { ok: false; problems: ConfigProblem[]; skipped: SkippedDocument[] };

/** The YAML documents of a configuration as read from its files or text, before validation. */
export interface ConfigurationSources {
  documents: SourceDocument[];
  problems: ConfigProblem[];
}

/** Loads files and directories (recursively, `.yaml`/`.yml`). */
export async function loadConfiguration(
  paths: string | readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  return loadSources(await readConfigurationFiles(paths), options);
}

/** Loads YAML text, e.g. from standard input; `file` names it in problems. */
export function loadConfigurationText(text: string, file: string, options: LoadOptions = {}): LoadResult {
  return loadSources(parseConfigText(text, file), options);
}

/** The YAML documents of files, and which files they were read from (those holding no document included). */
export interface ConfigurationFiles extends ConfigurationSources {
  files: string[];
}

/** Reads every YAML file the paths name, within the input limits (limits.ts); problems for what cannot be read. */
export async function readConfigurationFiles(paths: string | readonly string[]): Promise<ConfigurationFiles> {
  const sources: ConfigurationFiles = { documents: [], problems: [], files: [] };
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    const found = await findConfigFiles(path);
    append(sources.problems, found.problems);
    append(sources.files, found.files);
    for (const file of found.files) {
      const read = await readConfigFile(file);
      append(sources.documents, read.documents);
      append(sources.problems, read.problems);
    }
  }
  return sources;
}

/** Validates documents already read (readConfigurationFiles, parseConfigText): the whole configuration or every problem. */
export function loadSources(sources: ConfigurationSources, options: LoadOptions = {}): LoadResult {
  const problems = [...sources.problems];
  const valid: { at: DocumentAt; document: ValidDocument }[] = [];
  const named: NamedDocument[] = [];
  const skipped: SkippedDocument[] = [];
  for (const source of sources.documents) {
    for (const at of expandDocument(source)) {
      const treatment = options.documents === 'config-source' ? configSourceTreatment(at) : undefined;
      if (treatment?.treatment === 'skip') {
        skipped.push(treatment.skipped);
        continue;
      }
      // A refused document still resolves the references to it: its own problem says what is wrong.
      const document = namedDocument(at);
      if (document) named.push(document);
      if (treatment?.treatment === 'refuse') {
        append(problems, treatment.problems);
        continue;
      }
      const result = validateDocument(at);
      append(problems, result.problems);
      if (!result.document) continue;
      valid.push({ at, document: result.document });
      if (result.document.kind !== 'PipelineSet') continue;
      // Each generated Pipeline is validated and checked as a hand-written one, named by its set and element.
      const expansion = expandPipelineSet(at, result.document.value, options.appsElements);
      append(problems, expansion.problems);
      for (const generated of expansion.generated) {
        const generatedDocument = namedDocument(generated);
        if (generatedDocument) named.push(generatedDocument);
        const checked = validateDocument(generated);
        append(problems, checked.problems);
        if (checked.document) valid.push({ at: generated, document: checked.document });
      }
    }
  }
  if (sources.documents.length === 0 && problems.length === 0) {
    problems.push({ message: 'the configuration holds no documents' });
  }

  const references = checkReferences(named, {
    defaultCluster: options.defaultCluster,
    knownClusters: options.known?.clusters ?? [],
    knownSecrets: options.known?.secrets ?? [],
    filesOnly: options.filesOnly,
  });
  append(problems, references.problems);
  if (problems.length > 0) return { ok: false, problems: collapseElementProblems(problems).sort(byPlace), skipped };

  const warnings = references.warnings;
  const configuration: Configuration = {
    pipelines: [],
    pipelineDocuments: [],
    clusters: [],
    secrets: [],
    configSources: [],
    pipelineSets: [],
    waitingApprovals: [],
  };
  for (const { at, document } of valid) {
    const key = keyOf(document.value.metadata);
    const where = at.source.locate(at.path);
    const origin = where ? `${at.source.file}:${where.line}` : at.source.file;
    const located = {
      key,
      origin,
      problemAt: (path: readonly PropertyKey[], message: string) => problemAt(at, path, message),
    };
    switch (document.kind) {
      case 'Pipeline': {
        const pipeline = resolvePipeline(document.value, options.defaultCluster);
        configuration.pipelines.push(pipeline);
        configuration.pipelineDocuments.push({ ...located, document: document.value });
        const waiting = waitingApprovalsOf(at, pipeline, document.value.status);
        append(configuration.waitingApprovals, waiting.approvals);
        append(warnings, waiting.warnings);
        break;
      }
      case 'GitopsCluster':
        configuration.clusters.push({ ...located, document: document.value });
        break;
      case 'Secret':
        configuration.secrets.push({ key, values: secretValues(document.value), origin });
        break;
      case 'ConfigSource': {
        // Its status is the controller's: a `get configsources -o yaml` applied back leaves the source as it is.
        const { status: _exported, ...source } = document.value;
        configuration.configSources.push({ ...located, document: source });
        break;
      }
      case 'PipelineSet': {
        const { status: _exported, ...set } = document.value;
        configuration.pipelineSets.push({ ...located, document: set, generated: [] });
        break;
      }
    }
  }
  // The pipelines each set generated, by the label the expansion wrote.
  const sets = new Map(configuration.pipelineSets.map((set) => [objectKeyString(set.key), set]));
  for (const { document, key } of configuration.pipelineDocuments) {
    const set = generatingSet(document.metadata);
    if (set) sets.get(objectKeyString(set))?.generated.push(key);
  }
  return { ok: true, configuration, warnings: warnings.sort(byPlace), skipped };
}

/**
 * Appends one array to another. A spread (`push(...items)`) passes every item as an argument, on the stack: with
 * tens of thousands of documents or problems it overflows ("Maximum call stack size exceeded").
 */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Problems (and warnings) in reading order: by file, then line and column; those without a place first. */
function byPlace(a: ConfigProblem, b: ConfigProblem): number {
  return (
    (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)
  );
}
