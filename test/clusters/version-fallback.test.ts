// When the reader cannot learn the served versions (GET /apis forbidden or failing), it tries the versions it reads
// in order, best first, moving on only when the API server says the version is not served, and remembers per cluster
// the version that answered (docs/flux-status.md, "Reading app objects from a leaf cluster").
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ClusterAccessError, type ClusterErrorKind } from '../../lib/clusters/index.js';
import type { FakeKubeApiOptions, FakeRequest } from '../../lib/testing/fake-kube-api.js';
import { statusOf } from '../../lib/verifier/observe.js';
import { helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster } from './helpers.js';

const HELM = 'helm.toolkit.fluxcd.io';
const KUSTOMIZE = 'kustomize.toolkit.fluxcd.io';
const FOREVER = Number.MAX_SAFE_INTEGER;
const PODINFO = appKey('HelmRelease', 'apps', 'podinfo');
const APPS = appKey('Kustomization', 'flux-system', 'apps');

/** How discovery is made unavailable: the RBAC binding removed, or the API server failing it. */
const UNAVAILABLE_DISCOVERY: ReadonlyArray<{
  name: string;
  start(t: TestContext): ReturnType<typeof connectedCluster>;
}> = [
  {
    name: 'forbidden',
    start: (t) => connectedCluster(t, { ...olderFlux(), user: { name: 'verifier', discovery: false } }),
  },
  {
    name: 'answering 500',
    start: async (t) => {
      const connected = await connectedCluster(t, olderFlux());
      connected.fake.failNext(500, { path: /^\/apis$/, times: FOREVER });
      return connected;
    },
  },
];

/** A cluster serving HelmRelease v2beta2 only and Kustomization v1beta2 only, with one of each. */
function olderFlux(): FakeKubeApiOptions {
  return {
    servedVersions: { [HELM]: ['v2beta2'], [KUSTOMIZE]: ['v1beta2'] },
    objects: [helmRelease({ apiVersion: `${HELM}/v2beta2` }), kustomization({ apiVersion: `${KUSTOMIZE}/v1beta2` })],
  };
}

/** `<status> <path>` of each request but discovery, in order. */
function reads(requests: readonly FakeRequest[]): string[] {
  return requests
    .filter((request) => request.type !== 'discovery')
    .map((request) => `${request.status ?? '-'} ${request.path}`);
}

