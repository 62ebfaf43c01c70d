// Targets chosen by cluster labels (docs/configuration.md, "Targets chosen by cluster labels"): an environment's targetSelector
// follows the fleet through `apply` alone. A cluster applied after the pipeline, relabelled or relabelled away adds or
// removes that pipeline's target (its apps-index entry, the (cluster, kind) the poller lists) without the pipeline
// being applied again, and only the pipelines whose selection changed are written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { deleteObject } from '../../lib/apply/delete.js';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';
import { tempFiles } from '../support/temp-files.js';
import { applyWorld, type ApplyWorld } from './apply-world.js';

const NS = 'flux-system';
const web = (cluster: string): AppKey => ({
  cluster: { namespace: NS, name: cluster },
  kind: 'HelmRelease',
  namespace: 'web',
  name: 'web',
});

const cluster = (name: string, labels: Record<string, string>) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata:
  name: ${name}
  namespace: ${NS}
  labels: ${JSON.stringify(labels)}
spec: {eks: {clusterName: ${name}, region: eu-west-1}}
`;

const SELECTING = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: web, namespace: ${NS}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: web}
  environments:
    - name: dev
      targets:
        - {namespace: web, clusterRef: {kind: GitopsCluster, name: dev}}
    - name: prod
      targetSelector:
        clusterSelector:
          matchLabels: {tier: prod}
          matchExpressions:
            - {key: region, operator: NotIn, values: [cn]}
        namespace: web
`;

/** A pipeline on dev only: no selector, so no cluster change may write it. */
const LISTING = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: api, namespace: ${NS}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: api}
  environments:
    - name: dev
      targets:
        - {namespace: api, clusterRef: {kind: GitopsCluster, name: dev}}
