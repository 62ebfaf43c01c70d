// Shared set-up of the cluster tests: a registry of GitopsClusters and Secrets in memory, and a fake API server per
// test, stopped when the test ends.
import type { TestContext } from 'node:test';
import { KubernetesClusterReader, type KubernetesClusterReaderOptions } from '../../lib/clusters/index.js';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeKubeApi, type FakeKubeApiOptions } from '../../lib/testing/fake-kube-api.js';

export const CLUSTER: ObjectKey = { namespace: 'flux-system', name: 'prod-eu' };

export function gitopsCluster(
  key: ObjectKey,
  spec: GitopsClusterDocument['spec'] = { secretRef: { name: `${key.name}-kubeconfig` } },
): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name: key.name, namespace: key.namespace },
    spec,
  };
}

/** GitopsClusters and Secrets, changeable while a reader uses them. */
export class Registry {
  readonly clusters = new Map<string, GitopsClusterDocument>();
  readonly secrets = new StaticSecretSource();
  clusterReads = 0;

  setCluster(document: GitopsClusterDocument): void {
    this.clusters.set(`${document.metadata.namespace}/${document.metadata.name}`, document);
  }

  getCluster = (key: ObjectKey): Promise<GitopsClusterDocument | undefined> => {
    this.clusterReads++;
    return Promise.resolve(this.clusters.get(`${key.namespace}/${key.name}`));
  };

  reader(options: Partial<KubernetesClusterReaderOptions> = {}): KubernetesClusterReader {
    return new KubernetesClusterReader({ getCluster: this.getCluster, secrets: this.secrets, ...options });
  }
}

export async function startFake(t: TestContext, options: FakeKubeApiOptions = {}): Promise<FakeKubeApi> {
  const fake = await FakeKubeApi.start(options);
  t.after(() => fake.stop());
  return fake;
}

/** A fake API server with CLUSTER registered through a secretRef Secret holding its kubeconfig. */
export async function connectedCluster(
  t: TestContext,
  options: FakeKubeApiOptions = {},
): Promise<{ fake: FakeKubeApi; registry: Registry }> {
  const fake = await startFake(t, options);
  const registry = new Registry();
  registry.setCluster(gitopsCluster(CLUSTER));
  registry.secrets.set({ namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' }, { value: fake.kubeconfig() });
  return { fake, registry };
}

export function appKey(kind: AppKey['kind'], namespace: string, name: string, cluster = CLUSTER): AppKey {
  return { cluster, kind, namespace, name };
}

/** `namespace/name` of each object, sorted. */
export function names(objects: readonly Record<string, unknown>[]): string[] {
  return objects
    .map((object) => {
      const metadata = object.metadata as { namespace?: string; name?: string };
      return `${metadata.namespace}/${metadata.name}`;
    })
    .sort();
}
