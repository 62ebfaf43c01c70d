// A PipelineSet whose apps generator follows an app labelled on the dev cluster, end to end through `pipelinectl
// serve` (docs/pipeline-sets.md, "The apps generator"): the set is in serve's configuration directory; an app labelled
// `promotion: standard` on dev gets its pipeline at a poll, shown under its set by `status`; the label removed, the
// pipeline goes, and not before serve has listed dev twice without it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseRunning } from './flux.js';
import { startWorld } from './world.js';

const SET = `apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: { name: standard-apps, namespace: flux-system }
spec:
  generators:
    - apps:
        clusterRef: { kind: GitopsCluster, name: dev }
        kind: HelmRelease
        namespace: apps
        matchLabels: { promotion: standard }
  template:
    metadata: { name: '{{ app }}' }
    spec:
      appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}' }
      environments:
        - name: dev
          targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
        - name: prod
          targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: prod } }]
      promotion:
        strategy: { notification: {} }
`;

describe('a PipelineSet following the apps of a cluster, through pipelinectl serve', () => {
  it('generates the pipeline of an app labelled on dev, and removes it two polls after the label goes', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: { 'README.md': 'fleet\n' },
      pipelines: SET,
      pollInterval: '1s',
    });
    const dev = world.cluster('dev');
    dev.put(helmReleaseRunning('apps', '1.0.0', 'web'));
    dev.put(helmReleaseRunning('apps', '2.0.0', 'billing'));
    await world.startServe();
    const generated = async () =>
      (await world.statusNow()).pipelines
        .filter((p) => p.pipelineSet === 'flux-system/standard-apps')
        .map((p) => p.name);

    // Listed, but not labelled: nothing generated.
    await waitFor('dev listed twice', () => dev.count('list') >= 2);
    assert.deepEqual(await generated(), []);

    dev.update('HelmRelease', 'apps', 'web', (object) => {
      object.metadata.labels = { ...(object.metadata.labels as object), promotion: 'standard' };
    });
    await waitFor('the pipeline of web generated', async () => (await generated()).includes('web'));
    assert.deepEqual(await generated(), ['web']);
    await waitFor('web in dev is seen running 1.0.0', async () => {
      const web = (await world.statusNow()).pipelines.find((p) => p.name === 'web');
      return web?.environments[0]?.targets[0]?.revision === '1.0.0';
    });
    const status = await world.pipelinectl('status');
    assert.match(status.stdout, /^PipelineSet flux-system\/standard-apps: 1 pipeline generated$/m);
    const sets = await world.pipelinectl('get', 'pipelinesets');
    assert.match(
      sets.stdout,
      /^flux-system\s+standard-apps\s+1\s+.*apps: HelmRelease in apps on flux-system\/dev labelled promotion=standard$/m,
    );

    // Counted before the change: the two LISTs that miss the label both start after it.
    const listsBefore = dev.count('list');
    dev.update('HelmRelease', 'apps', 'web', (object) => {
      const labels = { ...(object.metadata.labels as Record<string, string>) };
      delete labels.promotion;
      object.metadata.labels = labels;
    });
    await waitFor('the pipeline of web removed', async () => (await generated()).length === 0);
    assert.ok(dev.count('list') >= listsBefore + 2, 'not before two LISTs of dev without the label');
  });
});
