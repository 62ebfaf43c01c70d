// `check-app` (lib/verifier/handlers/check-app.ts): the app is read from its cluster, recorded as a phase and a
// reason, re-checked while it progresses, and every pipeline it belongs to is decided on. A fault that may pass is
// rethrown (the queue redelivers it with backoff); one a person must fix is recorded and the message succeeds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterErrorKind } from '../../lib/clusters/port.js';
import type { TargetPhase, TargetReason } from '../../lib/flux/target-status.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import type { CheckAppMessage } from '../../lib/queue/messages.js';
import { clusterFault } from '../../lib/testing/scripted-clusters.js';
import { DEV, PROD, PROD_EU, upgrading, verifierWorld } from './world.js';

const checkApp = (app: AppKey, attempt = 0): CheckAppMessage => ({ type: 'check-app', app, cause: 'event', attempt });

describe('check-app', () => {
  it('records what the cluster serves and decides: a new candidate in dev is promoted to prod', async () => {
    const world = await verifierWorld();
    await world.deploy(PROD, '6.9.1');
    await world.deploy(PROD_EU, '6.9.1');
    await world.deploy(DEV, '6.9.2', false);

    await world.handle({ ...checkApp(DEV), hint: { revision: '9.9.9', reason: 'UpgradeSucceeded' } });

    assert.deepEqual(world.clusters.calls, [{ method: 'getApp', app: 'flux-system/dev/HelmRelease/apps/podinfo' }]);
    const status = await world.statusOf(DEV);
    assert.deepEqual([status?.phase, status?.reason, status?.revision], ['Ready', 'Deployed', '6.9.2']);
    assert.deepEqual(world.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    assert.deepEqual(world.sent(), [], 'settled: no re-check');
  });

  it('an app in no pipeline is not read', async () => {
    const world = await verifierWorld();
    await world.handle(checkApp({ ...DEV, name: 'other' }));
    assert.deepEqual(world.clusters.calls, []);
    assert.deepEqual(world.sent(), []);
  });

  describe('a target still progressing is checked again after a growing delay, then left to the poll', () => {
    const cases = [
      { attempt: 0, delaySeconds: 5 },
      { attempt: 1, delaySeconds: 10 },
      { attempt: 4, delaySeconds: 80 },
      { attempt: 5, delaySeconds: undefined },
    ];
    for (const { attempt, delaySeconds } of cases) {
      it(`attempt ${attempt}: ${delaySeconds === undefined ? 'no re-check' : `after ${delaySeconds} s`}`, async () => {
        const world = await verifierWorld();
        world.clusters.put(DEV, upgrading('6.9.1', '6.9.2'));

        await world.handle(checkApp(DEV, attempt));

        assert.equal((await world.statusOf(DEV))?.phase, 'Progressing');
        const expected =
          delaySeconds === undefined
            ? []
            : [{ message: { ...checkApp(DEV, attempt + 1), cause: 'recheck' as const }, delaySeconds }];
        assert.deepEqual(world.sent(), expected);
        assert.equal(
          world.logs.some((line) => line.message === 'target still not settled; leaving it to the poll'),
          delaySeconds === undefined,
        );
      });
    }
  });

  it('an app gone from its cluster is recorded as Absent (NotFound), and the message succeeds', async () => {
    const world = await verifierWorld();
    await world.handle(checkApp(PROD_EU));
    assert.deepEqual(await world.statusOf(PROD_EU), {
      phase: 'Absent',
      reason: 'NotFound',
      message: 'HelmRelease apps-eu/podinfo not found on cluster flux-system/prod',
    });
    assert.deepEqual(world.sent(), []);
  });

  describe('a cluster fault is recorded with its reason; only one that may pass fails the message', () => {
    const cases: { kind: ClusterErrorKind; reason: TargetReason; rethrown: boolean }[] = [
      { kind: 'unreachable', reason: 'Unreachable', rethrown: true },
      { kind: 'timeout', reason: 'Timeout', rethrown: true },
      { kind: 'server-error', reason: 'ServerError', rethrown: true },
      { kind: 'unauthorized', reason: 'Unauthorized', rethrown: false },
      { kind: 'forbidden', reason: 'Forbidden', rethrown: false },
      { kind: 'bad-config', reason: 'ClusterNotConfigured', rethrown: false },
    ];
    for (const { kind, reason, rethrown } of cases) {
      it(`${kind}: ${reason}, ${rethrown ? 'rethrown for redelivery' : 'not retried'}`, async () => {
        const world = await verifierWorld();
        await world.deploy(DEV, '6.9.2');
        await world.deploy(PROD_EU, '6.9.1');
        const fault = clusterFault(kind, `cluster flux-system/prod: ${kind} reading helmreleases/podinfo in apps`);
        world.clusters.failGet(PROD, fault);

        const handled = world.handle(checkApp(PROD));
        if (rethrown) await assert.rejects(handled, (error) => error === fault);
        else await handled;

        const expected: { phase: TargetPhase; reason: TargetReason; message: string } = {
          phase: 'Unreadable',
          reason,
          message: fault.message,
        };
        assert.deepEqual(await world.statusOf(PROD), expected);
        assert.deepEqual(
          world.logs.find((line) => line.message === 'cannot read target')?.attributes,
          { app: 'flux-system/prod/HelmRelease/apps/podinfo', ...expected },
          'the log line says the phase, the reason and the message',
        );
        assert.deepEqual(world.promoter.promotions(), [], 'nothing is promoted past a target that cannot be read');
        assert.deepEqual(world.sent(), [], 'an unreadable target is not re-checked: the queue or the poll retries');
      });
    }
  });

  it('any other error is ReadFailed and rethrown: an unexpected fault is worth another try', async () => {
    const world = await verifierWorld();
    world.clusters.failGet(DEV, new TypeError('fetch failed'));
    await assert.rejects(world.handle(checkApp(DEV)), /reading the target failed: fetch failed/);
    assert.deepEqual(await world.statusOf(DEV), {
      phase: 'Unreadable',
      reason: 'ReadFailed',
      message: 'reading the target failed: fetch failed',
    });
  });
});