async function rejection(promise: Promise<unknown>, kind: ClusterErrorKind): Promise<ClusterAccessError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ClusterAccessError, `not a ClusterAccessError: ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    return error;
  }
  assert.fail(`expected a ${kind} ClusterAccessError`);
}

describe('KubernetesClusterReader: served versions without discovery', () => {
  for (const discovery of UNAVAILABLE_DISCOVERY) {
    it(`discovery ${discovery.name}, v2beta2 only: GET finds v2beta2 after a 404 on v2, and remembers it`, async (t) => {
      const { fake, registry } = await discovery.start(t);
      const reader = registry.reader();

      const hr = await reader.getApp(PODINFO);
      assert.equal(hr?.apiVersion, `${HELM}/v2beta2`);
      assert.equal(statusOf(PODINFO, hr).phase, 'Ready');
      assert.deepEqual(reads(fake.requests), [
        '404 /apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo',
        '200 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo',
      ]);

      fake.resetRequests();
      for (let i = 0; i < 3; i++) assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2beta2`);
      const items = await reader.listApps(CLUSTER, 'HelmRelease', []);
      assert.deepEqual(
        items.map((item) => item.apiVersion),
        [`${HELM}/v2beta2`],
      );
      assert.deepEqual(reads(fake.requests), [
        ...Array<string>(3).fill('200 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo'),
        '200 /apis/helm.toolkit.fluxcd.io/v2beta2/helmreleases',
      ]);
      assert.equal(fake.count('discovery'), 0, 'discovery is not asked again on every read');
    });

    it(`discovery ${discovery.name}, v1beta2 only: LIST finds v1beta2 after a 404 on v1, and GET then reads it at once`, async (t) => {
      const { fake, registry } = await discovery.start(t);
      const reader = registry.reader();

      const items = await reader.listApps(CLUSTER, 'Kustomization', []);
      assert.deepEqual(
        items.map((item) => item.apiVersion),
        [`${KUSTOMIZE}/v1beta2`],
      );
      const ks = await reader.getApp(APPS);
      assert.equal(ks?.apiVersion, `${KUSTOMIZE}/v1beta2`);
      assert.equal(statusOf(APPS, ks).phase, 'Ready');
      assert.deepEqual(reads(fake.requests), [
        '404 /apis/kustomize.toolkit.fluxcd.io/v1/kustomizations',
        '200 /apis/kustomize.toolkit.fluxcd.io/v1beta2/kustomizations',
        '200 /apis/kustomize.toolkit.fluxcd.io/v1beta2/namespaces/flux-system/kustomizations/apps',
      ]);
      assert.equal(fake.count('discovery'), 1);
    });

    it(`discovery ${discovery.name}: an object absent from the served version is Absent, found in one request once known`, async (t) => {
      const { fake, registry } = await discovery.start(t);
      const reader = registry.reader();
      const missing = appKey('HelmRelease', 'apps', 'not-there');

      assert.equal(await reader.getApp(missing), undefined);
      assert.equal(statusOf(missing, undefined).phase, 'Absent');
      // v2beta2 answers "this object is not found", not "this path is not served": v2beta1 is not tried.
      assert.deepEqual(reads(fake.requests), [
        '404 /apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/not-there',
        '404 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/not-there',
      ]);
      fake.resetRequests();
      assert.equal(await reader.getApp(missing), undefined);
      assert.equal(await reader.getApp(PODINFO).then((hr) => hr?.apiVersion), `${HELM}/v2beta2`);
      assert.deepEqual(reads(fake.requests), [
        '404 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/not-there',
        '200 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo',
      ]);
    });
  }

  it('an object in no version at all (none served) is Absent, not an error; a LIST says the group is not served', async (t) => {
    const { fake, registry } = await connectedCluster(t, { user: { name: 'verifier', discovery: false } });
    fake.setServedVersions(HELM, []);
    const reader = registry.reader();

    assert.equal(await reader.getApp(PODINFO), undefined);
    assert.deepEqual(reads(fake.requests), [
      '404 /apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo',
      '404 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo',
      '404 /apis/helm.toolkit.fluxcd.io/v2beta1/namespaces/apps/helmreleases/podinfo',
    ]);

    const error = await rejection(reader.listApps(CLUSTER, 'HelmRelease', []), 'server-error');
    assert.equal(
      error.message,
      'cluster flux-system/prod-eu: does not serve helm.toolkit.fluxcd.io in v2, v2beta2, v2beta1 (404 for each; discovery was not available); is Flux installed?',
    );
  });

  it('notices an upgrade of Flux: the remembered version answering "not served" makes it try the others again', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      ...olderFlux(),
      user: { name: 'verifier', discovery: false },
    });
    const reader = registry.reader();
    assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2beta2`);

    fake.setServedVersions(HELM, ['v2']);
    fake.resetRequests();
    assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2`);
    assert.equal((await reader.listApps(CLUSTER, 'HelmRelease', [])).length, 1);
    assert.deepEqual(reads(fake.requests), [
      '404 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo',
      '200 /apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo',
      '200 /apis/helm.toolkit.fluxcd.io/v2/helmreleases',
    ]);
  });

  it('keeps other failures: a 403 on the object or a 500 while trying is reported, not taken for "not served"', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      ...olderFlux(),
      user: { name: 'verifier', discovery: false, namespaces: ['flux-system'] },
    });
    const reader = registry.reader();
    const forbidden = await rejection(reader.getApp(PODINFO), 'forbidden');
    assert.match(forbidden.message, /403 Forbidden reading helmreleases\/podinfo in apps/);

    fake.failNext(500, { path: '/v2/' });
    const failed = await rejection(reader.getApp(appKey('HelmRelease', 'flux-system', 'podinfo')), 'server-error');
    assert.match(failed.message, /500 Internal Server Error reading helmreleases\/podinfo in flux-system/);
    assert.equal(fake.count('get'), 2, 'no other version is tried after a 500');
  });

  it('asks discovery again once its failure is older than the trust period, and then follows it', async (t) => {
    let now = 1_000_000;
    const { fake, registry } = await connectedCluster(t, olderFlux());
    fake.failNext(503, { path: /^\/apis$/ });
    const reader = registry.reader({ now: () => now, discoveryTtlMs: 60_000 });
    assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2beta2`);
    assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2beta2`);
    assert.equal(fake.count('discovery'), 1);

    now += 61_000;
    fake.resetRequests();
    assert.equal((await reader.getApp(PODINFO))?.apiVersion, `${HELM}/v2beta2`);
    assert.deepEqual(
      fake.requests.map((request) => `${request.status ?? '-'} ${request.path}`),
      ['200 /apis', '200 /apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo'],
    );
  });
});
