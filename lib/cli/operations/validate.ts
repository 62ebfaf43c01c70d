// What `pipelinectl validate` does: checks the files of a ConfigSource's folder as its sync reads them (the
// documents it applies validated, the others skipped and counted, a Secret with values refused), on their own (the
// references among the files given) or against what a deployment stores (its clusters and the key names of its
// Secrets, read as `apply` reads them). It writes nothing. Also the three ways the result is printed: text, GitHub
// Actions annotations and JSON.
import { loadConfigurationSource } from '../../apply/configuration-source.js';
import { readStoredObjects } from '../../apply/stored-objects.js';
import type { ApplyPorts } from '../../apply/ports.js';
import {
  formatProblem,
  formatWarning,
  loadSources,
  readConfigurationFiles,
  type ConfigProblem,
  type ConfigurationWarning,
  type LoadOptions,
  type SkippedDocument,
} from '../../config/index.js';
import type { ObjectKey } from '../../pipeline/model.js';

export interface ValidateOptions {
  defaultCluster?: ObjectKey;
  /** Resolve references against what this deployment stores, when given. */
  backend?: Pick<ApplyPorts, 'store' | 'secretKeys' | 'description'>;
  /**
   * Without a backend, the files are checked on their own: how a reference to an object not among them is reported
   * and can be resolved.
   */
  filesOnly?: LoadOptions['filesOnly'];
}

export interface ValidateReport {
  /** The YAML files read. */
  files: string[];
  /** The objects a ConfigSource would apply from them (Pipelines and GitopsClusters); 0 when there is a problem. */
  objects: number;
  /** The documents of other kinds, left out as a ConfigSource's sync leaves them. */
  skipped: SkippedDocument[];
  problems: ConfigProblem[];
  warnings: ConfigurationWarning[];
  /** The deployment references were resolved against, or undefined: the files alone. */
  resolvedAgainst?: string;
}

export async function validateFiles(paths: readonly string[], options: ValidateOptions): Promise<ValidateReport> {
  const sources = await readConfigurationFiles(paths);
  const { backend } = options;
  const loaded = backend
    ? await loadConfigurationSource(
        backend,
        { sources },
        await readStoredObjects(backend.store),
        options.defaultCluster,
        'config-source',
      )
    : loadSources(sources, {
        defaultCluster: options.defaultCluster,
        documents: 'config-source',
        filesOnly: options.filesOnly,
      });
  const common = { files: sources.files, skipped: loaded.skipped, resolvedAgainst: backend?.description };
  if (!loaded.ok) return { ...common, objects: 0, problems: loaded.problems, warnings: [] };
  const { pipelineDocuments, clusters } = loaded.configuration;
  return { ...common, objects: pipelineDocuments.length + clusters.length, problems: [], warnings: loaded.warnings };
}

/** `3 files, 5 objects valid (2 documents of other kinds skipped)`, and what references were resolved against. */
export function validSummary(report: ValidateReport): string {
  const skipped = report.skipped.length;
  const others = skipped === 1 ? '1 document of another kind skipped' : `${skipped} documents of other kinds skipped`;
  return (
    `${count(report.files.length, 'file')}, ${count(report.objects, 'object')} valid` +
    (skipped > 0 ? ` (${others})` : '') +
    (report.resolvedAgainst ? `, references resolved against ${report.resolvedAgainst}` : '')
  );
}

/** One line per problem, then per warning, as `apply` prints them. */
export function problemLines(report: ValidateReport): string[] {
  return [
    ...report.problems.map(formatProblem),
    ...report.warnings.map((warning) => `warning: ${formatWarning(warning)}`),
  ];
}

/**
 * GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=…::message` per problem (`::warning` per
 * warning), which the runner shows as annotations on the lines of the pull request's files. Escaped as GitHub's
 * toolkit escapes them (@actions/core, command.ts), so a value cannot end the command or start another.
 */
export function githubAnnotations(report: ValidateReport): string[] {
  return [
    ...report.problems.map((problem) => annotation('error', problem)),
    ...report.warnings.map((warning) => annotation('warning', warning)),
  ];
}

function annotation(command: 'error' | 'warning', problem: ConfigProblem): string {
  const properties = [
    ['file', problem.file],
    ['line', problem.line],
    ['col', problem.column],
    ['title', problem.document],
  ]
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}=${escapeProperty(String(value))}`);
  const message = problem.path ? `${problem.path}: ${problem.message}` : problem.message;
  return `::${command}${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${escapeData(message)}`;
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** What `-o json` prints: every field, absent ones as null. */
export interface ValidateJson {
  valid: boolean;
  files: string[];
  objects: number;
  skipped: { file: string; line: number | null; document: string; kind: string | null }[];
  problems: ProblemJson[];
  warnings: ProblemJson[];
  resolvedAgainst: string | null;
}

interface ProblemJson {
  file: string | null;
  line: number | null;
  column: number | null;
  document: string | null;
  path: string | null;
  message: string;
}

export function validateJson(report: ValidateReport): ValidateJson {
  return {
    valid: report.problems.length === 0,
    files: report.files,
    objects: report.objects,
    skipped: report.skipped.map(({ file, line, document, kind }) => ({
      file,
      line: line ?? null,
      document,
      kind: kind ?? null,
    })),
    problems: report.problems.map(problemJson),
    warnings: report.warnings.map(problemJson),
    resolvedAgainst: report.resolvedAgainst ?? null,
  };
}

function problemJson(problem: ConfigProblem): ProblemJson {
  return {
    file: problem.file ?? null,
    line: problem.line ?? null,
    column: problem.column ?? null,
    document: problem.document ?? null,
    path: problem.path || null,
    message: problem.message,
  };
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}
