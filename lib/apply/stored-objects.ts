// What is stored before an apply: every cluster and pipeline, and which ConfigSources exist. An apply is checked
// against it (references, Secret purposes, owners) and compared with it (what is created, configured or unchanged).
import { keyOfMetadata, objectKeyString } from '../pipeline/model.js';
import type { ObjectOwner, Store, StoredCluster, StoredPipeline } from '../store/index.js';
import { listAll } from '../util/paged.js';

export interface StoredObjects {
  clusters: StoredCluster[];
  pipelines: StoredPipeline[];
  /** `ns/name` of every stored ConfigSource: an object whose owner is gone is owned by nothing. */
  configSources: ReadonlySet<string>;
}

export async function readStoredObjects(
  store: Pick<Store, 'listClusters' | 'listPipelines' | 'listConfigSources'>,
): Promise<StoredObjects> {
  const [clusters, pipelines, sources] = await Promise.all([
    listAll((page) => store.listClusters(page)),
    listAll((page) => store.listPipelines(page)),
    listAll((page) => store.listConfigSources(page)),
  ]);
  const configSources = new Set(sources.map(({ document }) => objectKeyString(keyOfMetadata(document.metadata))));
  return { clusters, pipelines, configSources };
}

/** The source that owns a stored object, when it still exists. */
export function liveOwner(stored: StoredObjects, object: { owner?: ObjectOwner }): ObjectOwner | undefined {
  const { owner } = object;
  return owner && stored.configSources.has(objectKeyString(owner.configSource)) ? owner : undefined;
}
