// What is stored before an apply: every cluster and pipeline. An apply is checked against it (references, Secret
// purposes) and compared with it (what is created, configured or unchanged).
import type { Store, StoredCluster, StoredPipeline } from '../store/index.js';
import { listAll } from '../util/paged.js';

export interface StoredObjects {
  clusters: StoredCluster[];
  pipelines: StoredPipeline[];
}

export async function readStoredObjects(store: Pick<Store, 'listClusters' | 'listPipelines'>): Promise<StoredObjects> {
  const [clusters, pipelines] = await Promise.all([
    listAll((page) => store.listClusters(page)),
    listAll((page) => store.listPipelines(page)),
  ]);
  return { clusters, pipelines };
}
