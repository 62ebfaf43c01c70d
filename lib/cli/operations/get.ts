// What `pipelinectl get` prints: the stored pipelines or clusters as a table, or the documents themselves as a
// `v1 List` (JSON or YAML), which `apply -f` takes back unchanged.
import type { GitopsClusterDocument } from '../../config/schema.js';
import { keyOf } from '../../config/references.js';
import { objectKeyString } from '../../pipeline/model.js';
import { generatingSet } from '../../pipeline/pipeline-set.js';
import type { StoredCluster, StoredPipeline } from '../../store/port.js';
import type { Backend } from '../backend.js';
import { ago, formatTable } from '../output.js';
import { listAll } from '../../util/paged.js';

/** The stored pipelines and (when asked) clusters, every page of them. */
export async function storedConfiguration(
  backend: Backend,
  withClusters: boolean,
): Promise<{ pipelines: StoredPipeline[]; clusters: StoredCluster[] }> {
  const [pipelines, clusters] = await Promise.all([
    listAll((page) => backend.store.listPipelines(page)),
    withClusters ? listAll((page) => backend.store.listClusters(page)) : [],
  ]);
  return { pipelines, clusters };
}

/**
 * The table of pipelines: name, app, environments in promotion order (manual ones marked), targets; and the set that
 * generated each, when some are generated.
 */
export function pipelinesTable(pipelines: readonly StoredPipeline[], now: Date): string[] {
  const sets = pipelines.map(({ document }) => generatingSet(document.metadata)?.name);
  const withSets = sets.some((set) => set !== undefined);
  return formatTable(
    [
      { header: 'NAMESPACE', max: 30 },
      { header: 'NAME', max: 40 },
      { header: 'APP', max: 40 },
      ...(withSets ? [{ header: 'SET', max: 40 }] : []),
      { header: 'TARGETS' },
      { header: 'APPLIED' },
      { header: 'ENVIRONMENTS' },
    ],
    pipelines.map(({ pipeline, appliedAt }, index) => [
      pipeline.namespace,
      pipeline.name,
      `${pipeline.appRef.kind} ${pipeline.appRef.name}`,
      ...(withSets ? [sets[index] ?? '-'] : []),
      String(pipeline.environments.reduce((sum, env) => sum + env.targets.length, 0)),
      ago(appliedAt, now),
      pipeline.environments.map((env) => (env.promotion?.manual ? `${env.name} (manual)` : env.name)).join(' → '),
    ]),
  );
}

/** The table of clusters: name, how the verifier reaches it, how many pipelines have targets on it. */
export function clustersTable(
  clusters: readonly StoredCluster[],
  pipelines: readonly StoredPipeline[],
  now: Date,
): string[] {
  return formatTable(
    [
      { header: 'NAMESPACE', max: 30 },
      { header: 'NAME', max: 40 },
      { header: 'PIPELINES' },
      { header: 'APPLIED' },
      { header: 'REACHED THROUGH' },
    ],
    clusters.map(({ document, appliedAt }) => {
      const key = keyOf(document.metadata);
      const users = pipelines.filter(({ pipeline }) =>
        pipeline.environments.some((env) =>
          env.targets.some((t) => objectKeyString(t.cluster) === objectKeyString(key)),
        ),
      );
      return [key.namespace, key.name, String(users.length), ago(appliedAt, now), access(document)];
    }),
  );
}

/** How the verifier reaches a cluster, in a few words. */
export function access(document: GitopsClusterDocument): string {
  const { namespace } = keyOf(document.metadata);
  const { secretRef, capiClusterRef, eks } = document.spec;
  if (secretRef) return `kubeconfig in Secret ${namespace}/${secretRef.name}`;
  if (capiClusterRef) {
    return `Cluster API cluster ${capiClusterRef.name} (Secret ${namespace}/${capiClusterRef.name}-kubeconfig)`;
  }
  if (eks) return `EKS ${eks.clusterName} in ${eks.region}${eks.roleArn ? ` as ${eks.roleArn}` : ''}`;
  return 'unknown';
}

/** The stored documents as a `v1 List`, the shape `kubectl get -o yaml` writes and `apply -f` reads. */
export function documentList(documents: readonly unknown[]): { apiVersion: 'v1'; kind: 'List'; items: unknown[] } {
  return { apiVersion: 'v1', kind: 'List', items: [...documents] };
}
