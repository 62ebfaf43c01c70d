// `poll` (lib/verifier/handlers/poll.ts): one LIST per (cluster, kind) records every target expected there (one
// missing from the list is not found), and only a pipeline with a target that changed is decided on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterErrorKind } from '../../lib/clusters/port.js';
import type { TargetReason } from '../../lib/flux/target-status.js';
import type { PollMessage } from '../../lib/queue/messages.js';
import { clusterFault } from '../../lib/testing/scripted-clusters.js';
import { DEV, PIPELINE, PROD, PROD_CLUSTER, PROD_EU, verifierWorld, type World } from './world.js';

const POLL_PROD: PollMessage = { type: 'poll', cluster: PROD_CLUSTER, kind: 'HelmRelease' };

describe('poll', () => {
  it('one LIST of the namespaces in use records every target of the (cluster, kind)', async () => {
    const world = await verifierWorld();
    await world.deploy(PROD, '6.9.1', false);
    await world.deploy(PROD_EU, '6.9.0', false);

    await world.handle(POLL_PROD);

    assert.deepEqual(world.clusters.calls, [
      { method: 'listApps', cluster: 'flux-system/prod', kind: 'HelmRelease', namespaces: ['apps', 'apps-eu'] },
    ]);
    assert.equal((await world.statusOf(PROD))?.revision, '6.9.1');
    assert.equal((await world.statusOf(PROD_EU))?.revision, '6.9.0');
    assert.equal(await world.statusOf(DEV), undefined, 'another cluster is not touched');
  });

  it('a target missing from the list is recorded as Absent (NotFound)', async () => {
    const world = await verifierWorld();
    await world.deploy(PROD, '6.9.1', false);

    await world.handle(POLL_PROD);

    assert.deepEqual(await world.statusOf(PROD_EU), {
      phase: 'Absent',
      reason: 'NotFound',
      message: 'HelmRelease apps-eu/podinfo not found on cluster flux-system/prod',
    });
  });

  it('a (cluster, kind) no pipeline uses is not listed', async () => {
    const world = await verifierWorld();
    await world.handle({ ...POLL_PROD, kind: 'Kustomization' });
    assert.deepEqual(world.clusters.calls, []);
  });

  describe('a failed LIST is recorded on every expected target; only a fault that may pass fails the message', () => {
    const cases: { kind: ClusterErrorKind; reason: TargetReason; rethrown: boolean }[] = [
      { kind: 'unreachable', reason: 'Unreachable', rethrown: true },
      { kind: 'server-error', reason: 'ServerError', rethrown: true },
      { kind: 'forbidden', reason: 'Forbidden', rethrown: false },
      { kind: 'bad-config', reason: 'ClusterNotConfigured', rethrown: false },
    ];
    for (const { kind, reason, rethrown } of cases) {
      it(`${kind}: ${reason}${rethrown ? ', rethrown' : ''}`, async () => {
        const world = await verifierWorld();
        const fault = clusterFault(kind, `cluster flux-system/prod: ${kind} listing helmreleases`);
        world.clusters.failList(PROD_CLUSTER, 'HelmRelease', fault);

        const handled = world.handle(POLL_PROD);
        if (rethrown) await assert.rejects(handled, (error) => error === fault);
        else await handled;

        for (const app of [PROD, PROD_EU]) {
          assert.deepEqual(await world.statusOf(app), { phase: 'Unreadable', reason, message: fault.message });
        }
        assert.deepEqual(world.logs.find((line) => line.message === 'cannot list apps')?.attributes, {
          cluster: 'flux-system/prod',
          kind: 'HelmRelease',
          phase: 'Unreadable',
          reason,
          message: fault.message,
        });
      });
    }
  });

  it('decides only when a target changed: a retry that came due waits for the check-pipeline', async () => {
    const world = await verifierWorld({ settings: { promotionRetryDelaysSeconds: [30] } });
    await world.deploy(DEV, '6.9.2');
    await world.deploy(PROD, '6.9.1');
    await world.deploy(PROD_EU, '6.9.1');
    await world.failedAttempt('6.9.2');
    world.advance(60_000);

    await world.handle(POLL_PROD);
    assert.deepEqual(world.promoter.promotions(), [], 'nothing changed on prod: no decision');

    await world.deploy(PROD_EU, '6.9.0', false);
    world.sent();
    await world.handle(POLL_PROD);
    assert.deepEqual(world.promoter.promotions(), [], 'the decision is left to a delayed check-pipeline');
    const [decideSoon, ...others] = world.sent();
    assert.deepEqual(decideSoon, {
      message: {
        type: 'check-pipeline',
        pipeline: PIPELINE,
        cause: 'polled-change',
        readTargets: false,
        recordedBefore: new Date(world.now().getTime() + 4_800).toISOString(),
      },
      delaySeconds: 5,
    });
    assert.deepEqual(others, []);
    world.advance(5_000);
    await world.handle(decideSoon.message);
    assert.deepEqual(
      world.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
      ['prod 6.9.2'],
      'apps-eu changed: the pipeline is decided on, and the due retry is made',
    );
  });

  describe('deciding after a poll: one delayed check-pipeline per pipeline, shared by the poll messages', () => {
    const POLL_DEV: PollMessage = { type: 'poll', cluster: DEV.cluster, kind: 'HelmRelease' };
    const decisionsSent = (world: World) =>
      world.sent().filter(({ message }) => message.type === 'check-pipeline' && message.cause === 'polled-change');

    it('a second poll message with a change relies on the check-pipeline the first one sent', async () => {
      const world = await verifierWorld();
      await world.deploy(DEV, '6.9.2', false);
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);

      await world.handle(POLL_DEV);
      world.advance(3_000);
      await world.handle(POLL_PROD);
      assert.equal(decisionsSent(world).length, 1, 'due 5 s after the first: it sees what the second recorded');
      assert.equal((await world.statusOf(PROD))?.revision, '6.9.1', 'the second still recorded what it saw');
    });

    it('a poll message that records too close to the check-pipeline being due sends its own', async () => {
      const world = await verifierWorld();
      await world.deploy(DEV, '6.9.2', false);
      await world.deploy(PROD, '6.9.1', false);

      await world.handle(POLL_DEV);
      world.advance(4_900);
      await world.handle(POLL_PROD);
      assert.equal(decisionsSent(world).length, 2, 'moments before it is due: no longer relied on');
    });

    it('a poll that changed nothing sends nothing; with no delay the poll message decides itself', async () => {
      const world = await verifierWorld();
      await world.deploy(PROD, '6.9.1');
      await world.deploy(PROD_EU, '6.9.1');
      await world.handle(POLL_PROD);
      assert.deepEqual(decisionsSent(world), [], 'nothing changed');

      const inline = await verifierWorld({ settings: { pollDecisionDelaySeconds: 0 } });
      await inline.deploy(DEV, '6.9.2');
      await inline.deploy(PROD, '6.9.1', false);
      await inline.deploy(PROD_EU, '6.9.1', false);
      await inline.handle(POLL_PROD);
      assert.deepEqual(decisionsSent(inline), []);
      assert.deepEqual(
        inline.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
        ['prod 6.9.2'],
        'decided within the poll message',
      );
    });

    it('a check-pipeline a later decision answered is not decided again; one sent after it began is', async () => {
      const world = await verifierWorld();
      await world.deploy(DEV, '6.9.2', false);
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);
      await world.handle(POLL_DEV);
      world.advance(10_000);
      await world.handle(POLL_PROD);
      const [first, second] = decisionsSent(world).map(({ message }) => message);
      assert.ok(first && second, 'one per poll message: the second recorded after the first was due');

      // The queue hands them over late and in order, as after a poll of many batches.
      world.advance(30_000);
      world.store.resetCounts();
      await world.handle(first);
      assert.ok(world.store.counts.reads > 0, 'the first is decided: it reads the targets');
      assert.deepEqual(
        world.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
        ['prod 6.9.2'],
        'from what both poll messages recorded',
      );
      world.store.resetCounts();
      await world.handle(second);
      assert.deepEqual(world.store.counts, { reads: 0, writes: 0 }, 'answered by the first: nothing read');
      assert.ok(
        world.logs.some((line) => line.message === 'decided since its changes were recorded; not decided again'),
      );

      // A change recorded after that decision began is not answered by it.
      await world.deploy(PROD_EU, '6.9.2', false);
      await world.handle(POLL_PROD);
      const [third] = decisionsSent(world).map(({ message }) => message);
      assert.ok(third);
      world.advance(5_000);
      world.store.resetCounts();
      await world.handle(third);
      assert.ok(world.store.counts.reads > 0, 'decided');

      // A message of a version before `recordedBefore` is always decided.
      world.store.resetCounts();
      await world.handle({ type: 'check-pipeline', pipeline: PIPELINE, cause: 'polled-change', readTargets: false });
      assert.ok(world.store.counts.reads > 0, 'decided');
    });

    it('a failed send is relied on by no later message', async () => {
      const world = await verifierWorld();
      await world.deploy(DEV, '6.9.2', false);
      await world.deploy(PROD, '6.9.1', false);
      world.queue.failNextSend(new Error('SQS is unavailable'));
      await assert.rejects(world.handle(POLL_DEV), /SQS is unavailable/);
      await world.handle(POLL_PROD);
      assert.equal(decisionsSent(world).length, 1, 'the second poll message sent its own');
    });
  });

  describe('the poll summary: a steady poll reads no status, and no writer can make it lie for longer than a poll', () => {
    const ready = (version: string) => ({ phase: 'Ready', revision: version });
    const statusSummary = async (world: World) => {
      const status = await world.statusOf(PROD);
      return status && { phase: status.phase, revision: status.revision };
    };

    it('a second poll with nothing changed makes one store read and no write', async () => {
      const world = await verifierWorld();
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);
      await world.handle(POLL_PROD);
      assert.equal((await world.statusOf(PROD))?.revision, '6.9.1');

      world.store.resetCounts();
      world.advance(300_000);
      await world.handle(POLL_PROD);

      assert.deepEqual(
        world.store.counts,
        { reads: 2, writes: 0 },
        'the usage with its summary, the definition: no status',
      );
      assert.equal(world.clusters.calls.filter((call) => call.method === 'listApps').length, 2);
    });

    it('a status that changed on the cluster is recorded, and only it is read', async () => {
      const world = await verifierWorld();
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);
      await world.handle(POLL_PROD);

      await world.deploy(PROD_EU, '6.9.2', false);
      world.store.resetCounts();
      world.advance(300_000);
      await world.handle(POLL_PROD);

      assert.equal((await world.statusOf(PROD_EU))?.revision, '6.9.2');
      assert.equal((await world.statusOf(PROD))?.revision, '6.9.1');
      const summary = await world.store.getClusterKindPoll(PROD_CLUSTER, 'HelmRelease');
      assert.equal(summary?.summary.entries.size, 2, 'both targets vouched for again');
    });

    it('an event that changes a status between the poll reading the summary and writing it is not hidden', async () => {
      const world = await verifierWorld();
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);
      await world.handle(POLL_PROD);

      // The next poll reads the summary (prod says 6.9.1); before it LISTs, prod rolls to 6.9.2, an event records
      // that, and prod rolls back to 6.9.1 again; then the LIST shows 6.9.1 on both, as the summary says.
      const read = world.store.getClusterKindPoll.bind(world.store);
      let raced = false;
      world.store.getClusterKindPoll = async (...args) => {
        const result = await read(...args);
        if (!raced) {
          raced = true;
          world.advance(1_000);
          await world.deploy(PROD, '6.9.2', false);
          await world.handle({ type: 'check-app', app: PROD, cause: 'event', attempt: 0 });
          assert.deepEqual(await statusSummary(world), ready('6.9.2'));
          await world.deploy(PROD, '6.9.1', false);
          world.advance(1_000);
        }
        return result;
      };
      await world.handle(POLL_PROD);
      assert.deepEqual(
        await statusSummary(world),
        ready('6.9.2'),
        'this poll trusted the summary it read before the event (at most one poll)',
      );

      world.advance(300_000);
      await world.handle(POLL_PROD);
      assert.deepEqual(await statusSummary(world), ready('6.9.1'), 'the event removed the entry: the next poll reads');
      world.store.resetCounts();
      world.advance(300_000);
      await world.handle(POLL_PROD);
      assert.deepEqual(world.store.counts, { reads: 2, writes: 0 }, 'and the poll after is steady again');
    });

    it('a poll whose summary write loses to another writer forgets what it changed instead', async () => {
      const world = await verifierWorld();
      await world.deploy(PROD, '6.9.1', false);
      await world.deploy(PROD_EU, '6.9.1', false);
      await world.handle(POLL_PROD);

      // prod moves to 6.9.2 on the cluster; while the poll records that, an event changes apps-eu, which moves the
      // summary on: the poll's write of prod's entry fails and it forgets prod's entry instead.
      await world.deploy(PROD, '6.9.2', false);
      const recordPolled = world.store.recordPolledStatus.bind(world.store);
      let raced = false;
      world.store.recordPolledStatus = async (...args) => {
        const result = await recordPolled(...args);
        if (!raced) {
          raced = true;
          await world.deploy(PROD_EU, '6.9.0', false);
          await world.handle({ type: 'check-app', app: PROD_EU, cause: 'event', attempt: 0 });
        }
        return result;
      };
      world.advance(300_000);
      await world.handle(POLL_PROD);

      assert.deepEqual(await statusSummary(world), ready('6.9.2'));
      const summary = (await world.store.getClusterKindPoll(PROD_CLUSTER, 'HelmRelease'))?.summary;
      assert.equal(summary?.entries.has('apps/podinfo'), false, 'no entry the failed write would have vouched for');
      assert.equal(summary?.entries.has('apps-eu/podinfo'), false, 'the event forgot its own');

      // prod rolls back to 6.9.1: the next poll, trusting no entry for it, records that.
      await world.deploy(PROD, '6.9.1', false);
      world.advance(300_000);
      await world.handle(POLL_PROD);
      assert.deepEqual(await statusSummary(world), ready('6.9.1'));
      assert.equal((await world.statusOf(PROD_EU))?.revision, '6.9.0');
    });
  });
});
