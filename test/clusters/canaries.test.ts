// Flagger Canaries on a leaf cluster: the fake API server serves flagger.app/v1beta1 as a cluster with Flagger does
// (discovery, GET, LIST), and the cluster reader's getCanary reads one through discovery, like a Flux object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApisApi, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { ClusterAccessError } from '../../lib/clusters/index.js';
import { FLAGGER_GROUP, FLUX_SERVED_VERSIONS } from '../../lib/testing/fake-kube-api.js';
import { canary } from '../fixtures/flagger-objects.js';
import { CLUSTER, connectedCluster } from './helpers.js';

const PODINFO = { namespace: 'apps', name: 'podinfo' };

describe('Flagger Canaries', () => {
  it('are served by the fake as flagger.app/v1beta1, besides any Flux release: discovery, GET and LIST', async (t) => {
    const { fake } = await connectedCluster(t, { servedVersions: FLUX_SERVED_VERSIONS['2.9'] });
    fake.put(canary({ phase: 'Progressing' }));
    fake.put(canary({ name: 'backend', phase: 'Succeeded' }));
    fake.put(canary({ name: 'frontend', namespace: 'web', phase: 'Succeeded' }));
    const config = new KubeConfig();
    config.loadFromString(fake.kubeconfig());

    const groups = await config.makeApiClient(ApisApi).getAPIVersions();
    const flagger = groups.groups.find((group) => group.name === FLAGGER_GROUP);
    assert.equal(flagger?.preferredVersion?.version, 'v1beta1');

    const objects = config.makeApiClient(CustomObjectsApi);
    const request = { group: FLAGGER_GROUP, version: 'v1beta1', plural: 'canaries' };
    const list = (await objects.listNamespacedCustomObject({ ...request, namespace: 'apps' })) as {
      kind: string;
      items: { metadata: { name: string } }[];
    };
    assert.equal(list.kind, 'CanaryList');
    assert.deepEqual(list.items.map((item) => item.metadata.name).sort(), ['backend', 'podinfo']);
    const one = (await objects.getNamespacedCustomObject({ ...request, namespace: 'apps', name: 'podinfo' })) as {
      status: { phase: string };
    };
    assert.equal(one.status.phase, 'Progressing');
  });

  it('are read by the cluster reader in the version discovery finds', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    fake.put(canary({ phase: 'Succeeded' }));
    const reader = registry.reader();
    const found = await reader.getCanary(CLUSTER, PODINFO);
    assert.equal((found?.status as { phase?: string } | undefined)?.phase, 'Succeeded');
    assert.equal(found?.apiVersion, 'flagger.app/v1beta1');
    assert.equal(await reader.getCanary(CLUSTER, { namespace: 'apps', name: 'missing' }), undefined);
  });

  it('are absent on a cluster without Flagger, rather than an error', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    fake.setServedVersions(FLAGGER_GROUP, []);
    assert.equal(await registry.reader().getCanary(CLUSTER, PODINFO), undefined);
  });

  it('a read the cluster forbids throws a ClusterAccessError of kind forbidden, as for Flux objects', async (t) => {
    const { fake, registry } = await connectedCluster(t, { user: { name: 'reader', namespaces: ['flux-system'] } });
    fake.put(canary());
    await assert.rejects(
      registry.reader().getCanary(CLUSTER, PODINFO),
      (error) => error instanceof ClusterAccessError && error.kind === 'forbidden',
    );
  });
});
