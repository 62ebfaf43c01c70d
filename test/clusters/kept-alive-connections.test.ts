// Connections to leaf clusters are kept alive, one pool per cluster, counted as the fake API server sees them (TLS
// handshakes), and made with exactly the TLS settings client-node would use; a changed kubeconfig never reuses them.
import assert from 'node:assert/strict';
import type { Agent as HttpsAgent } from 'node:https';
import { describe, it } from 'node:test';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { ClusterAccessError, type ClusterErrorKind } from '../../lib/clusters/index.js';
import { IDLE_CONNECTION_MS, KeptAliveConnections } from '../../lib/clusters/kept-alive-connections.js';
import type { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster, gitopsCluster, Registry, startFake } from './helpers.js';

const PODINFO = appKey('HelmRelease', 'apps', 'podinfo');
const SECRET = { namespace: CLUSTER.namespace, name: 'prod-eu-kubeconfig' };

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

/** The fake's kubeconfig with its cluster entry changed. */
function kubeconfigWith(fake: FakeKubeApi, change: (cluster: Record<string, unknown>) => void): string {
  const kubeconfig = parse(fake.kubeconfig()) as { clusters: { cluster: Record<string, unknown> }[] };
  for (const entry of kubeconfig.clusters) change(entry.cluster);
  return stringify(kubeconfig);
}

describe('KubernetesClusterReader: kept-alive connections', () => {
  it('reads one cluster 100 times over one TLS connection', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    for (let i = 0; i < 100; i++) assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.count('get'), 100);
    assert.equal(fake.count('discovery'), 1);
    assert.equal(fake.tlsConnections, 1);
  });

  it('a poll (both kinds at once, twice) opens no more connections than requests in flight', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease(), kustomization()] });
    const reader = registry.reader();
    for (let poll = 0; poll < 2; poll++) {
      const [helmReleases, kustomizations] = await Promise.all([
        reader.listApps(CLUSTER, 'HelmRelease', []),
        reader.listApps(CLUSTER, 'Kustomization', []),
      ]);
      assert.equal(helmReleases.length, 1);
      assert.equal(kustomizations.length, 1);
    }
    assert.equal(fake.count('list'), 4);
    assert.ok(fake.tlsConnections >= 1 && fake.tlsConnections <= 2, `${fake.tlsConnections} connections`);
  });

  it('two clusters: one connection each', async (t) => {
    const registry = new Registry();
    const fakes = [await startFake(t, { objects: [helmRelease()] }), await startFake(t, { objects: [helmRelease()] })];
    const clusters = fakes.map((fake, index) => {
      const key = { namespace: 'flux-system', name: `leaf-${index}` };
      registry.setCluster(gitopsCluster(key));
      registry.secrets.set({ namespace: key.namespace, name: `${key.name}-kubeconfig` }, { value: fake.kubeconfig() });
      return key;
    });
    const reader = registry.reader();
    for (let i = 0; i < 20; i++) {
      for (const cluster of clusters) assert.ok(await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo', cluster)));
    }
    assert.deepEqual(
      fakes.map((fake) => [fake.count('get'), fake.tlsConnections]),
      [
        [20, 1],
        [20, 1],
      ],
    );
  });

  it('a kubeconfig Secret re-applied with a new token: the next read uses it on a new connection', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    assert.ok(await reader.getApp(PODINFO));
    fake.rotateToken();
    await rejection(reader.getApp(PODINFO), 'unauthorized');
    assert.equal(fake.tlsConnections, 1);

    registry.secrets.set(SECRET, { value: fake.kubeconfig() });
    assert.ok(await reader.getApp(PODINFO));
    assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 2);
    // The connection of the old token is closed at once (the idle timer would take 4 s: the server asks for 5).
    await waitFor('one open connection', () => fake.openConnections === 1, { intervalMs: 10 });
  });

  it('a kubeconfig Secret re-applied with a CA that does not verify the server: no read over the kept connection', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    assert.ok(await reader.getApp(PODINFO));
    const requests = fake.count();

    registry.secrets.set(SECRET, {
      value: kubeconfigWith(fake, (cluster) => delete cluster['certificate-authority-data']),
    });
    const error = await rejection(reader.getApp(PODINFO), 'unreachable');
    assert.match(
      error.message,
      /\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/,
    );
    assert.equal(fake.count(), requests, 'the fake received nothing more');
  });

  it('insecure-skip-tls-verify and tls-server-name apply to the kept connection as they did per request', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });

    registry.secrets.set(SECRET, {
      value: kubeconfigWith(fake, (cluster) => {
        delete cluster['certificate-authority-data'];
        cluster['insecure-skip-tls-verify'] = true;
      }),
    });
    const insecure = registry.reader();
    for (let i = 0; i < 3; i++) assert.ok(await insecure.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 1);

    // The server's certificate names localhost and 127.0.0.1, not other.example.
    registry.secrets.set(SECRET, {
      value: kubeconfigWith(fake, (cluster) => (cluster['tls-server-name'] = 'localhost')),
    });
    assert.ok(await registry.reader().getApp(PODINFO));
    registry.secrets.set(SECRET, {
      value: kubeconfigWith(fake, (cluster) => (cluster['tls-server-name'] = 'other.example')),
    });
    const error = await rejection(registry.reader().getApp(PODINFO), 'unreachable');
    assert.match(error.message, /\(ERR_TLS_CERT_ALTNAME_INVALID\)/);
  });

  it('a connection idle too long by the wall clock (a frozen Lambda container) is not used again', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    let now = Date.parse('2026-01-01T00:00:00Z');
    const reader = registry.reader({ now: () => now });
    assert.ok(await reader.getApp(PODINFO));
    now += IDLE_CONNECTION_MS - 1;
    assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 1);
    now += IDLE_CONNECTION_MS;
    assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 2);
  });

  it('a kept connection the server dropped: the GET is sent once more on a new connection', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [helmRelease()] });
    const reader = registry.reader();
    assert.ok(await reader.getApp(PODINFO));

    // The server drops every connection while this process has not noticed yet.
    fake.offline();
    fake.online();
    assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 2);

    fake.closeNext({ path: 'helmreleases/podinfo' });
    assert.ok(await reader.getApp(PODINFO));
    assert.equal(fake.tlsConnections, 3);

    // Only once: a drop on the new connection is reported.
    fake.closeNext({ path: 'helmreleases/podinfo', times: 2 });
    const error = await rejection(reader.getApp(PODINFO), 'unreachable');
    assert.match(error.message, /\(ECONNRESET\) reading helmreleases\/podinfo in apps$/);
  });
});

