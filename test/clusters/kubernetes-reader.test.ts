// KubernetesClusterReader against the fake API server: real HTTPS, real @kubernetes/client-node.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { ClusterAccessError, type ClusterErrorKind } from '../../lib/clusters/index.js';
import { readTargetStatus } from '../../lib/flux/index.js';
import { FLUX_SERVED_VERSIONS } from '../../lib/testing/fake-kube-api.js';
import { COMMIT, helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster, gitopsCluster, names, Registry, startFake } from './helpers.js';

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

function withName(object: ReturnType<typeof helmRelease>, namespace: string, name: string) {
  object.metadata.namespace = namespace;
  object.metadata.name = name;
  return object;
}

describe('KubernetesClusterReader: reading', () => {
  it('GETs a v2 HelmRelease and a v1 Kustomization, whose status reads as deployed', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease(), kustomization()] });
    const reader = registry.reader();

    const hr = await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'));
    assert.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2');
    assert.equal(hr?.kind, 'HelmRelease');
    assert.deepEqual(hr?.status, helmRelease().status);
    assert.equal(readTargetStatus(hr).revision, '6.9.2');
    assert.equal(readTargetStatus(hr).phase, 'Ready');

    const ks = await reader.getApp(appKey('Kustomization', 'flux-system', 'apps'));
    assert.equal(ks?.apiVersion, 'kustomize.toolkit.fluxcd.io/v1');
    const status = readTargetStatus(ks);
    assert.equal(status.revision, `main@sha1:${COMMIT}`);
    assert.equal(status.phase, 'Ready', status.message);

    const gets = fake.requests.filter((request) => request.type === 'get').map((request) => request.path);
    assert.deepEqual(gets, [
      '/apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo',
      '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps',
    ]);
    // A consistent read: no resourceVersion.
    assert.ok(fake.requests.every((request) => request.query.resourceVersion === undefined));
  });

  it('answers undefined for an object that does not exist', async (t) => {
    const { registry } = await connectedCluster(t, { objects: [helmRelease()] });
    assert.equal(await registry.reader().getApp(appKey('HelmRelease', 'apps', 'nothing-here')), undefined);
    assert.equal(await registry.reader().getApp(appKey('HelmRelease', 'other', 'podinfo')), undefined);
  });

  it('discovers v2beta2 on a Flux 2.2 cluster, once for many reads', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.2'],
      objects: [helmRelease({ apiVersion: 'helm.toolkit.fluxcd.io/v2beta2' })],
    });
    const reader = registry.reader();
    for (let i = 0; i < 5; i++) {
      const hr = await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'));
      assert.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2beta2');
    }
    assert.equal((await reader.listApps(CLUSTER, 'HelmRelease', [])).length, 1);
    assert.equal(await reader.getApp(appKey('HelmRelease', 'apps', 'missing')), undefined);
    assert.equal(fake.count('discovery'), 1);
    assert.equal(fake.count('get'), 6);
    assert.ok(
      fake.requests
        .filter((request) => request.type !== 'discovery')
        .every((request) => request.path.startsWith('/apis/helm.toolkit.fluxcd.io/v2beta2/')),
    );
  });

  it('trusts discovery for an hour: polls 5 minutes apart do not ask again, the first after the hour does', async (t) => {
    let now = 1_000_000;
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader({ now: () => now });
    for (let poll = 0; poll < 12; poll++, now += 5 * 60_000) {
      assert.equal((await reader.listApps(CLUSTER, 'HelmRelease', [])).length, 1);
    }
    assert.equal(fake.count('discovery'), 1, 'one discovery for an hour of polls');
    await reader.listApps(CLUSTER, 'HelmRelease', []);
    assert.equal(fake.count('discovery'), 2, 'discovered again after the hour');
  });

  it('picks v2 where v2, v2beta2 and v2beta1 are served, and v1 for Kustomizations', async (t) => {
    const { fake, registry } = await connectedCluster(t, { servedVersions: FLUX_SERVED_VERSIONS['2.4'] });
    const reader = registry.reader();
    await reader.listApps(CLUSTER, 'HelmRelease', []);
    await reader.listApps(CLUSTER, 'Kustomization', []);
    assert.deepEqual(
      fake.requests.filter((request) => request.type === 'list').map((request) => request.path),
      ['/apis/helm.toolkit.fluxcd.io/v2/helmreleases', '/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations'],
    );
    assert.equal(fake.count('discovery'), 1);
  });

  it('reads HelmRelease v2 and Kustomization v1 on Flux 2.8 and 2.9, which serve nothing older', async (t) => {
    for (const release of ['2.8', '2.9'] as const) {
      for (const discovery of [true, false]) {
        const { fake, registry } = await connectedCluster(t, {
          servedVersions: FLUX_SERVED_VERSIONS[release],
          user: { name: 'verifier', discovery },
          objects: [helmRelease(), kustomization()],
        });
        const reader = registry.reader();
        const hr = await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'));
        const ks = await reader.getApp(appKey('Kustomization', 'flux-system', 'apps'));
        assert.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2', release);
        assert.equal(ks?.apiVersion, 'kustomize.toolkit.fluxcd.io/v1', release);
        assert.equal(readTargetStatus(hr).phase, 'Ready', release);
        assert.equal(readTargetStatus(ks).phase, 'Ready', release);
        assert.equal((await reader.listApps(CLUSTER, 'HelmRelease', [])).length, 1);
        assert.equal((await reader.listApps(CLUSTER, 'Kustomization', [])).length, 1);
        const objects = fake.requests.filter((request) => request.type !== 'discovery');
        // Never a request for an API the release removed: each one answered, none a "not served" 404.
        assert.deepEqual(
          objects.map((request) => request.status),
          objects.map(() => 200),
          `${release}, discovery ${discovery ? 'allowed' : 'forbidden'}`,
        );
      }
    }
  });

  it('reports a cluster that serves no readable version of the group, and discovers again next time', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    fake.setServedVersions('helm.toolkit.fluxcd.io', []);
    const reader = registry.reader();
    const error = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'server-error');
    assert.match(error.message, /cluster flux-system\/prod-eu: does not serve helm\.toolkit\.fluxcd\.io/);
    fake.setServedVersions('helm.toolkit.fluxcd.io', ['v2']);
    fake.put(helmRelease());
    assert.equal(
      (await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')))?.apiVersion,
      'helm.toolkit.fluxcd.io/v2',
    );
    assert.equal(fake.count('discovery'), 2);
  });

  it('a failed discovery is an error, not a missing object; a forbidden one falls back to the newest versions', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    fake.failNext(404, { path: /^\/apis$/ });
    const error = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'server-error');
    assert.match(error.message, /404 Not Found discovering API versions/);

    const forbidden = registry.reader();
    fake.failNext(403, { path: /^\/apis$/ });
    fake.resetRequests();
    for (let i = 0; i < 3; i++) assert.ok(await forbidden.getApp(appKey('HelmRelease', 'apps', 'podinfo')));
    assert.equal(fake.count('discovery'), 1);
    assert.equal(fake.requests.at(-1)?.path, '/apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo');
  });

  it('notices a cluster that stopped serving the discovered version (Flux upgraded)', async (t) => {
    let now = 1_000_000;
    const { fake, registry } = await connectedCluster(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.7'],
      objects: [helmRelease()],
    });
    fake.setServedVersions('helm.toolkit.fluxcd.io', ['v2beta2']);
    const reader = registry.reader({ now: () => now });
    assert.equal(
      (await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')))?.apiVersion,
      'helm.toolkit.fluxcd.io/v2beta2',
    );
    fake.setServedVersions('helm.toolkit.fluxcd.io', ['v2']);
    now += 120_000;
    assert.equal(
      (await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')))?.apiVersion,
      'helm.toolkit.fluxcd.io/v2',
    );
    assert.equal(fake.count('discovery'), 2);

    // A LIST that hits an unserved version does the same.
    fake.setServedVersions('helm.toolkit.fluxcd.io', ['v2beta2']);
    now += 120_000;
    const items = await reader.listApps(CLUSTER, 'HelmRelease', []);
    assert.deepEqual(
      items.map((item) => item.apiVersion),
      ['helm.toolkit.fluxcd.io/v2beta2'],
    );
    assert.equal(fake.count('discovery'), 3);
  });

  it('does not discover again for an object absent from a version the cluster serves', async (t) => {
    let now = 1_000_000;
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader({ now: () => now });
    assert.ok(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')));
    now += 120_000;
    assert.equal(await reader.getApp(appKey('HelmRelease', 'apps', 'gone')), undefined);
    assert.equal(fake.count('discovery'), 1, 'the API server said the object is absent, not that v2 is unserved');
    assert.equal(fake.count('get'), 2);
  });
});

