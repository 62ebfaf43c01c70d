import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromotionError, StrategyPromoter } from '../../lib/promotion/index.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { promotionRequest } from './promoter-contract.js';

describe('StrategyPromoter', () => {
  it("runs the strategy the environment's promotion names", async () => {
    const notification = new RecordingPromoter();
    const pullRequest = new RecordingPromoter();
    const promoter = new StrategyPromoter({ notification, pullRequest });
    await promoter.promote(promotionRequest('6.9.2'));
    assert.equal(notification.promotions().length, 1);
    assert.equal(pullRequest.promotions().length, 0);

    const request = promotionRequest('6.9.3');
    request.env.promotion = {
      strategy: {
        'pull-request': {
          type: 'github',
          url: 'https://github.com/acme/fleet',
          baseBranch: 'main',
          secretRef: { name: 'gh' },
        },
      },
    };
    await promoter.promote(request);
    assert.deepEqual(
      pullRequest.promotions().map((p) => p.revision),
      ['6.9.3'],
    );
  });

  it('sends a rollback to the pull-request strategy only', async () => {
    const notification = new RecordingPromoter();
    const pullRequest = new RecordingPromoter();
    const promoter = new StrategyPromoter({ notification, pullRequest });
    const rollback = { ...promotionRequest('6.9.1'), rollback: { from: '6.9.2' } };
    await assert.rejects(
      promoter.promote(rollback),
      (error: unknown) =>
        error instanceof PromotionError &&
        !error.retryable &&
        /rollback needs the pull-request strategy/.test(error.message),
    );
    assert.deepEqual(notification.promotions(), [], 'no notification sent for it');

    rollback.env.promotion = {
      strategy: {
        'pull-request': {
          type: 'github',
          url: 'https://github.com/acme/fleet',
          baseBranch: 'main',
          secretRef: { name: 'gh' },
        },
      },
    };
    await promoter.promote(rollback);
    assert.deepEqual(pullRequest.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.1', rollbackFrom: '6.9.2', calls: 1 },
    ]);
  });

  it('fails for good, saying why, when the strategy is not available or none is configured', async () => {
    await assert.rejects(
      new StrategyPromoter({}).promote(promotionRequest('6.9.2')),
      (error: unknown) =>
        error instanceof PromotionError &&
        !error.retryable &&
        error.message === 'the notification promotion strategy is not available in this deployment',
    );
    const request = promotionRequest('6.9.2');
    delete request.env.promotion;
    await assert.rejects(
      new StrategyPromoter({ notification: new RecordingPromoter() }).promote(request),
      /environment prod has no promotion configured/,
    );
  });
});
