// What the freeze tests share: stored pipelines in the in-memory store, and a look at their audit trails.
import type { PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

export const NOW = new Date('2026-11-20T12:00:00Z');
export const HOUR = 3_600_000;
export const ALICE = 'local:alice';
export const PODINFO: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };

/** A pipeline dev → prod (and `extra` environments after prod). */
export function pipelineDocument(key: ObjectKey, extra: readonly string[] = []): PipelineDocument {
  const env = (name: string) => ({
    name,
    targets: [{ namespace: name, clusterRef: { kind: 'GitopsCluster' as const, name: 'prod' } }],
  });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: key.name, namespace: key.namespace },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: key.name },
      environments: [env('dev'), env('prod'), ...extra.map(env)],
      promotion: { strategy: { notification: {} } },
    },
  };
}

/**
 * A memory store holding `pipelines` (name → extra environments), whose listPipelines answers one pipeline per page,
 * so an installation-wide switch is seen to page through them all.
 */
export async function storeWith(pipelines: Readonly<Record<string, readonly string[]>>): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (const [name, extra] of Object.entries(pipelines)) {
    const document = pipelineDocument({ namespace: 'flux-system', name }, extra);
    await store.applyPipeline(document, resolvePipeline(document), NOW);
  }
  const listPipelines = store.listPipelines.bind(store);
  store.listPipelines = (page = {}) => listPipelines({ ...page, limit: 1 });
  return store;
}

/** The audit trail of flux-system/`name`, newest first. */
export async function trail(store: MemoryStore, name: string) {
  return (await store.listAudit({ namespace: 'flux-system', name })).items;
}
