// Which documents of a ConfigSource's folder it applies: the one rule that a ConfigSource's sync and
// `pipelinectl validate` share (through `loadSources` with `documents: 'config-source'`), so that a folder validate
// accepts is a folder the sync applies. A ConfigSource applies Pipelines, GitopsClusters and PipelineSets. The folder of a Flux
// fleet holds other documents too (Flux Kustomizations, HelmReleases, a kustomization.yaml, the ConfigSource itself,
// which is applied with the CLI): they are skipped and counted, not problems, so that a Weave repository's folder
// works as it is. A Secret with values is refused: secrets stay out of Git.
import { basename } from 'node:path';
import type { ConfigProblem } from './problems.js';
import { DOCUMENT_SCHEMAS, type DocumentKind } from './schema.js';
import { problemAt, type DocumentAt } from './validate.js';
import { isRecord } from '../util/is-record.js';

/** The kinds a ConfigSource applies. */
export const CONFIG_SOURCE_KINDS = [
  'Pipeline',
  'GitopsCluster',
  'PipelineSet',
] as const satisfies readonly DocumentKind[];

/** A document a ConfigSource does not apply, as validate lists it and a sync counts it. */
export interface SkippedDocument {
  file: string;
  line?: number;
  /** `Kustomization flux-system/apps`, or `document 2` when it has no kind and name. */
  document: string;
  /** Its kind, when it has one. */
  kind?: string;
}

/** What a ConfigSource does with one document of its folder. */
export type ConfigSourceTreatment =
  | { treatment: 'apply' }
  | { treatment: 'skip'; skipped: SkippedDocument }
  | { treatment: 'refuse'; problems: ConfigProblem[] };

/** The YAML files kustomize reads as a Kustomization, which need no `kind`. */
const KUSTOMIZATION_FILES = new Set(['kustomization.yaml', 'kustomization.yml']);

/**
 * Whether a ConfigSource applies a document of this kind and apiVersion. The kind is read with its API group, as
 * Kubernetes does: a Tekton `Pipeline` (tekton.dev) is another kind. A document of one of these kinds with no
 * apiVersion, or another version of its group, is the ConfigSource's, and its validation says what is wrong.
 */
export function isConfigSourceKind(kind: unknown, apiVersion?: unknown): boolean {
  const applied = CONFIG_SOURCE_KINDS.find((candidate) => candidate === kind);
  if (!applied) return false;
  return typeof apiVersion !== 'string' || apiGroup(apiVersion) === apiGroup(DOCUMENT_SCHEMAS[applied].apiVersion);
}

/**
 * Applied (and validated), skipped, or refused. What is not a Kubernetes object with a kind is applied, so that its
 * validation reports it, but for the Kustomization in a kustomization.yaml, which kustomize reads without a kind.
 */
export function configSourceTreatment(at: DocumentAt): ConfigSourceTreatment {
  const value = at.value;
  if (!isRecord(value)) return { treatment: 'apply' };
  const { kind, apiVersion } = value;
  if (typeof kind !== 'string' || kind === '') {
    return KUSTOMIZATION_FILES.has(basename(at.source.file)) ? skip(at, undefined) : { treatment: 'apply' };
  }
  if (isConfigSourceKind(kind, apiVersion)) return { treatment: 'apply' };
  if (kind === 'Secret' && (typeof apiVersion !== 'string' || apiGroup(apiVersion) === '')) {
    const field = (['data', 'stringData'] as const).find((name) => holdsValues(value[name]));
    if (field) {
      const message =
        'a ConfigSource never applies a Secret with values: secrets stay out of Git (apply Secrets with pipelinectl ' +
        'apply, or on AWS keep them in Secrets Manager)';
      return { treatment: 'refuse', problems: [problemAt(at, [field], message)] };
    }
  }
  return skip(at, kind);
}

function skip(at: DocumentAt, kind: string | undefined): ConfigSourceTreatment {
  const where = at.source.locate(at.path);
  return { treatment: 'skip', skipped: { file: at.source.file, line: where?.line, document: at.label, kind } };
}

/** `data: {}` or `stringData:` with nothing under it holds no value; anything else (even malformed) may. */
function holdsValues(field: unknown): boolean {
  if (field === undefined || field === null) return false;
  return !isRecord(field) || Object.keys(field).length > 0;
}

/** `pipelines.weave.works` of `pipelines.weave.works/v1alpha1`; the core group (`v1`) is ''. */
function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}
