// The verifier's listeners (notifications, metrics) hear each effect once it is certain, with what they need beyond
// the audit entry, and a listener that fails changes nothing about the effect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromotionError } from '../../lib/promotion/port.js';
import type { CheckPipelineMessage } from '../../lib/queue/messages.js';
import type { VerifierEffect } from '../../lib/verifier/index.js';
import { DEV, PIPELINE, PROD, PROD_EU, verifierWorld, type WorldOptions } from './world.js';

// A re-decision from the stored records (as a retry that came due sends): it always decides.
const DECIDE: CheckPipelineMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };

async function candidateForProd(options: WorldOptions = {}) {
  const world = await verifierWorld(options);
  await world.deploy(DEV, '6.9.2');
  await world.deploy(PROD, '6.9.1');
  await world.deploy(PROD_EU, '6.9.1');
  return world;
}

function hearing() {
  const heard: VerifierEffect[] = [];
  const listener = (effect: VerifierEffect) => {
    heard.push(effect);
    return Promise.resolve();
  };
  const summary = () =>
    heard
      .map(({ entry }) => `${entry.type} ${entry.env} ${entry.revision}`)
      .filter((line) => !line.includes('environment-'));
  return { heard, listener, summary };
}

describe('effect listeners', () => {
  it('hear a promotion start and succeed with its result, once, and the facts the metrics use', async () => {
    const { heard, listener, summary } = hearing();
    const world = await candidateForProd({ listeners: [listener] });

    await world.handle(DECIDE);
    await world.handle(DECIDE);

    assert.deepEqual(summary(), ['promotion-started prod 6.9.2', 'promotion-succeeded prod 6.9.2']);
    const succeeded = heard.find(({ entry }) => entry.type === 'promotion-succeeded');
    assert.equal(succeeded?.result, 'recorded:flux-system/podinfo prod 6.9.2');
    assert.equal(succeeded?.pipeline.name, 'podinfo');
    const facts = heard.filter(({ entry }) => entry.type === 'environment-passed').map(({ entry }) => entry.env);
    assert.deepEqual(facts.sort(), ['dev', 'prod'], 'each environment passed once, however often it is decided on');
  });

  it('hear a failure for good without retryAt and a retried one with it', async () => {
    for (const [error, retried] of [
      [new PromotionError('NoMarkers', 'no $promotion marker for prod'), false],
      [new PromotionError('HostUnavailable', 'GitHub answered 502'), true],
    ] as const) {
      const { heard, listener } = hearing();
      const world = await candidateForProd({ listeners: [listener] });
      world.promoter.failNext(error);
      await world.handle(DECIDE);
      const failed = heard.find(({ entry }) => entry.type === 'promotion-failed');
      assert.equal(failed?.error, error.message);
      assert.equal(failed?.retryAt !== undefined, retried, error.message);
    }
  });

  it('hear an approval requested; a failing listener is logged and the others still hear it', async () => {
    const { listener, summary } = hearing();
    const failing = () => Promise.reject(new Error('slack is down'));
    const world = await candidateForProd({ manual: true, listeners: [failing, listener] });

    await world.handle(DECIDE);

    assert.deepEqual(summary(), ['approval-requested prod 6.9.2']);
    assert.equal((await world.store.getApproval(PIPELINE, 'prod'))?.revision, '6.9.2', 'the effect stands');
    const warning = world.logs.find((line) => line.message.startsWith('an effect listener failed'));
    assert.equal(warning?.attributes?.error, 'slack is down');
  });
});
