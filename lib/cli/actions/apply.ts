// What `pipelinectl apply` does: validate a whole configuration against what is stored, then store it (Secrets,
// clusters, pipelines, in that order, so nothing is stored before what it refers to) and ask the verifier to check
// every pipeline that changed. One problem anywhere and nothing is written.
import { keyOf, namedDocument } from '../../config/references.js';
import { expandDocument } from '../../config/validate.js';
import { findConfigFiles, parseConfigText, readConfigFile, type SourceDocument } from '../../config/yaml-source.js';
import {
  formatProblem,
  loadConfiguration,
  loadConfigurationText,
  type ConfigProblem,
  type KnownSecret,
  type LoadOptions,
} from '../../config/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { SecretPurpose } from '../../secrets/tags.js';
import { canonicalJson } from '../../store/dynamodb/fingerprint.js';
import type { Backend } from '../backend.js';
import { listAll } from '../output.js';
import { purposeConflict, purposesBySecret, secretUses, type SecretUse } from '../../secrets/uses.js';

/** Files and directories (read as `loadConfiguration` reads them), or YAML text such as standard input. */
export type ConfigurationSource = { paths: readonly string[] } | { text: string; file: string };

export interface ApplyOptions {
  source: ConfigurationSource;
  dryRun?: boolean;
  defaultCluster?: ObjectKey;
  now?: () => Date;
}

export type ApplyResult =
  | { ok: false; problems: string[] }
  | {
      ok: true;
      /** One line per object: `pipeline flux-system/podinfo created`, `secret apps/github configured`, … */
      lines: string[];
      /** Pipelines that changed, each sent a `check-pipeline` (unless dry run). */
      changedPipelines: ObjectKey[];
      /** False when a check could not be handed to a verifier (local mode without `serve`). */
      checksDelivered: boolean;
    };

type Outcome = 'created' | 'configured' | 'unchanged';

