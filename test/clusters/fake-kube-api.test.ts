// The fake API server itself, over plain node:https: the wire format the readers (and the local demo) rely on.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { FLUX_SERVED_VERSIONS, type FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { helmRelease, kustomization } from '../fixtures/flux-objects.js';
import { startFake } from './helpers.js';

interface Answer {
  status: number;
  /** The JSON body; empty when the answer is not JSON. */
  body: Record<string, unknown>;
  contentType: string;
  text: string;
}

function get(fake: FakeKubeApi, path: string, token: string | null = fake.token): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}${path}`,
      { ca: fake.caPem, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const contentType = res.headers['content-type'] ?? '';
          const body = contentType.startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : {};
          resolve({ status: res.statusCode ?? 0, body, contentType, text });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function itemNames(answer: Answer): string[] {
  return (answer.body.items as Array<{ metadata: { name: string } }>).map((item) => item.metadata.name);
}

const HR = '/apis/helm.toolkit.fluxcd.io/v2';

describe('FakeKubeApi', () => {
  it('lists each object with the managedFields a real API server records: its applier and its controller', async (t) => {
    const fake = await startFake(t, { objects: [helmRelease()] });
    const answer = await get(fake, `${HR}/helmreleases`);
    const [item] = answer.body.items as Array<{ metadata: { managedFields: Array<Record<string, unknown>> } }>;
    const fields = item?.metadata.managedFields ?? [];
    assert.deepEqual(
      fields.map(({ manager, operation, subresource }) => [manager, operation, subresource]),
      [
        ['kustomize-controller', 'Apply', undefined],
        ['helm-controller', 'Update', 'status'],
      ],
    );
    const [applied, status] = fields.map((entry) => entry.fieldsV1 as Record<string, Record<string, unknown>>);
    assert.ok(applied?.['f:spec']?.['f:chart'], 'the applied spec, field by field');
    assert.ok(status?.['f:status']?.['f:conditions'], "the controller's status");
  });

  it('answers 401 with a Kubernetes Status for a missing or wrong token', async (t) => {
    const fake = await startFake(t);
    const expected = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    };
    for (const token of [null, 'nope']) {
      const { status, body, contentType } = await get(fake, '/apis', token);
      assert.deepEqual({ status, body, contentType }, { status: 401, body: expected, contentType: 'application/json' });
    }
    assert.equal((await get(fake, '/apis')).status, 200);
  });

  it('serves discovery documents for the configured versions', async (t) => {
    const fake = await startFake(t, { servedVersions: FLUX_SERVED_VERSIONS['2.2'] });
    const groups = await get(fake, '/apis');
    assert.equal(groups.body.kind, 'APIGroupList');
    const group = await get(fake, '/apis/helm.toolkit.fluxcd.io');
    assert.deepEqual(group.body, {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'helm.toolkit.fluxcd.io',
      versions: [
        { groupVersion: 'helm.toolkit.fluxcd.io/v2beta2', version: 'v2beta2' },
        { groupVersion: 'helm.toolkit.fluxcd.io/v2beta1', version: 'v2beta1' },
      ],
      preferredVersion: { groupVersion: 'helm.toolkit.fluxcd.io/v2beta2', version: 'v2beta2' },
    });
    const resources = await get(fake, '/apis/helm.toolkit.fluxcd.io/v2beta2');
    assert.equal((resources.body.resources as Array<{ name: string }>)[0]?.name, 'helmreleases');
    assert.equal((await get(fake, '/apis/helm.toolkit.fluxcd.io/v2')).status, 404);
    assert.equal(fake.count('discovery'), 4);
  });

  it('forbids discovery to a user without the system:discovery binding, as the API server does', async (t) => {
    const fake = await startFake(t, {
      users: { 'no-discovery': { name: 'reader', discovery: false } },
      objects: [helmRelease()],
    });
    for (const path of ['/apis', '/apis/helm.toolkit.fluxcd.io', '/apis/helm.toolkit.fluxcd.io/v2', '/api']) {
      const answer = await get(fake, path, 'no-discovery');
      assert.equal(answer.status, 403, path);
      assert.equal(answer.body.reason, 'Forbidden');
      assert.equal(answer.body.message, `forbidden: User "reader" cannot get path "${path}"`);
    }
    // Reading the objects is a separate permission.
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`, 'no-discovery')).status, 200);
    assert.equal((await get(fake, '/apis')).status, 200);
  });

  it('stores an object once and serves it in every served version; 404 otherwise', async (t) => {
    const fake = await startFake(t, { servedVersions: FLUX_SERVED_VERSIONS['2.7'], objects: [helmRelease()] });
    const v2beta2 = await get(fake, '/apis/helm.toolkit.fluxcd.io/v2beta2/namespaces/apps/helmreleases/podinfo');
    assert.equal(v2beta2.body.apiVersion, 'helm.toolkit.fluxcd.io/v2beta2');
    const missing = await get(fake, `${HR}/namespaces/apps/helmreleases/nothing`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, 'NotFound');
    assert.equal(missing.body.message, 'helmreleases.helm.toolkit.fluxcd.io "nothing" not found');
    assert.deepEqual(missing.body.details, { name: 'nothing', group: 'helm.toolkit.fluxcd.io', kind: 'helmreleases' });
    // A version the CRD does not serve reaches the API server's not-found handler: no Status, the object's name
    // nowhere (a GET and a LIST alike).
    for (const path of [
      '/apis/helm.toolkit.fluxcd.io/v2beta1/namespaces/apps/helmreleases/podinfo',
      '/apis/helm.toolkit.fluxcd.io/v2beta1/helmreleases',
      '/apis/helm.toolkit.fluxcd.io/v2beta1/namespaces/apps/helmreleases',
    ]) {
      const unserved = await get(fake, path);
      assert.equal(unserved.status, 404, path);
      assert.equal(unserved.contentType, 'text/plain; charset=utf-8');
      assert.equal(unserved.text, '404 page not found\n');
    }

    fake.patchStatus('HelmRelease', 'apps', 'podinfo', { lastAttemptedRevision: '6.9.3' });
    const patched = await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`);
    assert.equal((patched.body.status as Record<string, unknown>).lastAttemptedRevision, '6.9.3');
    assert.ok(fake.delete('HelmRelease', 'apps', 'podinfo'));
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`)).status, 404);
  });

  it('lists with labelSelector, limit and continue, like the apiserver', async (t) => {
    const fake = await startFake(t, { objects: [kustomization()] });
    for (const [namespace, name, team] of [
      ['apps', 'a', 'shop'],
      ['apps', 'b', 'shop'],
      ['web', 'c', 'blog'],
      ['web', 'd', 'shop'],
    ] as const) {
      const hr = helmRelease();
      hr.metadata = { ...hr.metadata, namespace, name, labels: { team } };
      fake.put(hr);
    }
    const all = await get(fake, `${HR}/helmreleases`);
    assert.equal(all.body.kind, 'HelmReleaseList');
    assert.equal(all.body.apiVersion, 'helm.toolkit.fluxcd.io/v2');
    assert.deepEqual(itemNames(all), ['a', 'b', 'c', 'd']);
    assert.match(String((all.body.metadata as Record<string, unknown>).resourceVersion), /^\d+$/);

    assert.deepEqual(itemNames(await get(fake, `${HR}/helmreleases?labelSelector=team%3Dshop`)), ['a', 'b', 'd']);
    assert.deepEqual(itemNames(await get(fake, `${HR}/helmreleases?labelSelector=team!%3Dshop`)), ['c']);
    assert.deepEqual(itemNames(await get(fake, `${HR}/helmreleases?labelSelector=team%3Dshop,team!%3Dx`)), [
      'a',
      'b',
      'd',
    ]);
    assert.deepEqual(itemNames(await get(fake, `${HR}/namespaces/web/helmreleases`)), ['c', 'd']);
    assert.equal((await get(fake, `${HR}/helmreleases?labelSelector=%3D%3D`)).status, 400);

    const first = await get(fake, `${HR}/helmreleases?limit=3`);
    assert.deepEqual(itemNames(first), ['a', 'b', 'c']);
    const metadata = first.body.metadata as { continue: string; remainingItemCount: number };
    assert.equal(metadata.remainingItemCount, 1);
    const second = await get(fake, `${HR}/helmreleases?limit=3&continue=${encodeURIComponent(metadata.continue)}`);
    assert.deepEqual(itemNames(second), ['d']);
    assert.equal((second.body.metadata as Record<string, unknown>).continue, undefined);

    fake.expireContinueTokens();
    const expired = await get(fake, `${HR}/helmreleases?limit=3&continue=${encodeURIComponent(metadata.continue)}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.body.reason, 'Expired');
  });

  it('enforces per-token namespaces and cluster-wide list, with real Forbidden messages', async (t) => {
    const fake = await startFake(t, {
      users: { 'ns-token': { name: 'ci', namespaces: ['apps'] } },
      objects: [helmRelease()],
    });
    const cluster = await get(fake, `${HR}/helmreleases`, 'ns-token');
    assert.equal(cluster.status, 403);
    assert.equal(cluster.body.reason, 'Forbidden');
    assert.equal(
      cluster.body.message,
      'helmreleases.helm.toolkit.fluxcd.io is forbidden: User "ci" cannot list resource "helmreleases" in API group "helm.toolkit.fluxcd.io" at the cluster scope',
    );
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases`, 'ns-token')).status, 200);
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`, 'ns-token')).status, 200);
    const other = await get(fake, `${HR}/namespaces/web/helmreleases/podinfo`, 'ns-token');
    assert.equal(other.status, 403);
    assert.match(String(other.body.message), /cannot get resource "helmreleases" .* in the namespace "web"$/);
  });

  it('injects status faults on matching paths, logs requests and counts them by type', async (t) => {
    const fake = await startFake(t, { objects: [helmRelease()] });
    fake.failNext(503, { path: '/helmreleases/podinfo', times: 2 });
    assert.equal((await get(fake, '/apis')).status, 200);
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`)).status, 503);
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`)).status, 503);
    assert.equal((await get(fake, `${HR}/namespaces/apps/helmreleases/podinfo`)).status, 200);
    await get(fake, `${HR}/helmreleases?limit=5`);
    assert.deepEqual([fake.count('discovery'), fake.count('get'), fake.count('list'), fake.count()], [1, 3, 1, 5]);
    assert.deepEqual(fake.requests.at(-1), {
      method: 'GET',
      path: `${HR}/helmreleases`,
      query: { limit: '5' },
      type: 'list',
      user: 'test-user',
      status: 200,
    });
  });

  it('writes a kubeconfig with the CA data and the token', async (t) => {
    const fake = await startFake(t);
    const config = parse(fake.kubeconfig()) as {
      clusters: Array<{ cluster: Record<string, string> }>;
      users: Array<{ user: { token: string } }>;
      'current-context': string;
    };
    assert.equal(config.clusters[0]?.cluster.server, fake.url);
    assert.equal(config.clusters[0]?.cluster['certificate-authority-data'], fake.caData);
    assert.equal(config.users[0]?.user.token, fake.token);
    assert.equal(config['current-context'], 'fake');
  });
});
