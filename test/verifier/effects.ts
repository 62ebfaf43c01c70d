// The effects of a decision (lib/verifier/effects/) and the `promote` message: a promotion made under its record
// (success, a retryable failure with its retry scheduled, a failure for good, a lease held by another worker), an
// approval requested, and a stale approval request cleared. Each effect leaves its audit entry; a redundant message
// leaves none.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromotionError } from '../../lib/promotion/port.js';
import type { CheckPipelineMessage } from '../../lib/queue/messages.js';
import { DEV, PIPELINE, PROD, PROD_EU, T0, verifierWorld, type WorldOptions } from './world.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

// A re-decision from the stored records (as a retry that came due sends): it always decides.
const DECIDE: CheckPipelineMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };
const RETRY: CheckPipelineMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000).toISOString();

/** dev runs 6.9.2, both prod targets 6.9.1, as recorded: 6.9.2 is the candidate for prod. */
async function candidateForProd(options: WorldOptions = {}) {
  const world = await verifierWorld(options);
  await world.deploy(DEV, '6.9.2');
  await world.deploy(PROD, '6.9.1');
  await world.deploy(PROD_EU, '6.9.1');
  return world;
}

describe('promote', () => {
  it('succeeds: the record holds the result, the audit trail the attempt', async () => {
    const world = await candidateForProd();

    await world.handle(DECIDE);

    const record = await world.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.deepEqual(
      [record?.state, record?.attempts, record?.result],
      ['succeeded', 1, 'recorded:flux-system/podinfo prod 6.9.2'],
    );
    assert.deepEqual(await world.audit(), ['promotion-started prod 6.9.2', 'promotion-succeeded prod 6.9.2']);
    assert.deepEqual(world.sent(), []);

    await world.handle(DECIDE);
    assert.equal(world.promoter.promotions()[0]?.calls, 1, 'a redundant message makes no second effect');
    assert.equal((await world.audit()).length, 2, 'and leaves no audit entry');
  });

  describe('a failure: retried on the schedule or after Retry-After, through a delayed check, or never', () => {
    const cases: {
      name: string;
      error: Error;
      options?: WorldOptions;
      /** Seconds after T0, or undefined for a failure for good. */
      retryIn?: number;
      /** The delay of the retry's check-pipeline; undefined when none is sent. */
      messageDelaySeconds?: number;
    }[] = [
      {
        name: 'a 502: retried after the first delay',
        error: new PromotionError('HostUnavailable', 'GitHub answered 502'),
        retryIn: 30,
        messageDelaySeconds: 31,
      },
      {
        name: 'a rate limit: retried after its Retry-After',
        error: new PromotionError('RateLimited', 'rate limited', { retryAfterMs: 120_000 }),
        retryIn: 120,
        messageDelaySeconds: 121,
      },
      {
        name: 'a Retry-After past the queue limit: the poll retries it',
        error: new PromotionError('RateLimited', 'rate limited', { retryAfterMs: 20 * 60_000 }),
        retryIn: 1200,
      },
      {
        name: 'an unexpected error: worth another try',
        error: new Error('socket hang up'),
        retryIn: 30,
        messageDelaySeconds: 31,
      },
      { name: 'no marker: failed for good', error: new PromotionError('NoMarkers', 'no $promotion marker for prod') },
      {
        name: 'out of retries: failed for good',
        error: new PromotionError('HostUnavailable', 'GitHub answered 502'),
        options: { settings: { promotionRetryDelaysSeconds: [] } },
      },
    ];
    for (const { name, error, options, retryIn, messageDelaySeconds } of cases) {
      it(name, async () => {
        const world = await candidateForProd(options);
        world.promoter.failNext(error);

        await world.handle(DECIDE);

        const record = await world.store.getPromotion(PIPELINE, 'prod', '6.9.2');
        assert.deepEqual(
          [record?.state, record?.error, record?.retryAt],
          ['failed', error.message, retryIn === undefined ? undefined : at(retryIn)],
        );
        const retry = messageDelaySeconds === undefined ? [] : [{ message: RETRY, delaySeconds: messageDelaySeconds }];
        assert.deepEqual(world.sent(), retry);
        assert.deepEqual(await world.audit(), ['promotion-started prod 6.9.2', 'promotion-failed prod 6.9.2']);
        const { items } = await world.store.listAudit(PIPELINE);
        assert.equal(
          items.find((entry) => !isEnvironmentFact(entry))?.message,
          retryIn === undefined ? `${error.message}; not retried` : `${error.message}; retrying at ${at(retryIn)}`,
        );
      });
    }
  });

  it('the retry, once due, is the next attempt', async () => {
    const world = await candidateForProd();
    world.promoter.failNext(new PromotionError('HostUnavailable', 'GitHub answered 502'));
    await world.handle(DECIDE);
    const [retry] = world.sent();
    assert.ok(retry);

    world.advance(10_000);
    await world.handle(retry.message);
    assert.equal((await world.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state, 'failed', 'not due yet');

    world.advance((retry.delaySeconds ?? 0) * 1000);
    await world.handle(retry.message);
    const record = await world.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.deepEqual([record?.state, record?.attempts], ['succeeded', 2]);
  });

  describe('an attempt another worker holds', () => {
    const cases = [
      { name: 'under a live lease: left alone', leaseExpiresAt: at(60), resumed: false },
      { name: 'whose lease expired: resumed', leaseExpiresAt: at(-1), resumed: true },
      { name: 'whose lease cannot be read: resumed', leaseExpiresAt: 'not a time', resumed: true },
    ];
    for (const { name, leaseExpiresAt, resumed } of cases) {
      it(name, async () => {
        const world = await candidateForProd();
        await world.store.createPromotion(PIPELINE, 'prod', '6.9.2', T0);
        assert.ok(await world.store.claimPromotion(PIPELINE, 'prod', '6.9.2', 'another-worker', 60_000, T0));
        world.store.patchPromotion(PIPELINE, 'prod', '6.9.2', { leaseExpiresAt });

        await world.handle(DECIDE);

        const record = await world.store.getPromotion(PIPELINE, 'prod', '6.9.2');
        assert.deepEqual(
          [record?.state, record?.attempts, record?.owner],
          resumed ? ['succeeded', 2, undefined] : ['in-progress', 1, 'another-worker'],
        );
        assert.equal(world.promoter.promotions().length, resumed ? 1 : 0);
      });
    }
  });
});

describe('approvals', () => {
  it('request-approval: a manual environment waits for an approval of the candidate, requested once', async () => {
    const world = await candidateForProd({ manual: true });

    await world.handle(DECIDE);
    await world.handle(DECIDE);

    assert.deepEqual(await world.store.getApproval(PIPELINE, 'prod'), {
      env: 'prod',
      revision: '6.9.2',
      requestedAt: T0.toISOString(),
    });
    assert.deepEqual(await world.audit(), ['approval-requested prod 6.9.2'], 'the second message changed nothing');
    const [entry] = (await world.store.listAudit(PIPELINE)).items.filter((item) => !isEnvironmentFact(item));
    assert.deepEqual([entry?.message, entry?.actor], ['waiting for approval of 6.9.2', 'pipeline-controller']);
    assert.deepEqual(world.promoter.promotions(), []);
  });

  it('the promote message after an approval makes the promotion; for another revision, nothing', async () => {
    const world = await candidateForProd({ manual: true });
    await world.handle(DECIDE);

    await world.handle({ type: 'promote', pipeline: PIPELINE, env: 'prod', revision: '6.9.1' });
    assert.deepEqual(world.promoter.promotions(), [], 'no approval: the decision does not promote');

    assert.equal(await world.store.approve(PIPELINE, 'prod', '6.9.2', 'alice', T0), 'approved');
    await world.handle({ type: 'promote', pipeline: PIPELINE, env: 'prod', revision: '6.9.2' });

    assert.deepEqual(world.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    assert.deepEqual(await world.audit(), [
      'approval-requested prod 6.9.2',
      'promotion-started prod 6.9.2',
      'promotion-succeeded prod 6.9.2',
    ]);
  });

  it('clear-approval: a request the environment moved past is removed, once', async () => {
    const world = await candidateForProd({ manual: true });
    await world.handle(DECIDE);
    // 6.9.3 reached prod by hand: the request for 6.9.2 waits for nothing any more.
    await world.deploy(DEV, '6.9.3');
    await world.deploy(PROD, '6.9.3');
    await world.deploy(PROD_EU, '6.9.3');

    await world.handle(DECIDE);
    await world.handle(DECIDE);

    assert.equal(await world.store.getApproval(PIPELINE, 'prod'), undefined);
    assert.deepEqual(await world.audit(), ['approval-requested prod 6.9.2', 'approval-cleared prod 6.9.2']);
  });
});
