// What is stored before an apply: every cluster and pipeline, and which ConfigSources exist. An apply is checked
// against it (references, Secret purposes, owners) and compared with it (what is created, configured or unchanged).
import { keyOfMetadata, objectKeyString } from '../pipeline/model.js';
import type {
  ObjectOwner,
  Store,
  StoredCluster,
  StoredConfigSource,
  StoredPipeline,
  StoredPipelineSet,
} from '../store/index.js';
import { listAll } from '../util/paged.js';

export interface StoredObjects {
  clusters: StoredCluster[];
  pipelines: StoredPipeline[];
  pipelineSets: StoredPipelineSet[];
  /** `ns/name` of every stored ConfigSource: an object whose owner is gone is owned by nothing. */
  configSources: ReadonlySet<string>;
}

export async function readStoredObjects(
  store: Pick<Store, 'listClusters' | 'listPipelines' | 'listConfigSources' | 'listPipelineSets'>,
): Promise<StoredObjects> {
  const [clusters, pipelines, sources, pipelineSets] = await Promise.all([
    listAll((page) => store.listClusters(page)),
    listAll((page) => store.listPipelines(page)),
    listAll((page) => store.listConfigSources(page)),
    listAll((page) => store.listPipelineSets(page)),
  ]);
  const configSources = new Set(sources.map(({ document }) => objectKeyString(keyOfMetadata(document.metadata))));
  return { clusters, pipelines, pipelineSets, configSources };
}

// An object is owned by the ConfigSource that applied it only while that source is stored: one whose source was
// deleted since is owned by nothing (apply and delete take it). The rule in two forms: over what an apply read, and
// for one object (delete, status, the dashboard).

/** The source that owns a stored object, when it still exists among what was read. */
export function liveOwner(stored: StoredObjects, object: { owner?: ObjectOwner }): ObjectOwner | undefined {
  const { owner } = object;
  return owner && stored.configSources.has(objectKeyString(owner.configSource)) ? owner : undefined;
}

/** The stored ConfigSource that owns an object, when there is one (one read, only for an owned object). */
export async function owningSource(
  store: Pick<Store, 'getConfigSource'>,
  owner: ObjectOwner | undefined,
): Promise<StoredConfigSource | undefined> {
  return owner && (await store.getConfigSource(owner.configSource));
}
