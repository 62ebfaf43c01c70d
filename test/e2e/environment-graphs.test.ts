// Environment graphs end to end (docs/environment-graphs.md), as a user runs them: one `pipelinectl serve` over a
// diamond, staging → prod-eu and prod-us in parallel → global after both, one leaf cluster per environment,
// promoted by the notification strategy (Flux's rollout on each cluster is played by the test). What a user checks:
// `pipelinectl status -o json`, `status` and `explain`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { pipelineYaml } from '../../lib/testing/config-yaml.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, environmentOf, startWorld, type World } from './world.js';

const OLD = '6.4.0';
const NEW = '6.5.0';
const APPS = 'apps';
const APP = 'podinfo';
const CLUSTERS = ['staging', 'prod-eu', 'prod-us', 'global'] as const;
const AFTER: Record<string, string[]> = {
  'prod-eu': ['staging'],
  'prod-us': ['staging'],
  global: ['prod-eu', 'prod-us'],
};

/** Flux rolls `version` out on `cluster` and tells: the HelmRelease and its signed event. */
async function rollOut(world: World, cluster: string, version: string): Promise<void> {
  const stored = world.cluster(cluster).put(helmReleaseRunning(APPS, version, APP));
  assert.equal(await world.sendEvent(cluster, helmReleaseEvent(stored, version), 'helm-controller'), 202);
}

const promotionsOf = (status: StatusJson, env: string) =>
  environmentOf(status, APP, env).promotions.map(({ revision, state }) => `${revision} ${state}`);

/** Waits until every cluster was polled at least twice more: what is not decided by then is not decided. */
async function twoMorePolls(world: World): Promise<void> {
  const lists = CLUSTERS.map((cluster) => world.cluster(cluster).count('list'));
  await waitFor('two more poll rounds', () =>
    CLUSTERS.every((cluster, i) => world.cluster(cluster).count('list') >= (lists[i] ?? 0) + 2),
  );
}

describe('an environment graph, through pipelinectl serve', () => {
  it('promotes both regions in parallel, then global once both passed', async (t) => {
    const service = await FakeHttpTarget.start();
    t.after(() => service.stop());
    service.route('/hooks/promotions', { status: 202 });
    const world = await startWorld(t, {
      clusters: CLUSTERS,
      repository: { 'README.md': '# fleet\n' },
      pipelines: pipelineYaml({
        name: APP,
        environments: CLUSTERS.map((env) => ({
          name: env,
          targets: [{ namespace: APPS, cluster: env }],
          ...(AFTER[env] ? { after: AFTER[env] } : {}),
        })),
        strategy: 'notification',
      }),
      pollInterval: '1s',
      serveArgs: ['--notification-webhook-url', `${service.url}/hooks/promotions`],
    });
    for (const cluster of CLUSTERS) world.cluster(cluster).put(helmReleaseRunning(APPS, OLD, APP));
    await world.startServe();
    await waitFor('every target read', async () => allTargetsRun(await world.statusNow(), () => OLD));

    // 1. staging runs the new version: both regions are promoted, each on its own; global waits.
    await rollOut(world, 'staging', NEW);
    await waitFor('both regions promoted', async () => {
      const status = await world.statusNow();
      return ['prod-eu', 'prod-us'].every((env) => promotionsOf(status, env).includes(`${NEW} succeeded`));
    });

    // 2. prod-eu rolls it out, prod-us not yet (promoted, Flux has not applied it): global waits for prod-us.
    await rollOut(world, 'prod-eu', NEW);
    await waitFor(
      'prod-eu passed',
      async () => environmentOf(await world.statusNow(), APP, 'prod-eu').state === 'passed',
    );
    await twoMorePolls(world);
    let status = await world.statusCli();
    assert.deepEqual(
      status.pipelines[0]?.environments.map(({ name, after, state }) => ({ name, after, state })),
      [
        { name: 'staging', after: [], state: 'source' },
        { name: 'prod-eu', after: ['staging'], state: 'passed' },
        { name: 'prod-us', after: ['staging'], state: 'promoted' },
        { name: 'global', after: ['prod-eu', 'prod-us'], state: 'not-reached' },
      ],
    );
    const global = environmentOf(status, APP, 'global');
    assert.equal(global.waitsFor, 'prod-us');
    assert.equal(global.stateText, 'waits for prod-us');
    assert.deepEqual(promotionsOf(status, 'global'), []);
    const explained = await world.pipelinectl('explain', `flux-system/${APP}`);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(
      explained.stdout,
      /^global: waits for prod-us \(not-reached\/StoppedEarlier, notification, after prod-eu, prod-us\)/m,
    );

    // 3. prod-us rolls it out too: global is promoted, once.
    await rollOut(world, 'prod-us', NEW);
    await waitFor('global promoted', async () =>
      promotionsOf(await world.statusNow(), 'global').includes(`${NEW} succeeded`),
    );
    await rollOut(world, 'global', NEW);
    await waitFor(
      'global passed',
      async () => environmentOf(await world.statusNow(), APP, 'global').state === 'passed',
    );
    status = await world.statusCli();
    for (const env of ['prod-eu', 'prod-us', 'global'])
      assert.deepEqual(promotionsOf(status, env), [`${NEW} succeeded`]);
    const table = await world.pipelinectl('status');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^\s+after prod-eu, prod-us$/m);
  });
});
