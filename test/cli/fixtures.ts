// The configuration the CLI tests apply, and the state a verifier would have recorded for it.
import assert from 'node:assert/strict';
import type { Store } from '../../lib/store/port.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import type { Backend } from '../../lib/cli/backend.js';
import { loadConfigurationText } from '../../lib/config/index.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

export const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };

export const CLUSTERS = `
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: dev, namespace: flux-system }
spec: { secretRef: { name: dev-kubeconfig } }
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: prod, namespace: flux-system }
spec: { eks: { clusterName: prod-eu, region: eu-west-1 } }
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: spare, namespace: flux-system }
spec: { eks: { clusterName: spare, region: eu-west-1 } }
`;

export const SECRETS = `
apiVersion: v1
kind: Secret
metadata: { name: dev-kubeconfig, namespace: flux-system }
stringData: { value: "apiVersion: v1\\nkind: Config\\n" }
---
apiVersion: v1
kind: Secret
metadata: { name: webhook-hmac, namespace: flux-system }
stringData: { hmac-key: not-so-secret }
---
apiVersion: v1
kind: Secret
metadata: { name: github, namespace: flux-system }
data: { token: Z2hwX3Rlc3Q= }
`;

export const pipeline = (prodNamespace: string) => `
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: podinfo, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: staging
      targets: [{ namespace: apps-staging, clusterRef: { kind: GitopsCluster, name: prod } }]
      promotion:
        manual: true
        strategy:
          pull-request: { type: github, url: 'https://github.com/acme/fleet', baseBranch: main, secretRef: { name: github } }
    - name: prod
      targets: [{ namespace: ${prodNamespace}, clusterRef: { kind: GitopsCluster, name: prod } }]
  promotion:
    strategy:
      notification: {}
      secretRef: { name: webhook-hmac }
`;

// Three problems (a missing cluster, an unknown field, a missing Secret) next to a valid GitopsCluster.
export const BAD = `
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: dev, namespace: flux-system }
spec: { eks: { clusterName: dev, region: eu-west-1 } }
---
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: podinfo, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod
      cluster: oops
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: missing } }]
  promotion:
    strategy:
      notification: {}
      secretRef: { name: webhook-hmac }
`;

/** A HelmRelease status as helm-controller leaves it after a successful upgrade to `revision`. */
export const healthy = (revision: string): TargetStatus => ({
  revision,
  phase: 'Ready',
  reason: 'Deployed',
  message: `deployed ${revision} (UpgradeSucceeded)`,
});

/** The podinfo HelmRelease of the fixtures' Pipeline in `namespace` on GitopsCluster flux-system/`cluster`. */
export const app = (cluster: string, namespace: string): AppKey => ({
  cluster: { namespace: 'flux-system', name: cluster },
  kind: 'HelmRelease',
  namespace,
  name: 'podinfo',
});

/** Records what a verifier would have: dev on 6.9.2, staging and prod on 6.9.1, a request for 6.9.2 in staging. */
export async function seed(store: Store): Promise<void> {
  const now = new Date();
  const earlier = new Date(now.getTime() - 3_600_000);
  await store.recordTargetStatus(app('dev', 'apps'), healthy('6.9.2'), now);
  await store.recordTargetStatus(app('prod', 'apps-staging'), healthy('6.9.1'), now);
  await store.recordTargetStatus(app('prod', 'apps'), healthy('6.9.1'), now);
  assert.equal(await store.requestApproval(PIPELINE, 'staging', '6.9.2', now), 'requested');
  // The promotion that brought 6.9.1 to staging, an hour ago.
  await store.createPromotion(PIPELINE, 'staging', '6.9.1', earlier);
  const claimed = await store.claimPromotion(PIPELINE, 'staging', '6.9.1', 'test', 60_000, earlier);
  assert.ok(claimed);
  assert.ok(await store.completePromotion(claimed, 'https://github.com/acme/fleet/pull/7', earlier));
}

/**
 * A backend over the in-memory store holding the CLI tests' clusters and `pipelineYaml`, for the commands that only
 * read the store and derive keys from `masterKey` (flux-config); anything else it is asked for fails the test.
 */
export async function storeBackend(pipelineYaml: string, masterKey: string): Promise<Backend> {
  const loaded = loadConfigurationText(CLUSTERS + '---' + SECRETS + '---' + pipelineYaml, 'config.yaml');
  assert.ok(loaded.ok, JSON.stringify(loaded));
  const store = new MemoryStore();
  const now = new Date('2026-01-01T00:00:00Z');
  for (const cluster of loaded.configuration.clusters) await store.applyCluster(cluster.document, now);
  for (const [i, resolved] of loaded.configuration.pipelines.entries()) {
    const document = loaded.configuration.pipelineDocuments[i];
    assert.ok(document);
    await store.applyPipeline(document.document, resolved, now);
  }
  const unused = () => Promise.reject(new Error('this command must not call this'));
  return {
    description: 'the in-memory store',
    store,
    putSecret: unused,
    secretKeys: unused,
    enqueue: unused,
    identity: unused,
    masterKeys: () => Promise.resolve({ current: masterKey }),
    close: () => Promise.resolve(),
  };
}
