// Storing a valid configuration's objects: Secrets, clusters, pipelines, in that order, so nothing is stored before
// what it refers to. A dry run compares with what is stored instead, as the store would, and writes nothing.
import { keyOf } from '../config/references.js';
import type { Configuration } from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { SecretPurpose } from '../secrets/tags.js';
import { canonicalJson, sameOwningSource, type ObjectOwner } from '../store/index.js';
import type { ApplyPorts } from './ports.js';
import type { Reselection } from './fleet-selection.js';
import type { StoredObjects } from './stored-objects.js';

export interface StoreObjectsOptions {
  /** Stored pipelines the apply does not name whose targets the applied clusters' labels select differently. */
  reselections?: readonly Reselection[];
  dryRun: boolean;
  now: () => Date;
  /** What each Secret is marked with where it is stored. */
  purposesOf: (key: ObjectKey) => SecretPurpose[];
  /** The ConfigSource applying (recorded on each pipeline and cluster), or undefined for the CLI. */
  owner?: ObjectOwner;
}

/** Objects by `Kind namespace/name`, as a ConfigSource's audit entry lists them. */
export interface ObjectChanges {
  created: string[];
  configured: string[];
  pruned: string[];
}

export interface StoredOutcome {
  /** One line per object: `pipeline flux-system/podinfo created`, `secret apps/github configured`, … */
  lines: string[];
  /** Pipelines created or configured. */
  changedPipelines: ObjectKey[];
  /** ConfigSources created or configured: each syncs at once. */
  changedSources: ObjectKey[];
  changes: ObjectChanges;
}

type Outcome = 'created' | 'configured' | 'unchanged';

export async function storeObjects(
  backend: ApplyPorts,
  configuration: Configuration,
  stored: StoredObjects,
  options: StoreObjectsOptions,
): Promise<StoredOutcome> {
  const { store } = backend;
  const { dryRun, now } = options;
  const suffix = dryRun ? ' (dry run)' : '';
  const lines: string[] = [];
  const changedPipelines: ObjectKey[] = [];
  const changedSources: ObjectKey[] = [];
  const changes: ObjectChanges = { created: [], configured: [], pruned: [] };
  const record = (kind: string, key: ObjectKey, outcome: Outcome) => {
    if (outcome !== 'unchanged') changes[outcome].push(`${kind} ${objectKeyString(key)}`);
  };

  for (const secret of configuration.secrets) {
    if (!dryRun) await backend.putSecret(secret.key, secret.values, options.purposesOf(secret.key));
    // Values are never compared or shown: a Secret is always (re)written.
    lines.push(`secret ${objectKeyString(secret.key)} configured${suffix}`);
  }

  const clustersByKey = new Map(stored.clusters.map((c) => [objectKeyString(keyOf(c.document.metadata)), c]));
  for (const { key, document } of configuration.clusters) {
    const before = clustersByKey.get(objectKeyString(key));
    const changed = dryRun
      ? !sameJson(before?.document, document) || !sameOwningSource(before?.owner, options.owner)
      : (await store.applyCluster(document, now(), options.owner)).changed;
    const outcome = outcomeOf(before, changed);
    record('GitopsCluster', key, outcome);
    lines.push(`gitopscluster ${objectKeyString(key)} ${outcome}${suffix}`);
  }

  for (const reselection of options.reselections ?? []) {
    if (!dryRun) await store.applyPipeline(reselection.document, reselection.pipeline, now());
    changedPipelines.push(reselection.key);
    lines.push(
      `pipeline ${objectKeyString(reselection.key)} configured (targets selected by cluster labels: ` +
        `${reselection.joined} joined, ${reselection.left} left)${suffix}`,
    );
  }

  for (const { key, document } of configuration.configSources) {
    const before = await store.getConfigSource(key);
    const changed = dryRun
      ? !sameJson(before?.document, document)
      : (await store.applyConfigSource(document, now())).changed;
    const outcome = outcomeOf(before, changed);
    if (outcome !== 'unchanged') changedSources.push(key);
    lines.push(`configsource ${objectKeyString(key)} ${outcome}${suffix}`);
  }

  const setsByKey = new Map(stored.pipelineSets.map((s) => [objectKeyString(keyOf(s.document.metadata)), s]));
  for (const { key, document } of configuration.pipelineSets) {
    const before = setsByKey.get(objectKeyString(key));
    const changed = dryRun
      ? !sameJson(before?.document, document) || !sameOwningSource(before?.owner, options.owner)
      : (await store.applyPipelineSet(document, now(), options.owner)).changed;
    const outcome = outcomeOf(before, changed);
    record('PipelineSet', key, outcome);
    lines.push(`pipelineset ${objectKeyString(key)} ${outcome}${suffix}`);
  }

  const pipelinesByKey = new Map(stored.pipelines.map((p) => [objectKeyString(keyOf(p.document.metadata)), p]));
  for (const [i, { key, document }] of configuration.pipelineDocuments.entries()) {
    const pipeline = configuration.pipelines[i];
    if (!pipeline) throw new Error(`the configuration has no resolved pipeline for ${objectKeyString(key)}`);
    const before = pipelinesByKey.get(objectKeyString(key));
    // The store compares the document and its resolved form (the default cluster may have changed).
    const changed = dryRun
      ? !sameJson(before && { document: before.document, pipeline: before.pipeline }, { document, pipeline }) ||
        !sameOwningSource(before?.owner, options.owner)
      : (await store.applyPipeline(document, pipeline, now(), options.owner)).changed;
    const outcome = outcomeOf(before, changed);
    record('Pipeline', key, outcome);
    if (outcome !== 'unchanged') changedPipelines.push(key);
    lines.push(`pipeline ${objectKeyString(key)} ${outcome}${suffix}`);
  }
  return { lines, changedPipelines, changedSources, changes };
}

function outcomeOf(stored: unknown, changed: boolean): Outcome {
  if (!stored) return 'created';
  return changed ? 'configured' : 'unchanged';
}

/** Equal as JSON whatever the key order, as the store's fingerprint compares documents. */
function sameJson(stored: unknown, applied: unknown): boolean {
  return stored !== undefined && canonicalJson(stored) === canonicalJson(applied);
}