describe('KeptAliveConnections', () => {
  const PEM = (label: string) =>
    Buffer.from(`-----BEGIN ${label}-----\nMIIB\n-----END ${label}-----\n`).toString('base64');

  function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', skipTLSVerify: false, ...cluster }],
      users: [{ name: 'u', ...user }],
      contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
      currentContext: 'c',
    });
    return kc;
  }

  async function applied(auth: { applySecurityAuthentication(context: RequestContext): Promise<void> }) {
    const context = new RequestContext('https://127.0.0.1:6443/apis', HttpMethod.GET);
    await auth.applySecurityAuthentication(context);
    return context;
  }

  it('gives its kept agent the TLS options client-node gives its one-off agent, and the same headers', async () => {
    const configs = [
      kubeconfig({ caData: PEM('CERTIFICATE') }, { token: 'secret-token' }),
      kubeconfig(
        { caData: PEM('CERTIFICATE'), tlsServerName: 'api.internal' },
        { certData: PEM('CERTIFICATE'), keyData: PEM('PRIVATE KEY') },
      ),
      kubeconfig({ skipTLSVerify: true }, { username: 'admin', password: 'secret-password' }),
    ];
    for (const kc of configs) {
      const theirs = await applied(kc);
      const ours = await applied(new KeptAliveConnections(kc));
      const theirAgent = theirs.getAgent() as HttpsAgent;
      const ourAgent = ours.getAgent() as HttpsAgent;
      assert.notEqual(ourAgent, theirAgent);
      for (const name of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
        assert.deepEqual(ourAgent.options[name], theirAgent.options[name], name);
      }
      assert.deepEqual(ours.getHeaders(), theirs.getHeaders());
      assert.equal(ourAgent.options.keepAlive, true);
      assert.notEqual(theirAgent.options.keepAlive, true, 'client-node builds an agent that is not kept alive');
    }
  });

  it('applies credentials at every request; a changed credential or client certificate gets a new agent', async () => {
    // What an exec plugin hands out at each request: a token, and possibly a client certificate.
    const issued: { token: string; cert?: Buffer } = { token: 'token-1' };
    let calls = 0;
    const kc = kubeconfig({ caData: PEM('CERTIFICATE') }, {});
    kc.addAuthenticator({
      isAuthProvider: () => true,
      applyAuthentication: (_user, opts: { headers?: Record<string, unknown>; cert?: Buffer; key?: Buffer }) => {
        calls += 1;
        opts.headers = { ...opts.headers, Authorization: `Bearer ${issued.token}` };
        if (issued.cert) Object.assign(opts, { cert: issued.cert, key: issued.cert });
        return Promise.resolve();
      },
    });
    const connections = new KeptAliveConnections(kc);
    const first = await applied(connections);
    const again = await applied(connections);
    assert.equal(calls, 2);
    assert.equal(again.getHeaders().Authorization, 'Bearer token-1');
    assert.equal(again.getAgent(), first.getAgent());

    issued.token = 'token-2';
    const refreshed = await applied(connections);
    assert.equal(refreshed.getHeaders().Authorization, 'Bearer token-2');
    assert.notEqual(refreshed.getAgent(), first.getAgent());

    issued.cert = Buffer.from(PEM('CERTIFICATE'), 'base64');
    const withCertificate = await applied(connections);
    assert.notEqual(withCertificate.getAgent(), refreshed.getAgent());
    assert.deepEqual((withCertificate.getAgent() as HttpsAgent).options.cert, issued.cert);
  });
});