describe('KubernetesClusterReader: listing', () => {
  it('lists 1,200 objects in pages of 500: three requests, every object', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    const expected: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const namespace = `team-${i % 3}`;
      const name = `app-${String(i).padStart(4, '0')}`;
      fake.put(withName(helmRelease(), namespace, name));
      expected.push(`${namespace}/${name}`);
    }
    const items = await registry.reader({ pageSize: 500 }).listApps(CLUSTER, 'HelmRelease', ['team-0']);
    assert.equal(items.length, 1200);
    assert.deepEqual(names(items), expected.sort());
    assert.ok(items.every((item) => item.apiVersion === 'helm.toolkit.fluxcd.io/v2' && item.kind === 'HelmRelease'));
    const lists = fake.requests.filter((request) => request.type === 'list');
    assert.equal(lists.length, 3);
    assert.deepEqual(
      lists.map((request) => [request.path, request.query.limit, request.query.continue === undefined]),
      [
        ['/apis/helm.toolkit.fluxcd.io/v2/helmreleases', '500', true],
        ['/apis/helm.toolkit.fluxcd.io/v2/helmreleases', '500', false],
        ['/apis/helm.toolkit.fluxcd.io/v2/helmreleases', '500', false],
      ],
    );
  });

  it('falls back to one LIST per namespace when the cluster-wide LIST is forbidden', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      user: { name: 'verifier', namespaces: ['apps', 'web'] },
      objects: [
        helmRelease(),
        withName(helmRelease(), 'web', 'frontend'),
        withName(helmRelease(), 'web', 'backend'),
        withName(helmRelease(), 'secret-team', 'vault'),
      ],
    });
    const items = await registry.reader({ pageSize: 1 }).listApps(CLUSTER, 'HelmRelease', ['apps', 'web', 'web']);
    assert.deepEqual(names(items), ['apps/podinfo', 'web/backend', 'web/frontend']);
    const lists = fake.requests.filter((request) => request.type === 'list');
    assert.deepEqual(lists[0] && [lists[0].path, lists[0].status], [
      '/apis/helm.toolkit.fluxcd.io/v2/helmreleases',
      403,
    ]);
    // apps: 1 page; web: 2 pages of 1.
    assert.equal(lists.filter((request) => request.path.includes('/namespaces/apps/')).length, 1);
    assert.equal(lists.filter((request) => request.path.includes('/namespaces/web/')).length, 2);
  });

  it('is forbidden when a namespace of the fallback is forbidden too', async (t) => {
    const { registry } = await connectedCluster(t, { user: { name: 'verifier', namespaces: ['apps'] } });
    const error = await rejection(
      registry.reader().listApps(CLUSTER, 'HelmRelease', ['apps', 'secret-team']),
      'forbidden',
    );
    assert.match(
      error.message,
      /^cluster flux-system\/prod-eu: 403 Forbidden listing helmreleases in secret-team: .*User "verifier" cannot list resource "helmreleases" in API group "helm.toolkit.fluxcd.io" in the namespace "secret-team"/,
    );
    const noNamespaces = await rejection(registry.reader().listApps(CLUSTER, 'HelmRelease', []), 'forbidden');
    assert.match(noNamespaces.message, /listing helmreleases in all namespaces: .*at the cluster scope/);
  });

  it('restarts a list once when its continue token expired (410)', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    for (let i = 0; i < 5; i++) fake.put(withName(helmRelease(), 'apps', `app-${i}`));
    fake.failNext(410, { path: /continue=/ });
    const items = await registry.reader({ pageSize: 2 }).listApps(CLUSTER, 'HelmRelease', []);
    assert.equal(items.length, 5);
    assert.deepEqual(
      fake.requests.filter((request) => request.type === 'list').map((request) => request.status),
      [200, 410, 200, 200, 200],
    );

    fake.resetRequests();
    fake.failNext(410, { path: /continue=/, times: 2 });
    const error = await rejection(
      registry.reader({ pageSize: 2 }).listApps(CLUSTER, 'HelmRelease', []),
      'server-error',
    );
    assert.equal(error.statusCode, 410);
    assert.match(error.message, /410 Gone listing helmreleases in all namespaces/);
  });
});

