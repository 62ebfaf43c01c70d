// The fake fleet in a child process (lib/testing/fake-kube-fleet.ts) that the poll benchmarks read: each server
// serves what was put on every server, counts what it received, answers after the latency set, and the process goes
// when the fleet is stopped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeKubeFleet } from '../../lib/testing/fake-kube-fleet.js';
import { installedHelmRelease } from '../../lib/testing/helm-release.js';
import { gitopsCluster, names, Registry } from './helpers.js';

describe('a fake fleet in a process of its own', () => {
  let fleet: FakeKubeFleet;
  const registry = new Registry();
  const cluster = (index: number) => ({ namespace: 'flux-system', name: `leaf-${index}` });

  before(async () => {
    fleet = await FakeKubeFleet.start(2);
    for (const [index, kubeconfig] of fleet.kubeconfigs.entries()) {
      registry.setCluster(gitopsCluster(cluster(index)));
      registry.secrets.set({ namespace: 'flux-system', name: `leaf-${index}-kubeconfig` }, { value: kubeconfig });
    }
  });
  after(() => fleet.stop());

  it('serves the objects put on every server, each server counting its own requests', async () => {
    await fleet.putEverywhere([
      installedHelmRelease({ namespace: 'apps', name: 'podinfo' }, '6.9.2'),
      installedHelmRelease({ namespace: 'apps', name: 'redis' }, '7.4.1'),
    ]);
    const reader = registry.reader();
    assert.deepEqual(names(await reader.listApps(cluster(1), 'HelmRelease', ['apps'])), ['apps/podinfo', 'apps/redis']);
    const [first, second] = await fleet.requestCounts();
    assert.equal(first?.list, 0);
    assert.equal(second?.list, 1);
    assert.equal(second?.get, 0);
    assert.equal(second?.tlsConnections, 1);
    await fleet.resetRequests();
    assert.deepEqual(
      (await fleet.requestCounts()).map(({ list, tlsConnections }) => [list, tlsConnections]),
      [
        [0, 0],
        [0, 0],
      ],
    );
  });

  it('answers after the latency set', async () => {
    await fleet.setLatency(150);
    const started = performance.now();
    await registry.reader().listApps(cluster(0), 'HelmRelease', ['apps']);
    assert.ok(performance.now() - started >= 150);
    await fleet.setLatency(0);
  });

  it('is gone once stopped', async () => {
    const stopping = await FakeKubeFleet.start(1);
    await stopping.stop();
    await assert.rejects(stopping.requestCounts(), /stopped/);
  });
});
