// Targets chosen by cluster labels, end to end through `pipelinectl serve` (docs/configuration.md, "Targets chosen by cluster
// labels"): prod selects `tier: prod`, and no prod cluster is registered when the pipeline is applied. Clusters
// registered afterwards with `pipelinectl apply` join prod without the pipeline being applied again; a new version in
// dev is then promoted to prod by one pull request, and prod passes only once every selected cluster runs it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { environmentOf, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const PROD_CLUSTERS = ['prod-eu', 'prod-us', 'prod-ap'];

const release = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: podinfo}
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
`;

const PIPELINES = yamlDocuments(
  pipelineYaml({
    name: 'podinfo',
    environments: [
      { name: 'dev', targets: [{ namespace: 'podinfo', cluster: 'dev' }] },
      { name: 'prod', targets: [], selector: { matchLabels: { tier: 'prod' }, namespace: 'podinfo' } },
    ],
    strategy: { url: REPOSITORY_URL },
  }),
);

describe('a pipeline selecting clusters registered after it, through pipelinectl serve', () => {
  it('adds each cluster as it is registered and promotes across all of them', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev'],
      unregistered: PROD_CLUSTERS,
      repository: {
        'clusters/dev/podinfo.yaml': release('dev', '6.4.0'),
        'clusters/prod/podinfo.yaml': release('prod', '6.4.0'),
      },
      pipelines: PIPELINES,
      pollInterval: '1s',
    });
    const { github } = world;
    const dev = world.cluster('dev');
    dev.put(helmReleaseRunning('podinfo', '6.4.0'));
    for (const name of PROD_CLUSTERS) world.cluster(name).put(helmReleaseRunning('podinfo', '6.4.0'));
    await world.startServe();

    // 1. No prod cluster yet: prod is unknown, and says its selector selects nothing.
    await waitFor(
      'prod unknown, naming its selector',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').state === 'unknown',
    );
    const empty = await world.pipelinectl('explain', 'flux-system/podinfo', 'prod');
    assert.match(empty.stdout, /its targetSelector \(tier=prod\) selects no GitopsCluster/);

    // 2. Three clusters are registered, one of them first without the label: only the labelled ones join.
    await world.register('prod-eu', { tier: 'prod' });
    await world.register('prod-us', { tier: 'prod' });
    await world.register('prod-ap', { tier: 'staging' });
    const prodTargets = async () =>
      environmentOf(await world.statusNow(), 'podinfo', 'prod').targets.map((target) => target.cluster);
    assert.deepEqual(await prodTargets(), ['flux-system/prod-eu', 'flux-system/prod-us']);
    await world.register('prod-ap', { tier: 'prod' });
    assert.deepEqual(await prodTargets(), ['flux-system/prod-ap', 'flux-system/prod-eu', 'flux-system/prod-us']);
    await waitFor(
      'prod passed on 6.4.0 across the three clusters',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').state === 'passed',
    );

    // 3. dev runs 6.5.0: one pull request for prod, whatever the number of its clusters.
    const stored = dev.put(helmReleaseRunning('podinfo', '6.5.0'));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(stored, '6.5.0'), 'helm-controller'), 202);
    const pull = await waitFor('the prod pull request', () =>
      github.pulls(OWNER, REPOSITORY).find((candidate) => candidate.head === 'promotion-flux-system-podinfo-prod'),
    );
    assert.equal(pull.title, 'Promote flux-system/podinfo in prod to 6.5.0');
    github.merge(OWNER, REPOSITORY, pull.number);

    // 4. Two clusters roll it out: in progress, not passed; the third too: passed.
    world.cluster('prod-eu').put(helmReleaseRunning('podinfo', '6.5.0'));
    world.cluster('prod-us').put(helmReleaseRunning('podinfo', '6.5.0'));
    await waitFor(
      'two of three prod clusters on 6.5.0',
      async () =>
        environmentOf(await world.statusNow(), 'podinfo', 'prod').targets.filter(
          (target) => target.revision === '6.5.0',
        ).length === 2,
    );
    assert.equal(environmentOf(await world.statusNow(), 'podinfo', 'prod').state, 'in-progress');
    world.cluster('prod-ap').put(helmReleaseRunning('podinfo', '6.5.0'));
    await waitFor(
      'prod passed on 6.5.0',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').state === 'passed',
    );
    assert.equal(github.pulls(OWNER, REPOSITORY).length, 1, 'one pull request for the whole selection');
  });
});