describe('KubernetesClusterReader: failures', () => {
  it('401 → unauthorized, naming the cluster and the read, never the token', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    const oldToken = fake.token;
    await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'));
    fake.rotateToken();
    const error = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'unauthorized');
    assert.equal(error.message, 'cluster flux-system/prod-eu: 401 Unauthorized reading helmreleases/podinfo in apps');
    assert.equal(error.statusCode, 401);
    assert.equal(error.retryable, false);
    assert.ok(!error.message.includes(oldToken));

    const list = await rejection(reader.listApps(CLUSTER, 'HelmRelease', ['apps']), 'unauthorized');
    assert.match(list.message, /401 Unauthorized listing helmreleases in all namespaces/);
  });

  it('a wrong token fails already at discovery: unauthorized', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    registry.secrets.set(
      { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' },
      { value: fake.kubeconfig({ token: 'wrong-token-value' }) },
    );
    const error = await rejection(registry.reader().getApp(appKey('HelmRelease', 'apps', 'x')), 'unauthorized');
    assert.match(error.message, /^cluster flux-system\/prod-eu: 401 Unauthorized discovering API versions$/);
  });

  it('403 on GET → forbidden, with the API server’s reason', async (t) => {
    const { registry } = await connectedCluster(t, {
      user: { name: 'system:serviceaccount:flux-system:verifier', namespaces: ['apps'] },
    });
    const error = await rejection(registry.reader().getApp(appKey('HelmRelease', 'kube-system', 'x')), 'forbidden');
    assert.equal(
      error.message,
      'cluster flux-system/prod-eu: 403 Forbidden reading helmreleases/x in kube-system: helmreleases.helm.toolkit.fluxcd.io "x" is forbidden: User "system:serviceaccount:flux-system:verifier" cannot get resource "helmreleases" in API group "helm.toolkit.fluxcd.io" in the namespace "kube-system"',
    );
    assert.equal(error.statusCode, 403);
  });

  it('500 → server-error (retryable)', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    fake.failNext(500, { path: '/namespaces/apps/helmreleases/podinfo', message: 'etcdserver: leader changed' });
    const reader = registry.reader();
    const error = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'server-error');
    assert.equal(error.statusCode, 500);
    assert.equal(error.retryable, true);
    assert.equal(
      error.message,
      'cluster flux-system/prod-eu: 500 Internal Server Error reading helmreleases/podinfo in apps: etcdserver: leader changed',
    );
    assert.ok(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')));
  });

  it('a hung server → timeout within the deadline (GET and discovery)', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader({ timeoutMs: 300 });
    fake.hangNext({ path: /^\/apis$/ });
    let started = Date.now();
    const discovery = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'timeout');
    assert.equal(discovery.message, 'cluster flux-system/prod-eu: no answer within 300 ms discovering API versions');
    let elapsed = Date.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 2000, `took ${elapsed} ms`);

    fake.hangNext({ path: 'helmreleases/podinfo' });
    started = Date.now();
    const get = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'timeout');
    elapsed = Date.now() - started;
    assert.ok(elapsed >= 250 && elapsed < 2000, `took ${elapsed} ms`);
    assert.equal(get.retryable, true);
    assert.match(get.message, /no answer within 300 ms reading helmreleases\/podinfo in apps/);
    // The next read through the same registry is fine (with the default deadline: on a busy machine an answer may
    // take longer than 300 ms, which is not what this test is about).
    assert.ok(await registry.reader().getApp(appKey('HelmRelease', 'apps', 'podinfo')));
  });

  it('a slow answer or a stalled body counts against the same deadline', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader({ timeoutMs: 300 });
    await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo'));

    fake.stallNext({ path: 'helmreleases/podinfo' });
    let started = Date.now();
    await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'timeout');
    assert.ok(Date.now() - started < 2000);
    assert.equal(fake.requests.at(-1)?.status, 200, 'the headers were sent');

    fake.latencyMs = (request) => (request.type === 'list' ? 5_000 : 0);
    started = Date.now();
    await rejection(reader.listApps(CLUSTER, 'HelmRelease', []), 'timeout');
    assert.ok(Date.now() - started < 2000);
  });

  it('an offline or stopped server, or a dropped connection → unreachable', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    fake.closeNext();
    const dropped = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'unreachable');
    assert.match(
      dropped.message,
      /^cluster flux-system\/prod-eu: cannot reach https:\/\/127\.0\.0\.1:\d+ \(ECONNRESET\)/,
    );

    fake.offline();
    const offline = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'unreachable');
    assert.equal(offline.retryable, true);
    fake.online();
    assert.ok(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')));

    await fake.stop();
    const stopped = await rejection(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'unreachable');
    assert.match(stopped.message, /\(ECONNREFUSED\) reading helmreleases\/podinfo in apps$/);
  });

  it('a server whose certificate does not verify → unreachable', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    const kubeconfig = parse(fake.kubeconfig()) as { clusters: { cluster: Record<string, unknown> }[] };
    for (const entry of kubeconfig.clusters) delete entry.cluster['certificate-authority-data'];
    const noCa = stringify(kubeconfig);
    registry.secrets.set({ namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' }, { value: noCa });
    const error = await rejection(registry.reader().getApp(appKey('HelmRelease', 'apps', 'x')), 'unreachable');
    assert.match(
      error.message,
      /\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    assert.equal(fake.count(), 0);
  });
});

