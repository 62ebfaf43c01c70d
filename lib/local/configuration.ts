// Loading and applying the local mode's configuration at start: every problem at once (ConfigError), the store's
// limits included (as `pipelinectl apply` checks them), then what interrupted applies left is settled, and the
// GitopsClusters, Pipelines and ConfigSources go into the store (an unchanged document writes nothing) and the Secrets into
// secrets.json, tagged with what references them. An EKS cluster, which the local mode cannot read, is warned about
// as `apply` warns about it.
import { appsElementsFrom } from '../pipeline/pipeline-set.js';
import { clusterAccessWarnings } from '../apply/cluster-access-warnings.js';
import { planOwnership } from '../apply/ownership.js';
import { planPipelineSets } from '../apply/pipeline-sets.js';
import { readStoredObjects } from '../apply/stored-objects.js';
import { formatWarning, loadConfiguration, type Configuration, type KnownSecret } from '../config/index.js';
import { ConfigError } from '../config/problems.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Logger } from '../logging/logger.js';
import { checkStoreLimits } from '../store/index.js';
import type { ConfigSources, ConfigurationStore, PipelineSets } from '../store/port.js';
import { readSecrets } from './data-dir.js';
import { storeConfigurationSecrets } from './secrets.js';

export interface LocalConfigurationOptions {
  configDir: string;
  dataDir: string;
  defaultCluster?: ObjectKey;
  store: Pick<
    ConfigurationStore,
    'listClusters' | 'listPipelines' | 'applyCluster' | 'applyPipeline' | 'repairInterruptedApplies' | 'deletePipeline'
  > &
    Pick<ConfigSources, 'applyConfigSource' | 'listConfigSources'> &
    Pick<PipelineSets, 'applyPipelineSet' | 'listPipelineSets'>;
  /** Secrets given outside the configuration (the demo's), which it may refer to. Only their key names are used. */
  extraSecrets?: readonly { key: ObjectKey; values: Record<string, string> }[];
  logger: Logger;
  now: () => Date;
}

export interface AppliedConfiguration {
  configuration: Configuration;
  /** `ns/name` of each Pipeline and GitopsCluster, with whether applying it changed the store. */
  pipelines: { name: string; changed: boolean }[];
  clusters: { name: string; changed: boolean }[];
  /** `ns/name` of the Secrets whose stored values or purposes changed. */
  secretsChanged: string[];
}

/** Loads the configuration against what is stored already; throws ConfigError with every problem. */
export async function loadLocalConfiguration(
  options: LocalConfigurationOptions,
): Promise<{ configuration: Configuration; prunedPipelines: ObjectKey[] }> {
  const known: KnownSecret[] = Object.entries(await readSecrets(options.dataDir)).flatMap(([name, secret]) => {
    const [namespace, secretName] = name.split('/');
    return namespace && secretName ? [{ namespace, name: secretName, keys: Object.keys(secret.values) }] : [];
  });
  for (const { key, values } of options.extraSecrets ?? []) known.push({ ...key, keys: Object.keys(values) });
  const stored = await readStoredObjects(options.store);
  const found = new Map(stored.pipelineSets.map((set) => [objectKeyString(keyOfMetadata(set.document.metadata)), set]));
  const result = await loadConfiguration(options.configDir, {
    defaultCluster: options.defaultCluster,
    known: { clusters: stored.clusters.map(({ document }) => keyOfMetadata(document.metadata)), secrets: known },
    // A set's apps generators keep generating what the last poll found, as `apply` does.
    appsElements: appsElementsFrom((set) => found.get(objectKeyString(set))?.appsFound),
  });
  if (!result.ok) throw new ConfigError(result.problems);
  // What a ConfigSource applied is changed in Git: the configuration directory may not change it, as `apply` may not.
  const owned = planOwnership(stored, result.configuration, undefined, false);
  if (owned.problems.length > 0) throw new ConfigError(owned.problems);
  const sets = planPipelineSets(stored, result.configuration);
  if (sets.problems.length > 0) throw new ConfigError(sets.problems);
  const limits = checkStoreLimits(result.configuration, stored.pipelines);
  if (limits.length > 0) throw new ConfigError(limits);
  return { configuration: result.configuration, prunedPipelines: sets.prunedPipelines };
}

/** Loads, then applies clusters, Secrets and pipelines, in that order. */
export async function applyLocalConfiguration(options: LocalConfigurationOptions): Promise<AppliedConfiguration> {
  const { configuration, prunedPipelines } = await loadLocalConfiguration(options);
  for (const warning of clusterAccessWarnings({ description: 'pipelinectl serve', readsEks: false }, configuration)) {
    options.logger.warn(formatWarning(warning));
  }
  const now = options.now();
  await options.store.repairInterruptedApplies?.(now);
  const clusters: AppliedConfiguration['clusters'] = [];
  for (const { key, document } of configuration.clusters) {
    const { changed } = await options.store.applyCluster(document, now);
    clusters.push({ name: objectKeyString(key), changed });
  }
  const secretsChanged = await storeConfigurationSecrets(options.dataDir, configuration);
  const pipelines: AppliedConfiguration['pipelines'] = [];
  for (const [index, { key, document }] of configuration.pipelineDocuments.entries()) {
    const pipeline = configuration.pipelines[index];
    if (!pipeline) continue;
    const { changed } = await options.store.applyPipeline(document, pipeline, now);
    pipelines.push({ name: objectKeyString(key), changed });
  }
  const sets: AppliedConfiguration['pipelines'] = [];
  for (const { key, document } of configuration.pipelineSets) {
    const { changed } = await options.store.applyPipelineSet(document, now);
    sets.push({ name: objectKeyString(key), changed });
  }
  // What a set generated before and generates no more goes, as `apply` prunes it.
  for (const key of prunedPipelines) {
    await options.store.deletePipeline(key);
    options.logger.info('pruned', { kind: 'Pipeline', name: objectKeyString(key) });
  }
  // Each source syncs on the first poll, which sends one `sync-config-source` per stored source.
  const sources: AppliedConfiguration['pipelines'] = [];
  for (const { key, document } of configuration.configSources) {
    const { changed } = await options.store.applyConfigSource(document, now);
    sources.push({ name: objectKeyString(key), changed });
  }
  const log = (kind: string) => (entry: { name: string; changed: boolean }) =>
    options.logger.info(entry.changed ? 'applied' : 'unchanged', { kind, name: entry.name });
  clusters.forEach(log('GitopsCluster'));
  pipelines.forEach(log('Pipeline'));
  sources.forEach(log('ConfigSource'));
  sets.forEach(log('PipelineSet'));
  for (const name of secretsChanged) options.logger.info('stored secret', { name });
  return { configuration, pipelines, clusters, secretsChanged };
}
