// `check-pipeline` (lib/verifier/handlers/check-pipeline.ts): with `readTargets` the pipeline's targets (or one
// environment's) are read before the decision; without, the decision is made from the stored records alone. A
// message from the version before `readTargets` existed still works: its cause says which.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckPipelineMessage } from '../../lib/queue/messages.js';
import { clusterFault } from '../../lib/testing/scripted-clusters.js';
import { DEV, PIPELINE, PROD, PROD_EU, verifierWorld, type World } from './world.js';

/** The pipeline as stored: every target running 6.9.1; the clusters now serve 6.9.2 in dev. */
async function devMovedOn(): Promise<World> {
  const world = await verifierWorld();
  await world.deploy(DEV, '6.9.1');
  await world.deploy(PROD, '6.9.1');
  await world.deploy(PROD_EU, '6.9.1');
  await world.deploy(DEV, '6.9.2', false);
  return world;
}

const getApp = (id: string) => ({ method: 'getApp' as const, app: `flux-system/${id}/podinfo` });

describe('check-pipeline', () => {
  const cases: {
    name: string;
    message: Omit<CheckPipelineMessage, 'type' | 'pipeline'>;
    /** The targets read, in order. */
    reads: string[];
  }[] = [
    {
      name: 'a webhook check of dev reads dev',
      message: { env: 'dev', cause: 'promotion-webhook', readTargets: true },
      reads: ['dev/HelmRelease/apps'],
    },
    {
      name: 'a check after an apply reads every target',
      message: { cause: 'apply', readTargets: true },
      reads: ['dev/HelmRelease/apps', 'prod/HelmRelease/apps', 'prod/HelmRelease/apps-eu'],
    },
    { name: 'a retry decides from the records', message: { cause: 'retry', readTargets: false }, reads: [] },
    { name: "the poller's check decides from the records", message: { cause: 'poll', readTargets: false }, reads: [] },
    // Sent by the previous version, without the field, and still in the queue during a deploy.
    {
      name: 'an old webhook check (no readTargets) reads, as its cause says',
      message: { env: 'dev', cause: 'promotion-webhook' },
      reads: ['dev/HelmRelease/apps'],
    },
    {
      name: 'an old apply check (no readTargets) reads',
      message: { cause: 'apply' },
      reads: ['dev/HelmRelease/apps', 'prod/HelmRelease/apps', 'prod/HelmRelease/apps-eu'],
    },
    { name: 'an old retry (no readTargets) does not read', message: { cause: 'retry' }, reads: [] },
    { name: 'an old approval check (a cause never sent) does not read', message: { cause: 'approval' }, reads: [] },
  ];
  for (const { name, message, reads } of cases) {
    it(name, async () => {
      const world = await devMovedOn();

      await world.handle({ type: 'check-pipeline', pipeline: PIPELINE, ...message });

      assert.deepEqual(world.clusters.calls, reads.map(getApp));
      // Read: dev's new revision is the candidate and goes to prod. Not read: the records say dev runs 6.9.1.
      const promoted = reads.includes('dev/HelmRelease/apps') ? ['6.9.2'] : [];
      assert.deepEqual(
        world.promoter.promotions().map((promotion) => promotion.revision),
        promoted,
      );
    });
  }

  it('a pipeline that is not stored (any more) is neither read nor decided on', async () => {
    const world = await devMovedOn();
    await world.store.deletePipeline(PIPELINE);
    await world.handle({ type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: true });
    assert.deepEqual(world.clusters.calls, []);
    assert.deepEqual(world.promoter.promotions(), []);
  });

  it('a retryable fault of one target is rethrown after every target was read and the pipeline decided on', async () => {
    const world = await devMovedOn();
    const fault = clusterFault('timeout', 'cluster flux-system/prod: no answer within 5000 ms');
    world.clusters.failGet(PROD_EU, fault);

    await assert.rejects(
      world.handle({ type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: true }),
      (error) => error === fault,
    );

    assert.equal(world.clusters.calls.length, 3);
    assert.equal((await world.statusOf(DEV))?.revision, '6.9.2');
    assert.equal((await world.statusOf(PROD_EU))?.reason, 'Timeout');
    assert.deepEqual(world.promoter.promotions(), [], 'prod has a target that cannot be read: no promotion');
  });
});
