// A pipeline's source objects (ImagePolicy, OCIRepository) on a leaf cluster: the fake API server serves them as each
// Flux release does, and KubernetesClusterReader gets and lists them like the app objects (real HTTPS, real
// @kubernetes/client-node).
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { describe, it } from 'node:test';
import { readTargetStatus } from '../../lib/flux/index.js';
import {
  FLUX_SERVED_VERSIONS,
  OCI_REPOSITORY_CRD,
  SOURCE_GROUP,
  type FakeKubeApi,
} from '../../lib/testing/fake-kube-api.js';
import { imagePolicy, OCI_DIGEST, ociRepository, PODINFO_IMAGE } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, connectedCluster, names, startFake } from './helpers.js';

const IMAGE_POLICY = appKey('ImagePolicy', 'flux-system', 'podinfo');
const OCI_REPOSITORY = appKey('OCIRepository', 'flux-system', 'podinfo');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

function get(fake: FakeKubeApi, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}${path}`,
      { ca: fake.caPem, headers: { authorization: `Bearer ${fake.token}` } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const json = (res.headers['content-type'] ?? '').startsWith('application/json');
          resolve({
            status: res.statusCode ?? 0,
            body: json ? (JSON.parse(text) as Record<string, unknown>) : {},
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function resourceNames(answer: Answer): string[] {
  return (answer.body.resources as { name: string }[]).map((resource) => resource.name);
}

function groupVersions(answer: Answer, group: string): string[] | undefined {
  const groups = answer.body.groups as { name: string; versions: { version: string }[] }[];
  return groups.find((entry) => entry.name === group)?.versions.map((entry) => entry.version);
}

function objectPaths(fake: FakeKubeApi): string[] {
  return fake.requests.filter((r) => r.type === 'get' || r.type === 'list').map((r) => `${r.path} ${r.status}`);
}

describe('FakeKubeApi: source objects', () => {
  it('serves ImagePolicies and OCIRepositories in discovery, as Flux 2.6 does by default', async (t) => {
    const fake = await startFake(t);
    const apis = await get(fake, '/apis');
    assert.deepEqual(groupVersions(apis, 'image.toolkit.fluxcd.io'), ['v1beta2', 'v1beta1']);
    assert.deepEqual(groupVersions(apis, SOURCE_GROUP), ['v1', 'v1beta2', 'v1beta1']);
    assert.equal(groupVersions(apis, OCI_REPOSITORY_CRD), undefined, 'a CRD entry is not an API group');
    assert.deepEqual(resourceNames(await get(fake, '/apis/image.toolkit.fluxcd.io/v1beta2')), [
      'imagepolicies',
      'imagepolicies/status',
    ]);
    assert.deepEqual(resourceNames(await get(fake, `/apis/${SOURCE_GROUP}/v1`)), [
      'ocirepositories',
      'ocirepositories/status',
    ]);
    assert.equal((await get(fake, '/apis/image.toolkit.fluxcd.io/v1')).status, 404);
  });

  it('serves OCIRepositories in v1beta2 only before Flux 2.6, though their group serves v1', async (t) => {
    const fake = await startFake(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.4'],
      objects: [ociRepository({ apiVersion: `${SOURCE_GROUP}/v1beta2` })],
    });
    assert.deepEqual(groupVersions(await get(fake, '/apis'), SOURCE_GROUP), ['v1', 'v1beta2', 'v1beta1']);
    assert.deepEqual(resourceNames(await get(fake, `/apis/${SOURCE_GROUP}/v1`)), []);
    const v1 = await get(fake, `/apis/${SOURCE_GROUP}/v1/namespaces/flux-system/ocirepositories/podinfo`);
    assert.deepEqual([v1.status, v1.text], [404, '404 page not found\n']);
    const v1beta2 = await get(fake, `/apis/${SOURCE_GROUP}/v1beta2/namespaces/flux-system/ocirepositories/podinfo`);
    assert.equal(v1beta2.status, 200);
    assert.equal(v1beta2.body.apiVersion, `${SOURCE_GROUP}/v1beta2`);
    assert.equal(v1beta2.body.kind, 'OCIRepository');

    // Flux upgraded to 2.6: the CRD serves v1 as well.
    fake.setServedVersions(OCI_REPOSITORY_CRD, ['v1', 'v1beta2']);
    assert.equal((await get(fake, `/apis/${SOURCE_GROUP}/v1/ocirepositories`)).status, 200);
  });
});

describe('KubernetesClusterReader: source objects', () => {
  it('GETs an ImagePolicy and an OCIRepository, whose status reads as resolved', async (t) => {
    const { fake, registry } = await connectedCluster(t, { objects: [imagePolicy(), ociRepository()] });
    const reader = registry.reader();

    const policy = await reader.getApp(IMAGE_POLICY);
    assert.equal(policy?.apiVersion, 'image.toolkit.fluxcd.io/v1beta2');
    assert.equal(policy?.kind, 'ImagePolicy');
    assert.deepEqual(readTargetStatus(policy), {
      phase: 'Ready',
      reason: 'Resolved',
      message: 'selected tag 6.6.1 (Succeeded)',
      revision: '6.6.1',
    });

    const repository = await reader.getApp(OCI_REPOSITORY);
    assert.equal(repository?.apiVersion, `${SOURCE_GROUP}/v1`);
    const status = readTargetStatus(repository);
    assert.equal(status.phase, 'Ready', status.message);
    assert.equal(status.revision, `6.6.1@${OCI_DIGEST}`);

    assert.deepEqual(objectPaths(fake), [
      '/apis/image.toolkit.fluxcd.io/v1beta2/namespaces/flux-system/imagepolicies/podinfo 200',
      `/apis/${SOURCE_GROUP}/v1/namespaces/flux-system/ocirepositories/podinfo 200`,
    ]);
    assert.equal(fake.count('discovery'), 1);
    assert.equal(await reader.getApp(appKey('ImagePolicy', 'flux-system', 'other')), undefined);
  });

  it('LISTs every ImagePolicy and OCIRepository of the cluster, one kind at a time', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      objects: [
        imagePolicy(),
        imagePolicy({ name: 'frontend', namespace: 'web', tag: '2.0.1' }),
        ociRepository(),
        ociRepository({ name: 'backend', namespace: 'web' }),
      ],
    });
    const reader = registry.reader();
    const policies = await reader.listApps(CLUSTER, 'ImagePolicy', []);
    assert.deepEqual(names(policies), ['flux-system/podinfo', 'web/frontend']);
    assert.deepEqual(
      policies.map((policy) => readTargetStatus(policy).revision),
      ['6.6.1', '2.0.1'],
    );
    assert.deepEqual(names(await reader.listApps(CLUSTER, 'OCIRepository', [])), [
      'flux-system/podinfo',
      'web/backend',
    ]);
    assert.deepEqual(
      fake.requests.filter((r) => r.type === 'list').map((r) => r.path),
      ['/apis/image.toolkit.fluxcd.io/v1beta2/imagepolicies', `/apis/${SOURCE_GROUP}/v1/ocirepositories`],
    );
  });

  it('reads ImagePolicy v1 from Flux 2.7 on, and both kinds in v1 on Flux 2.8', async (t) => {
    for (const release of ['2.7', '2.8'] as const) {
      const { fake, registry } = await connectedCluster(t, {
        servedVersions: FLUX_SERVED_VERSIONS[release],
        objects: [imagePolicy(), ociRepository()],
      });
      const reader = registry.reader();
      assert.equal((await reader.getApp(IMAGE_POLICY))?.apiVersion, 'image.toolkit.fluxcd.io/v1', release);
      assert.equal((await reader.getApp(OCI_REPOSITORY))?.apiVersion, `${SOURCE_GROUP}/v1`, release);
      assert.equal((await reader.listApps(CLUSTER, 'ImagePolicy', [])).length, 1);
      assert.ok(fake.requests.every((r) => r.status === 200));
    }
  });

  it('reads the tag of a v1beta2 ImagePolicy from before Flux 2.6 (latestImage, no latestRef)', async (t) => {
    const before = imagePolicy({
      apiVersion: 'image.toolkit.fluxcd.io/v1beta2',
      status: { latestRef: undefined, observedPreviousRef: undefined, latestImage: `${PODINFO_IMAGE}:6.6.1` },
    });
    const { registry } = await connectedCluster(t, { servedVersions: FLUX_SERVED_VERSIONS['2.2'], objects: [before] });
    const policy = await registry.reader().getApp(IMAGE_POLICY);
    assert.equal(readTargetStatus(policy).revision, '6.6.1');
  });

  it('finds an OCIRepository in v1beta2 before Flux 2.6 when discovery is forbidden, trying v1 first', async (t) => {
    const { fake, registry } = await connectedCluster(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.4'],
      user: { name: 'verifier', discovery: false },
      objects: [ociRepository({ apiVersion: `${SOURCE_GROUP}/v1beta2` })],
    });
    const reader = registry.reader();
    assert.equal((await reader.getApp(OCI_REPOSITORY))?.apiVersion, `${SOURCE_GROUP}/v1beta2`);
    assert.equal((await reader.getApp(OCI_REPOSITORY))?.apiVersion, `${SOURCE_GROUP}/v1beta2`);
    assert.deepEqual(objectPaths(fake), [
      `/apis/${SOURCE_GROUP}/v1/namespaces/flux-system/ocirepositories/podinfo 404`,
      `/apis/${SOURCE_GROUP}/v1beta2/namespaces/flux-system/ocirepositories/podinfo 200`,
      `/apis/${SOURCE_GROUP}/v1beta2/namespaces/flux-system/ocirepositories/podinfo 200`,
    ]);
  });

  it('finds an OCIRepository in v1beta2 before Flux 2.6 with discovery, though its group serves v1', async (t) => {
    const { registry } = await connectedCluster(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.4'],
      objects: [ociRepository({ apiVersion: `${SOURCE_GROUP}/v1beta2` })],
    });
    const reader = registry.reader();
    assert.equal((await reader.getApp(OCI_REPOSITORY))?.apiVersion, `${SOURCE_GROUP}/v1beta2`);
    assert.deepEqual(names(await reader.listApps(CLUSTER, 'OCIRepository', [])), ['flux-system/podinfo']);
  });

  it('reads an OCIRepository of Flux 2.6 in v1 with discovery', async (t) => {
    const { registry } = await connectedCluster(t, {
      servedVersions: FLUX_SERVED_VERSIONS['2.6'],
      objects: [ociRepository()],
    });
    assert.equal((await registry.reader().getApp(OCI_REPOSITORY))?.apiVersion, `${SOURCE_GROUP}/v1`);
  });
});
