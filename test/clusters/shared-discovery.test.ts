// API discovery (GET /apis) once per cluster, however many reads of it run at once: concurrent readers share the
// client and its discovery in flight; a failed discovery is shared by the reads waiting on it, and only by them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterAccessError } from '../../lib/clusters/index.js';
import { helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster, gitopsCluster, Registry, startFake } from './helpers.js';

const CLUSTERS = 200;

describe('KubernetesClusterReader: discovery shared by concurrent reads', () => {
  it(`${CLUSTERS} clusters read concurrently (two LISTs and a GET each): one discovery request per cluster`, async (t) => {
    const registry = new Registry();
    const fakes = await Promise.all(
      Array.from({ length: CLUSTERS }, () => startFake(t, { objects: [helmRelease(), kustomization()] })),
    );
    const clusters = fakes.map((fake, index) => {
      const key = { namespace: 'flux-system', name: `leaf-${String(index).padStart(3, '0')}` };
      registry.setCluster(gitopsCluster(key));
      registry.secrets.set({ namespace: key.namespace, name: `${key.name}-kubeconfig` }, { value: fake.kubeconfig() });
      return key;
    });
    // 600 reads over 200 TLS connections at once: on a busy machine the handshakes alone can take longer than the
    // production default of 10 s, which would make this a test of the machine's load, not of discovery.
    const reader = registry.reader({ timeoutMs: 120_000 });

    const reads = await Promise.all(
      clusters.flatMap((cluster) => [
        reader.listApps(cluster, 'HelmRelease', []),
        reader.listApps(cluster, 'Kustomization', []),
        reader.getApp(appKey('HelmRelease', 'apps', 'podinfo', cluster)),
      ]),
    );
    assert.equal(reads.filter((read) => read !== undefined).length, CLUSTERS * 3);
    const discoveries = fakes.map((fake) => fake.count('discovery'));
    assert.deepEqual(
      discoveries.filter((count) => count !== 1),
      [],
    );
    assert.equal(
      discoveries.reduce((sum, count) => sum + count, 0),
      CLUSTERS,
    );
  });

  it('a failed discovery fails the reads waiting on it, and the next read discovers again', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    fake.failNext(401, { path: /^\/apis$/ });

    const failed = await Promise.allSettled(
      Array.from({ length: 5 }, () => reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'))),
    );
    for (const result of failed) {
      assert.equal(result.status, 'rejected');
      assert.ok(result.reason instanceof ClusterAccessError);
      assert.equal(result.reason.kind, 'unauthorized');
    }
    assert.equal(fake.count('discovery'), 1);
    assert.equal(fake.count('get'), 0);

    const read = await Promise.all([
      reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')),
      reader.listApps(CLUSTER, 'HelmRelease', []),
    ]);
    assert.ok(read[0]);
    assert.equal(read[1].length, 1);
    assert.equal(fake.count('discovery'), 2);
  });
});
