// Targets that regress after they were verified (Ready turns False), through the whole loop with the GitHub strategy:
// docs/how-it-works.md, "When a revision is promoted": the candidate must be healthy in every target of the first environment, and
// an environment passes only when every target is healthy on it. A regression observed before the next decision
// stops that promotion; once the target is healthy again the promotion is made, once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { PIPELINE, deployed, settled, upgradeEvent } from '../loop/harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { rolledBackHelmRelease } from '../fixtures/flux-objects.js';
import {
  OPEN_PULL_REQUEST,
  devApp,
  explain,
  pullRequestPipeline,
  regressed,
  startGitHubLoop,
  failureEvent,
} from './support.js';

const clusterRef = (name: string) => ({ kind: 'GitopsCluster' as const, name });

/** dev → staging (two targets on one cluster) → prod, every promotion a pull request. */
const pipeline: PipelineDocument = {
  ...pullRequestPipeline,
  spec: {
    ...pullRequestPipeline.spec,
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps', clusterRef: clusterRef('dev') }] },
      {
        name: 'staging',
        targets: [
          { namespace: 'apps', clusterRef: clusterRef('staging') },
          { namespace: 'apps-eu', clusterRef: clusterRef('staging') },
        ],
      },
      { name: 'prod', targets: [{ namespace: 'apps', clusterRef: clusterRef('prod') }] },
    ],
  },
};

/** The loop at 6.9.1 everywhere, with 6.9.2 verified in dev and its staging pull request opened and merged. */
async function startWithStagingPromoted(t: Parameters<typeof startGitHubLoop>[0]) {
  const started = await startGitHubLoop(t, { pipeline, clusters: ['dev', 'staging', 'prod'] });
  const { loop, github, pulls } = started;
  await loop.deployEverywhere('6.9.1');
  loop.dev.put(deployed('6.9.2'));
  assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
  await waitFor(
    'the staging promotion',
    async () => (await loop.store.getPromotion(PIPELINE, 'staging', '6.9.2'))?.state === 'succeeded',
  );
  await settled(loop.queue);
  const [stagingPull] = pulls();
  assert.equal(stagingPull?.title, 'Promote flux-system/podinfo in staging to 6.9.2');
  github.merge('acme', 'fleet', stagingPull?.number ?? 0);
  return { ...started, staging: loop.cluster('staging') };
}

const prodPulls = (pulls: () => Array<{ title: string }>) => pulls().filter((pull) => / in prod /.test(pull.title));

describe('a target that regresses after it was verified', () => {
  it('dev fails an upgrade and is rolled back (Ready False): nothing is promoted from it until it is healthy again', async (t) => {
    const { loop, github, pulls, staging } = await startWithStagingPromoted(t);

    // dev tries 6.9.3, the upgrade fails and remediation rolls back: 6.9.2 runs again, but Ready is False.
    loop.dev.put(rolledBackHelmRelease());
    assert.equal(await loop.sendEvent('dev', failureEvent('UpgradeFailed', '6.9.3')), 202);
    await settled(loop.queue);

    // Meanwhile staging rolls 6.9.2 out, healthy: the point at which prod would be promoted.
    staging.put(deployed('6.9.2'));
    staging.put(deployed('6.9.2', 'apps-eu'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2', 'apps-eu')), 202);
    await settled(loop.queue);
    await loop.poll();
    await settled(loop.queue);

    assert.deepEqual(prodPulls(pulls), [], 'no pull request for prod');
    assert.equal(await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'), undefined, 'no promotion record for prod');
    const blocked = await explain(loop.store);
    assert.equal(blocked.dev?.reason, 'TargetsNotReady');
    assert.match(blocked.dev?.message ?? '', /flux-system\/dev apps is not healthy: .*RollbackSucceeded/);
    const dev = await loop.store.getTargetStatus(devApp);
    assert.deepEqual([dev?.status.phase, dev?.status.reason], ['Failed', 'RolledBack']);
    assert.deepEqual([blocked.staging?.state, blocked.staging?.reason], ['not-reached', 'NoCandidate']);
    assert.deepEqual([blocked.prod?.state, blocked.prod?.reason], ['not-reached', 'NoCandidate']);

    // dev is healthy on 6.9.2 again (the failed upgrade reverted): prod is promoted, once.
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await waitFor('the prod pull request', () => prodPulls(pulls).length > 0);
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await loop.poll();
    await settled(loop.queue);
    assert.deepEqual(
      prodPulls(pulls).map((pull) => pull.title),
      ['Promote flux-system/podinfo in prod to 6.9.2'],
    );
    assert.equal(github.count(OPEN_PULL_REQUEST), 2, 'staging, then prod');
    const record = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.equal(record?.state, 'succeeded');
    assert.equal(record?.attempts, 1);
  });

  it('one of two staging targets fails its Helm tests before the other rolls out: prod waits until both are healthy', async (t) => {
    const { loop, github, pulls, staging } = await startWithStagingPromoted(t);

    // staging/apps runs 6.9.2 and is verified healthy; staging/apps-eu has not rolled out yet.
    staging.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    await settled(loop.queue);
    assert.equal((await explain(loop.store)).staging?.state, 'in-progress');

    // Its Helm tests then fail on a later reconcile: still 6.9.2, Ready False.
    staging.put(regressed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', failureEvent('TestFailed', '6.9.2')), 202);
    await settled(loop.queue);

    // apps-eu rolls out 6.9.2, healthy: without the regression, prod would be promoted now.
    staging.put(deployed('6.9.2', 'apps-eu'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2', 'apps-eu')), 202);
    await settled(loop.queue);
    await loop.poll();
    await settled(loop.queue);

    assert.deepEqual(prodPulls(pulls), [], 'no pull request for prod');
    assert.equal(await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'), undefined);
    const blocked = await explain(loop.store);
    assert.deepEqual([blocked.staging?.state, blocked.staging?.reason], ['in-progress', 'RollingOut']);
    assert.match(blocked.staging?.message ?? '', /flux-system\/staging apps is not healthy: .*TestFailed/);
    const regressedTarget = await loop.store.getTargetStatus({
      ...devApp,
      cluster: { namespace: 'flux-system', name: 'staging' },
    });
    assert.deepEqual([regressedTarget?.status.phase, regressedTarget?.status.reason], ['Failed', 'TestsFailed']);
    assert.deepEqual([blocked.prod?.state, blocked.prod?.reason], ['not-reached', 'StoppedEarlier']);

    // The tests pass again: staging has passed, prod is promoted, once.
    staging.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    await waitFor('the prod pull request', () => prodPulls(pulls).length > 0);
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2', 'apps-eu')), 202);
    await loop.poll();
    await settled(loop.queue);
    assert.deepEqual(
      prodPulls(pulls).map((pull) => pull.title),
      ['Promote flux-system/podinfo in prod to 6.9.2'],
    );
    assert.equal(github.count(OPEN_PULL_REQUEST), 2, 'staging, then prod');
    assert.equal((await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.attempts, 1);
  });
});
