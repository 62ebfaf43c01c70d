// `poll` (lib/verifier/handlers/poll.ts): one LIST per (cluster, kind) records every target expected there (one
// missing from the list is not found), and only a pipeline with a target that changed is decided on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterErrorKind } from '../../lib/clusters/port.js';
import type { TargetReason } from '../../lib/flux/target-status.js';
import type { PollMessage } from '../../lib/queue/messages.js';
import { clusterFault } from '../../lib/testing/scripted-clusters.js';
import { DEV, PROD, PROD_CLUSTER, PROD_EU, verifierWorld } from './world.js';

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
    // A first attempt failed and is due again in 30 s.
    await world.store.createPromotion({ namespace: 'flux-system', name: 'podinfo' }, 'prod', '6.9.2', world.now());
    const claimed = await world.store.claimPromotion(
      { namespace: 'flux-system', name: 'podinfo' },
      'prod',
      '6.9.2',
      'another-worker',
      60_000,
      world.now(),
    );
    assert.ok(claimed);
    await world.store.failPromotion(
      claimed,
      'GitHub answered 502',
      new Date(world.now().getTime() + 30_000),
      world.now(),
    );
    world.advance(60_000);

    await world.handle(POLL_PROD);
    assert.deepEqual(world.promoter.promotions(), [], 'nothing changed on prod: no decision');

    await world.deploy(PROD_EU, '6.9.0', false);
    await world.handle(POLL_PROD);
    assert.deepEqual(
      world.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`),
      ['prod 6.9.2'],
      'apps-eu changed: the pipeline is decided on, and the due retry is made',
    );
  });
});