describe('KubernetesClusterReader: configuration', () => {
  async function badConfig(registry: Registry, pattern: RegExp, secrets: readonly string[]): Promise<void> {
    const error = await rejection(registry.reader().getApp(appKey('HelmRelease', 'apps', 'podinfo')), 'bad-config');
    assert.match(error.message, pattern);
    assert.equal(error.retryable, false);
    for (const secret of secrets) {
      assert.ok(!error.message.includes(secret), 'the message leaks Secret content');
      assert.equal(error.cause, undefined, 'no cause that could carry Secret content');
    }
  }

  it('names the missing cluster, Secret or key, and never shows Secret content', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    const secret = { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' };
    const leaks = [fake.token, fake.caData];

    await badConfig(
      new Registry(),
      /^cluster flux-system\/prod-eu: no GitopsCluster flux-system\/prod-eu is registered$/,
      [],
    );

    const noSecret = new Registry();
    noSecret.setCluster(gitopsCluster(CLUSTER));
    await badConfig(
      noSecret,
      /^cluster flux-system\/prod-eu: Secret flux-system\/prod-eu-kubeconfig \(spec\.secretRef\) does not exist$/,
      [],
    );

    registry.secrets.set(secret, { config: fake.kubeconfig() });
    await badConfig(
      registry,
      /Secret flux-system\/prod-eu-kubeconfig \(spec\.secretRef\) has no key "value", "value\.yaml" or "kubeconfig" \(its keys: config\)$/,
      leaks,
    );

    registry.secrets.set(secret, { value: `${fake.kubeconfig()}\n  broken: [` });
    await badConfig(registry, /key "value" does not hold a usable kubeconfig: it is not valid YAML$/, leaks);

    registry.secrets.set(secret, {
      value: fake.kubeconfig().replace(/current-context: .*/, 'current-context: elsewhere'),
    });
    await badConfig(registry, /current-context "elsewhere" is not among its contexts$/, leaks);

    registry.secrets.set(secret, { value: fake.kubeconfig().replace(/server: .*/, 'server: not a url') });
    await badConfig(registry, /the server of context "fake" is not an http\(s\) URL$/, leaks);

    registry.secrets.set(secret, { value: `   ` });
    await badConfig(registry, /key "value" is empty$/, leaks);
  });

  it('refuses kubeconfigs that would run a program or read a local file', async (t) => {
    const { fake, registry } = await connectedCluster(t);
    const secret = { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' };
    const withUser = (user: string) =>
      fake.kubeconfig().replace(/users:\n(.*\n)*?contexts:/, `users:\n  - name: fake\n    user:\n${user}\ncontexts:`);

    registry.secrets.set(secret, {
      value: withUser('      exec:\n        apiVersion: client.authentication.k8s.io/v1\n        command: /bin/sh'),
    });
    await badConfig(registry, /users\[0\]\.user\.exec is not supported/, [fake.caData]);

    registry.secrets.set(secret, { value: withUser('      token-file: /proc/self/environ') });
    await badConfig(registry, /users\[0\]\.user\.token-file is not supported/, [fake.caData]);

    // Through a YAML merge key, which js-yaml (inside client-node) would resolve.
    registry.secrets.set(secret, {
      value: [
        'apiVersion: v1',
        'kind: Config',
        'x-base: &base',
        '  token-file: /proc/self/environ',
        `clusters: [{name: c, cluster: {server: "${fake.url}", certificate-authority-data: ${fake.caData}}}]`,
        'users: [{name: u, user: {<<: *base}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
      ].join('\n'),
    });
    await badConfig(registry, /users\[0\]\.user\.token-file is not supported/, [fake.caData]);
  });

  it('uses the "kubeconfig" key when there is no "value"', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    registry.secrets.set(
      { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' },
      { kubeconfig: fake.kubeconfig() },
    );
    assert.ok(await registry.reader().getApp(appKey('HelmRelease', 'apps', 'podinfo')));
  });

  it('resolves capiClusterRef to the Secret <name>-kubeconfig, key value', async (t) => {
    const fake = await startFake(t, { objects: [kustomization()] });
    const registry = new Registry();
    const key = { namespace: 'capi-clusters', name: 'edge-1' };
    registry.setCluster(gitopsCluster(key, { capiClusterRef: { name: 'edge-1-capi' } }));
    const reader = registry.reader();
    const missing = await rejection(reader.getApp(appKey('Kustomization', 'flux-system', 'apps', key)), 'bad-config');
    assert.match(
      missing.message,
      /^cluster capi-clusters\/edge-1: Secret capi-clusters\/edge-1-capi-kubeconfig \(spec\.capiClusterRef\) does not exist$/,
    );
    registry.secrets.set({ namespace: 'capi-clusters', name: 'edge-1-capi-kubeconfig' }, { value: fake.kubeconfig() });
    const ks = await reader.getApp(appKey('Kustomization', 'flux-system', 'apps', key));
    assert.equal(ks?.kind, 'Kustomization');
  });

  it('reuses the client of a cluster, and rebuilds it when its Secret or GitopsCluster changes', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    const key = appKey('HelmRelease', 'apps', 'podinfo');
    for (let i = 0; i < 3; i++) assert.ok(await reader.getApp(key));
    await reader.listApps(CLUSTER, 'HelmRelease', []);
    assert.equal(fake.count('discovery'), 1, 'one client, discovered once');
    assert.equal(registry.clusterReads, 4, 'the GitopsCluster is looked at on every call');

    // The token is rotated on the cluster; the Secret still has the old one.
    const newToken = fake.rotateToken();
    await rejection(reader.getApp(key), 'unauthorized');
    registry.secrets.set(
      { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' },
      { value: fake.kubeconfig({ token: newToken }) },
    );
    assert.ok(await reader.getApp(key));
    assert.ok(await reader.getApp(key));
    assert.equal(fake.count('discovery'), 2, 'a new client after the Secret changed');

    // The GitopsCluster now points at another Secret.
    registry.secrets.set({ namespace: CLUSTER.namespace, name: 'moved' }, { value: fake.kubeconfig() });
    registry.setCluster(gitopsCluster(CLUSTER, { secretRef: { name: 'moved' } }));
    assert.ok(await reader.getApp(key));
    assert.equal(fake.count('discovery'), 3);
  });

  it('keeps separate clients for separate clusters', async (t) => {
    const a = await startFake(t, { objects: [helmRelease()] });
    const b = await startFake(t, { objects: [kustomization()] });
    const registry = new Registry();
    const keyA = { namespace: 'flux-system', name: 'a' };
    const keyB = { namespace: 'flux-system', name: 'b' };
    registry.setCluster(gitopsCluster(keyA));
    registry.setCluster(gitopsCluster(keyB));
    registry.secrets.set({ namespace: 'flux-system', name: 'a-kubeconfig' }, { value: a.kubeconfig() });
    registry.secrets.set({ namespace: 'flux-system', name: 'b-kubeconfig' }, { value: b.kubeconfig() });
    const reader = registry.reader();
    assert.ok(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo', keyA)));
    assert.ok(await reader.getApp(appKey('Kustomization', 'flux-system', 'apps', keyB)));
    assert.equal(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo', keyB)), undefined);
    assert.equal(a.count('discovery') + b.count('discovery'), 2);
  });

  it('an EKS cluster without EKS access configured is bad-config', async () => {
    const registry = new Registry();
    registry.setCluster(gitopsCluster(CLUSTER, { eks: { clusterName: 'prod', region: 'eu-west-1' } }));
    const error = await rejection(registry.reader().getApp(appKey('HelmRelease', 'apps', 'x')), 'bad-config');
    assert.match(error.message, /spec\.eks is set but this controller has no EKS access configured/);
  });
});
