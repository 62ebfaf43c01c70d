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

// The poll's check of every pipeline decides only a pipeline whose decision time alone can change; a write that
// changes a decision is followed by a decision its message's redelivery repeats (check-app, poll).
describe("the poller's check of a pipeline, and decisions repeated on redelivery", () => {
  const POLL_CHECK: CheckPipelineMessage = {
    type: 'check-pipeline',
    pipeline: PIPELINE,
    cause: 'poll',
    readTargets: false,
  };

  /** dev recorded on 6.9.2 and healthy, prod on 6.9.1: a decision would promote 6.9.2 to prod. */
  async function undecidedCandidate(options: { devSoak?: string } = {}): Promise<World> {
    const world = await verifierWorld(options);
    await world.deploy(DEV, '6.9.2');
    await world.deploy(PROD, '6.9.1');
    await world.deploy(PROD_EU, '6.9.1');
    return world;
  }
  const promoted = (world: World) => world.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`);

  it('a pipeline time cannot change is not decided: no status is read', async () => {
    const world = await undecidedCandidate();
    world.store.counts.reads = 0;
    await world.handle(POLL_CHECK);
    assert.deepEqual(promoted(world), []);
    assert.equal(
      world.store.counts.reads,
      4,
      'the configuration generation, the definition, its promotion records and the stop switches',
    );
    world.store.counts.reads = 0;
    await world.handle(POLL_CHECK);
    assert.equal(world.store.counts.reads, 3, 'the next poll: the definition read under the same generation is kept');
  });

  it('a pipeline that soaks is decided, and promotes once the soak is served', async () => {
    const world = await undecidedCandidate({ devSoak: '30m' });
    world.advance(31 * 60_000);
    let definitionReads = 0;
    const getPipeline = world.store.getPipeline.bind(world.store);
    world.store.getPipeline = (key) => {
      definitionReads += 1;
      return getPipeline(key);
    };
    await world.handle(POLL_CHECK);
    assert.deepEqual(promoted(world), ['prod 6.9.2']);
    assert.equal(definitionReads, 1, 'the decision goes on from the definition the check read');
  });

  it('a pipeline with a promotion whose retry came due is decided, and retries it', async () => {
    const world = await undecidedCandidate();
    await world.failedAttempt('6.9.2');
    world.advance(60_000);
    await world.handle(POLL_CHECK);
    assert.deepEqual(promoted(world), ['prod 6.9.2']);
  });

  it('a pipeline under a stop switch that ended by itself is decided, and promotes', async () => {
    const world = await undecidedCandidate();
    const at = world.now().toISOString();
    await world.store.setFreeze({ scope: { installation: true }, reason: 'release', by: 'sre', at, until: at });
    world.advance(60_000);
    await world.handle(POLL_CHECK);
    assert.deepEqual(promoted(world), ['prod 6.9.2']);
  });

  it("the local mode's first poll after a start (resume) decides a pipeline time cannot change", async () => {
    const world = await undecidedCandidate();
    await world.handle({ ...POLL_CHECK, cause: 'resume' });
    assert.deepEqual(promoted(world), ['prod 6.9.2'], 'what the stopped process had queued is lost');
  });

  it('a check-app received again decides though the status it reads is the one recorded', async () => {
    const world = await undecidedCandidate();
    const check = { type: 'check-app' as const, app: DEV, cause: 'event' as const, attempt: 0 };
    await world.handle(check);
    assert.deepEqual(promoted(world), [], 'first receive: nothing changed, nothing decided');
    await world.handleAgain(check);
    assert.deepEqual(promoted(world), ['prod 6.9.2'], 'received again: an earlier receive may have failed to decide');
  });

  it('a poll message received again has every pipeline of its pair decided', async () => {
    const world = await undecidedCandidate();
    const poll = { type: 'poll' as const, cluster: DEV.cluster, kind: 'HelmRelease' as const };
    await world.handle(poll);
    world.sent();
    await world.handle(poll);
    assert.deepEqual(world.sent(), [], 'nothing changed: nothing to decide');
    await world.handleAgain(poll);
    const [decision] = world.sent();
    assert.equal(decision?.message.type === 'check-pipeline' && decision.message.cause, 'polled-change');
  });
});
