// Which key of a GitopsCluster's Secret the reader takes the kubeconfig from: `value`, then `value.yaml` (both read
// by Weave's cluster-controller), then `kubeconfig` for a secretRef; `value`, then `value.yaml` for Cluster API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterAccessError } from '../../lib/clusters/index.js';
import { helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster, gitopsCluster, Registry, startFake } from './helpers.js';

const SECRET = { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' };
const PODINFO = appKey('HelmRelease', 'apps', 'podinfo');

async function badConfigMessage(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ClusterAccessError, String(error));
    assert.equal(error.kind, 'bad-config', error.message);
    return error.message;
  }
  assert.fail('expected a bad-config ClusterAccessError');
}

describe('KubernetesClusterReader: kubeconfig Secret keys', () => {
  it('connects with a secretRef Secret holding the kubeconfig under "value.yaml"', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    registry.secrets.set(SECRET, { 'value.yaml': fake.kubeconfig() });
    const hr = await registry.reader().getApp(PODINFO);
    assert.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2');
    assert.equal(fake.requests.at(-1)?.user, 'test-user');
  });

  it('connects with a Cluster API <name>-kubeconfig Secret holding "value.yaml"', async (t) => {
    const fake = await startFake(t, { objects: [kustomization()] });
    const registry = new Registry();
    const key = { namespace: 'capi-clusters', name: 'edge-1' };
    registry.setCluster(gitopsCluster(key, { capiClusterRef: { name: 'edge-1' } }));
    registry.secrets.set(
      { namespace: 'capi-clusters', name: 'edge-1-kubeconfig' },
      { 'value.yaml': fake.kubeconfig() },
    );
    const ks = await registry.reader().getApp(appKey('Kustomization', 'flux-system', 'apps', key));
    assert.equal(ks?.kind, 'Kustomization');
  });

  it('prefers "value", then "value.yaml", then "kubeconfig"', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const good = fake.kubeconfig();
    const wrongToken = fake.kubeconfig({ token: 'not-the-token' });

    registry.secrets.set(SECRET, { value: good, 'value.yaml': wrongToken, kubeconfig: wrongToken });
    assert.ok(await registry.reader().getApp(PODINFO));

    registry.secrets.set(SECRET, { 'value.yaml': good, kubeconfig: wrongToken });
    assert.ok(await registry.reader().getApp(PODINFO));

    // The key read is the one a message names.
    registry.secrets.set(SECRET, { 'value.yaml': '   ', kubeconfig: good });
    assert.match(
      await badConfigMessage(registry.reader().getApp(PODINFO)),
      /^cluster flux-system\/prod-eu: Secret flux-system\/prod-eu-kubeconfig \(spec\.secretRef\) key "value\.yaml" is empty$/,
    );
  });

  it('names every key it looks for when the Secret has none of them', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    registry.secrets.set(SECRET, { config: fake.kubeconfig() });
    assert.match(
      await badConfigMessage(registry.reader().getApp(PODINFO)),
      /Secret flux-system\/prod-eu-kubeconfig \(spec\.secretRef\) has no key "value", "value\.yaml" or "kubeconfig" \(its keys: config\)$/,
    );

    const capi = new Registry();
    capi.setCluster(gitopsCluster(CLUSTER, { capiClusterRef: { name: 'prod-eu' } }));
    capi.secrets.set(SECRET, { kubeconfig: fake.kubeconfig() });
    assert.match(
      await badConfigMessage(capi.reader().getApp(PODINFO)),
      /Secret flux-system\/prod-eu-kubeconfig \(spec\.capiClusterRef\) has no key "value" or "value\.yaml" \(its keys: kubeconfig\)$/,
    );
  });
});