/** Validates and (unless dry run) applies a configuration; never throws for a problem with the configuration. */
export async function applyConfiguration(backend: Backend, options: ApplyOptions): Promise<ApplyResult> {
  const { store } = backend;
  const now = options.now ?? (() => new Date());
  const [storedClusters, storedPipelines] = await Promise.all([
    listAll((page) => store.listClusters(page)),
    listAll((page) => store.listPipelines(page)),
  ]);

  const { source } = options;
  const loadOptions: LoadOptions = {
    defaultCluster: options.defaultCluster,
    known: {
      clusters: storedClusters.map((cluster) => keyOf(cluster.document.metadata)),
      secrets: await knownSecrets(backend, source),
    },
  };
  const loaded =
    'text' in source
      ? loadConfigurationText(source.text, source.file, loadOptions)
      : await loadConfiguration(source.paths, loadOptions);
  if (!loaded.ok) return { ok: false, problems: loaded.problems.map(formatProblem) };
  const configuration = loaded.configuration;

  // What each Secret is for, over the configuration as it will be once applied: what is stored, with what this
  // configuration replaces taken out. A Secret is marked for every use, including uses by objects applied earlier.
  const replacing = new Set([
    ...configuration.pipelineDocuments.map(({ key }) => `Pipeline ${objectKeyString(key)}`),
    ...configuration.clusters.map(({ key }) => `GitopsCluster ${objectKeyString(key)}`),
  ]);
  const storedDocuments = [
    ...storedPipelines.map((p) => ({ kind: 'Pipeline', key: keyOf(p.document.metadata), document: p.document })),
    ...storedClusters.map((c) => ({ kind: 'GitopsCluster', key: keyOf(c.document.metadata), document: c.document })),
  ];
  const newDocuments = [
    ...configuration.pipelineDocuments.map(({ key, document }) => ({ kind: 'Pipeline', key, document })),
    ...configuration.clusters.map(({ key, document }) => ({ kind: 'GitopsCluster', key, document })),
  ];
  const usesOf = (documents: typeof newDocuments): SecretUse[] =>
    documents.flatMap(({ kind, key, document }) => secretUses(kind, key, document));
  const replaced = storedDocuments.filter(({ kind, key }) => replacing.has(`${kind} ${objectKeyString(key)}`));
  const kept = storedDocuments.filter(({ kind, key }) => !replacing.has(`${kind} ${objectKeyString(key)}`));
  const purposes = purposesBySecret([...usesOf(kept), ...usesOf(newDocuments)]);
  const purposesOf = (key: ObjectKey): SecretPurpose[] => purposes.get(objectKeyString(key))?.purposes ?? [];

  // Secrets applied earlier whose uses this configuration may change: they are re-marked, values untouched.
  const inConfiguration = new Set(configuration.secrets.map(({ key }) => objectKeyString(key)));
  const retag = new Map<string, ObjectKey>();
  for (const use of [...usesOf(replaced), ...usesOf(newDocuments)]) {
    const id = objectKeyString(use.secret);
    if (!inConfiguration.has(id)) retag.set(id, use.secret);
  }

  const problems: string[] = [];
  const conflict = (key: ObjectKey, origin?: string) => {
    const id = objectKeyString(key);
    const why = purposeConflict(purposesOf(key));
    if (!why) return;
    const users = (purposes.get(id)?.uses ?? []).map((use) => `${use.by} (${use.purpose})`).join(', ');
    const problem: ConfigProblem = { file: origin, document: `Secret ${id}`, message: `${why}; used by ${users}` };
    problems.push(formatProblem(problem));
  };
  for (const secret of configuration.secrets) conflict(secret.key, secret.origin);
  for (const key of retag.values()) conflict(key);
  if (problems.length > 0) return { ok: false, problems };

  const suffix = options.dryRun ? ' (dry run)' : '';
  const lines: string[] = [];
  const changedPipelines: ObjectKey[] = [];

  for (const secret of configuration.secrets) {
    if (!options.dryRun) await backend.putSecret(secret.key, secret.values, purposesOf(secret.key));
    // Values are never compared or shown: a Secret is always (re)written.
    lines.push(`secret ${objectKeyString(secret.key)} configured${suffix}`);
  }

  const clustersByKey = new Map(storedClusters.map((c) => [objectKeyString(keyOf(c.document.metadata)), c]));
  for (const { key, document } of configuration.clusters) {
    const stored = clustersByKey.get(objectKeyString(key));
    const changed = options.dryRun
      ? !sameJson(stored?.document, document)
      : (await store.applyCluster(document, now())).changed;
    const outcome = outcomeOf(stored, changed);
    lines.push(`gitopscluster ${objectKeyString(key)} ${outcome}${suffix}`);
  }

  const pipelinesByKey = new Map(storedPipelines.map((p) => [objectKeyString(keyOf(p.document.metadata)), p]));
  for (const [i, { key, document }] of configuration.pipelineDocuments.entries()) {
    const pipeline = configuration.pipelines[i];
    if (!pipeline) throw new Error(`the configuration has no resolved pipeline for ${objectKeyString(key)}`);
    const stored = pipelinesByKey.get(objectKeyString(key));
    // The store compares the document and its resolved form (the default cluster may have changed).
    const changed = options.dryRun
      ? !sameJson(stored && { document: stored.document, pipeline: stored.pipeline }, { document, pipeline })
      : (await store.applyPipeline(document, pipeline, now())).changed;
    const outcome = outcomeOf(stored, changed);
    if (outcome !== 'unchanged') changedPipelines.push(key);
    lines.push(`pipeline ${objectKeyString(key)} ${outcome}${suffix}`);
  }
  if (options.dryRun) return { ok: true, lines, changedPipelines, checksDelivered: true };

  if (backend.setSecretPurposes) {
    for (const key of retag.values()) {
      const purposesNow = purposesOf(key);
      if ((await backend.setSecretPurposes(key, purposesNow)) === 'changed') {
        const marked = purposesNow.length > 0 ? `marked ${purposesNow.join('+')}` : 'no longer marked for any use';
        lines.push(`secret ${objectKeyString(key)} ${marked}`);
      }
    }
  }

  let checksDelivered = true;
  for (const pipeline of changedPipelines) {
    const delivered = await backend.enqueue({ type: 'check-pipeline', pipeline, cause: 'apply' });
    checksDelivered &&= delivered;
  }
  return { ok: true, lines, changedPipelines, checksDelivered };
}

function outcomeOf(stored: unknown, changed: boolean): Outcome {
  if (!stored) return 'created';
  return changed ? 'configured' : 'unchanged';
}

/** Equal as JSON whatever the key order, as the store's fingerprint compares documents. */
function sameJson(stored: unknown, applied: unknown): boolean {
  return stored !== undefined && canonicalJson(stored) === canonicalJson(applied);
}

/**
 * The stored Secrets this configuration refers to without defining them, with their key names (never values), so
 * that the loader can check their keys. The files are read leniently for this; the loader reads them properly.
 */
async function knownSecrets(backend: Backend, source: ConfigurationSource): Promise<KnownSecret[]> {
  const sources: SourceDocument[] = [];
  if ('text' in source) sources.push(...parseConfigText(source.text, source.file).documents);
  else {
    for (const path of source.paths) {
      for (const file of (await findConfigFiles(path)).files) sources.push(...(await readConfigFile(file)).documents);
    }
  }
  const documents = sources
    .flatMap((document) => expandDocument(document))
    .map((at) => namedDocument(at))
    .filter((named) => named !== undefined);
  const defined = new Set(documents.filter((d) => d.kind === 'Secret').map((d) => objectKeyString(d.key)));
  const referenced = new Map<string, ObjectKey>();
  for (const { kind, key, value } of documents) {
    for (const use of secretUses(kind, key, value)) {
      const id = objectKeyString(use.secret);
      if (!defined.has(id)) referenced.set(id, use.secret);
    }
  }
  const known = await Promise.all(
    [...referenced.values()].map(async (key): Promise<KnownSecret | undefined> => {
      const keys = await backend.secretKeys(key);
      return keys && { ...key, keys };
    }),
  );
  return known.filter((secret) => secret !== undefined);
}
