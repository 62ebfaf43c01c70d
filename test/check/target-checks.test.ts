// The two rows of a target from one read of its app object: what each answer of the cluster reader (found, absent,
// each kind of ClusterAccessError) makes of `cluster-reachable` and `app-object`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { targetRows } from '../../lib/check/target-checks.js';
import type { ClusterErrorKind } from '../../lib/clusters/port.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import { imagePolicy } from '../fixtures/flux-objects.js';
import { clusterFault, ScriptedClusters } from '../../lib/testing/scripted-clusters.js';

const PLACE = { pipeline: 'flux-system/podinfo', environment: 'prod' };
const APP: AppKey = {
  cluster: { namespace: 'flux-system', name: 'prod' },
  kind: 'HelmRelease',
  namespace: 'apps',
  name: 'podinfo',
};

const summary = (rows: Awaited<ReturnType<typeof targetRows>>) =>
  rows.map((row) => `${row.kind} ${row.outcome} ${row.reason}`);

describe('the rows of a target', () => {
  it('an object the cluster serves: both ok, with the apiVersion that served it', async () => {
    const clusters = new ScriptedClusters().put(APP, {
      apiVersion: 'helm.toolkit.fluxcd.io/v2beta2',
      kind: 'HelmRelease',
    });
    const rows = await targetRows(PLACE, APP, (app) => clusters.getApp(app));
    assert.deepEqual(summary(rows), ['cluster-reachable ok cluster-answered', 'app-object ok app-found']);
    assert.deepEqual(rows[0], {
      ...PLACE,
      target: { cluster: 'flux-system/prod', namespace: 'apps' },
      kind: 'cluster-reachable',
      outcome: 'ok',
      reason: 'cluster-answered',
      message: 'cluster flux-system/prod answers',
    });
    assert.equal(rows[1].apiVersion, 'helm.toolkit.fluxcd.io/v2beta2');
    assert.equal(
      rows[1].message,
      'HelmRelease apps/podinfo exists on cluster flux-system/prod, served as helm.toolkit.fluxcd.io/v2beta2',
    );
  });

  it('an object that does not exist: the cluster answered, the app-object row fails naming the object and cluster', async () => {
    const rows = await targetRows(PLACE, APP, () => Promise.resolve(undefined));
    assert.deepEqual(summary(rows), ['cluster-reachable ok cluster-answered', 'app-object failed app-absent']);
    assert.match(rows[1].message, /^HelmRelease apps\/podinfo not found on cluster flux-system\/prod: /);
    assert.equal(rows[1].apiVersion, undefined);
  });

  const faults: [ClusterErrorKind, string[]][] = [
    ['unreachable', ['cluster-reachable failed unreachable', 'app-object skipped earlier-check-failed']],
    ['timeout', ['cluster-reachable failed timeout', 'app-object skipped earlier-check-failed']],
    ['unauthorized', ['cluster-reachable failed unauthorized', 'app-object skipped earlier-check-failed']],
    ['bad-config', ['cluster-reachable failed bad-config', 'app-object skipped earlier-check-failed']],
    ['forbidden', ['cluster-reachable ok cluster-answered', 'app-object failed forbidden']],
    ['server-error', ['cluster-reachable ok cluster-answered', 'app-object failed server-error']],
  ];
  for (const [kind, expected] of faults) {
    it(`a ${kind} failure: ${expected.join(', ')}, with the reader's message`, async () => {
      const message = `cluster flux-system/prod: ${kind} reading helmreleases/podinfo in apps`;
      const clusters = new ScriptedClusters().failGet(APP, clusterFault(kind, message));
      const rows = await targetRows(PLACE, APP, (app) => clusters.getApp(app));
      assert.deepEqual(summary(rows), expected);
      const failed = rows.find((row) => row.outcome === 'failed');
      assert.equal(failed?.message, message);
    });
  }

  it('anything else the reader throws fails the cluster row, named: it is no proof that the cluster answered', async () => {
    const rows = await targetRows(PLACE, APP, () => Promise.reject(new Error('socket closed')));
    assert.deepEqual(summary(rows), [
      'cluster-reachable failed server-error',
      'app-object skipped earlier-check-failed',
    ]);
    assert.equal(rows[0].message, 'cluster flux-system/prod: socket closed');
  });
});

describe("the rows of a pipeline's source", () => {
  const SOURCE: AppKey = {
    cluster: { namespace: 'flux-system', name: 'dev' },
    kind: 'ImagePolicy',
    namespace: 'flux-system',
    name: 'podinfo',
  };
  const PLACE_DEV = { pipeline: 'flux-system/podinfo', environment: 'dev' };

  it('a source naming a version: ok, with the version and the apiVersion that served it', async () => {
    const rows = await targetRows(PLACE_DEV, SOURCE, () => Promise.resolve({ ...imagePolicy({ tag: '6.5.0' }) }));
    assert.deepEqual(summary(rows), ['cluster-reachable ok cluster-answered', 'source-object ok source-found']);
    assert.equal(
      rows[1].message,
      'source ImagePolicy flux-system/podinfo on cluster flux-system/dev names 6.5.0, served as image.toolkit.fluxcd.io/v1',
    );
  });

  it('a source not Ready on a version: a warning with its message', async () => {
    const rows = await targetRows(PLACE_DEV, SOURCE, () => Promise.resolve({ ...imagePolicy({ ready: false }) }));
    assert.deepEqual(summary(rows), [
      'cluster-reachable ok cluster-answered',
      'source-object warning source-without-version',
    ]);
    assert.match(rows[1].message, /names no version now \(\w+\): .*context deadline exceeded/);
  });

  it('a source that does not exist: failed, naming it and its cluster', async () => {
    const rows = await targetRows(PLACE_DEV, SOURCE, () => Promise.resolve(undefined));
    assert.deepEqual(summary(rows), ['cluster-reachable ok cluster-answered', 'source-object failed source-absent']);
    assert.match(rows[1].message, /^source ImagePolicy flux-system\/podinfo not found on cluster flux-system\/dev/);
  });

  it('an unreachable source cluster: the source row is skipped', async () => {
    const rows = await targetRows(PLACE_DEV, SOURCE, () => Promise.reject(clusterFault('unreachable', 'dev')));
    assert.deepEqual(summary(rows), [
      'cluster-reachable failed unreachable',
      'source-object skipped earlier-check-failed',
    ]);
  });
});