`;

const WEB: ObjectKey = { namespace: NS, name: 'web' };
const API: ObjectKey = { namespace: NS, name: 'api' };

describe('targets chosen by cluster labels follow the fleet through apply', { concurrency: false }, () => {
  let world: ApplyWorld;
  before(async () => {
    world = await applyWorld('data directory');
  });
  after(() => world.stop());

  const apply = async (t: { after: (fn: () => unknown) => void }, files: Record<string, string>) => {
    const root = await tempFiles(t as never, files);
    const result = await applyConfiguration(world.backend, { source: { paths: [root] } });
    assert.ok(result.ok, result.ok ? '' : result.problems.join('\n'));
    return result;
  };
  const prodTargets = async () =>
    (await world.backend.store.getPipeline(WEB))?.pipeline.environments
      .find((env) => env.name === 'prod')
      ?.targets.map((target) => target.cluster.name);
  const indexed = async (name: string) =>
    (await world.backend.store.findTargets(web(name))).map((target) => `${target.pipeline.name}/${target.env}`);
  const polled = async () =>
    (await world.backend.store.listClusterKinds())
      .filter((usage) => usage.pipelines.some((pipeline) => pipeline.name === 'web'))
      .map((usage) => usage.cluster.name)
      .sort();

  it('selects the labelled clusters when the pipeline is applied', async (t) => {
    await apply(t, {
      'clusters.yaml': [
        cluster('dev', { tier: 'dev' }),
        cluster('prod-eu', { tier: 'prod', region: 'eu' }),
        cluster('prod-cn', { tier: 'prod', region: 'cn' }),
      ].join('---\n'),
      'pipelines.yaml': `${SELECTING}---\n${LISTING}`,
    });
    assert.deepEqual(await prodTargets(), ['prod-eu']);
    assert.deepEqual(await indexed('prod-eu'), ['web/prod']);
    assert.deepEqual(await indexed('prod-cn'), [], 'NotIn excludes it');
    assert.deepEqual(await polled(), ['dev', 'prod-eu']);
  });

  it('adds a cluster registered after the pipeline, without applying the pipeline again', async (t) => {
    const apiGeneration = (await world.backend.store.getPipeline(API))?.generation;
    world.sent.length = 0;
    const result = await apply(t, { 'new.yaml': cluster('prod-us', { tier: 'prod', region: 'us' }) });
    assert.deepEqual(result.lines, [
      'gitopscluster flux-system/prod-us created',
      'pipeline flux-system/web configured (targets selected by cluster labels: 1 joined, 0 left)',
    ]);
    assert.deepEqual(await prodTargets(), ['prod-eu', 'prod-us']);
    assert.deepEqual(await indexed('prod-us'), ['web/prod']);
    assert.deepEqual(await polled(), ['dev', 'prod-eu', 'prod-us']);
    assert.deepEqual(
      world.sent.map((message) => message.type === 'check-pipeline' && message.pipeline.name),
      ['web'],
      'the verifier checks the pipeline whose targets changed',
    );
    assert.equal((await world.backend.store.getPipeline(API))?.generation, apiGeneration, 'api is not written');
  });

  it('removes a relabelled cluster, and adds one whose new labels match', async (t) => {
    const result = await apply(t, {
      'relabel.yaml': [
        cluster('prod-eu', { tier: 'staging', region: 'eu' }),
        cluster('prod-cn', { tier: 'prod', region: 'hk' }),
      ].join('---\n'),
    });
    assert.deepEqual(result.lines, [
      'gitopscluster flux-system/prod-eu configured',
      'gitopscluster flux-system/prod-cn configured',
      'pipeline flux-system/web configured (targets selected by cluster labels: 1 joined, 1 left)',
    ]);
    assert.deepEqual(await prodTargets(), ['prod-cn', 'prod-us']);
    assert.deepEqual(await indexed('prod-eu'), []);
    assert.deepEqual(await indexed('prod-cn'), ['web/prod']);
    assert.deepEqual(await polled(), ['dev', 'prod-cn', 'prod-us']);
  });

  it('writes no pipeline when a cluster change leaves every selection as it was', async (t) => {
    const generation = (await world.backend.store.getPipeline(WEB))?.generation;
    const result = await apply(t, { 'label.yaml': cluster('prod-us', { tier: 'prod', region: 'us', team: 'a' }) });
    assert.deepEqual(result.lines, ['gitopscluster flux-system/prod-us configured']);
    assert.equal((await world.backend.store.getPipeline(WEB))?.generation, generation);
  });

  it('keeps a cluster both listed and selected once', async (t) => {
    const listedToo = SELECTING.replace(
      '      targetSelector:',
      '      targets:\n        - {namespace: web, clusterRef: {kind: GitopsCluster, name: prod-us}}\n      targetSelector:',
    );
    await apply(t, { 'pipelines.yaml': listedToo });
    assert.deepEqual(await prodTargets(), ['prod-us', 'prod-cn']);
    assert.deepEqual(await indexed('prod-us'), ['web/prod']);
  });

  it('removes a deleted cluster from the pipelines that select it', async () => {
    world.sent.length = 0;
    const dryRun = await deleteObject(
      world.backend,
      'gitopscluster',
      { namespace: NS, name: 'prod-cn' },
      { dryRun: true },
    );
    assert.deepEqual(dryRun.lines, [
      'pipeline flux-system/web configured (targets selected by cluster labels: 0 joined, 1 left) (dry run)',
      'gitopscluster flux-system/prod-cn deleted (dry run)',
    ]);
    assert.ok(await world.backend.store.getCluster({ namespace: NS, name: 'prod-cn' }), 'a dry run deletes nothing');

    const result = await deleteObject(world.backend, 'gitopscluster', { namespace: NS, name: 'prod-cn' });
    assert.deepEqual(result.lines, [
      'pipeline flux-system/web configured (targets selected by cluster labels: 0 joined, 1 left)',
      'gitopscluster flux-system/prod-cn deleted',
    ]);
    assert.equal(await world.backend.store.getCluster({ namespace: NS, name: 'prod-cn' }), undefined);
    assert.deepEqual(await prodTargets(), ['prod-us']);
    assert.deepEqual(await indexed('prod-cn'), []);
    assert.deepEqual(await polled(), ['dev', 'prod-us']);
    assert.deepEqual(
      world.sent.map((message) => message.type === 'check-pipeline' && message.pipeline.name),
      ['web'],
    );
  });

  it('refuses to delete a cluster a pipeline lists by clusterRef, naming the pipelines', async () => {
    await assert.rejects(
      deleteObject(world.backend, 'gitopscluster', { namespace: NS, name: 'prod-us' }),
      /gitopscluster flux-system\/prod-us is listed by clusterRef in pipeline flux-system\/web: .*nothing was deleted/,
    );
    await assert.rejects(
      deleteObject(world.backend, 'gitopscluster', { namespace: NS, name: 'dev' }),
      /listed by clusterRef in pipeline flux-system\/api, flux-system\/web/,
    );
    assert.ok(await world.backend.store.getCluster({ namespace: NS, name: 'dev' }));
    await assert.rejects(
      deleteObject(world.backend, 'gitopscluster', { namespace: NS, name: 'nowhere' }),
      /gitopscluster flux-system\/nowhere is not stored in /,
    );
  });

  it('refuses a selector Kubernetes would refuse, naming the field', async (t) => {
    const root = await tempFiles(t, {
      'bad.yaml': SELECTING.replace('operator: NotIn, values: [cn]', 'operator: Exists, values: [cn]'),
    });
    const result = await applyConfiguration(world.backend, { source: { paths: [root] } });
    assert.equal(result.ok, false);
    assert.match(
      result.ok ? '' : result.problems.join('\n'),
      /spec\.environments\[1\]\.targetSelector\.clusterSelector\.matchExpressions\[0\]\.values: must have no values for the operator Exists/,
    );
  });
});
