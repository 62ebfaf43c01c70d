// The verifier's effect metrics, heard as its listener while the real verifier decides over the in-memory store:
// promotions started, succeeded, failed (retrying or for good), approvals requested, and the lead time of a revision
// when it arrives in the last environment; a redundant message counts nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTargetStatus } from '../../lib/flux/index.js';
import { effectMetrics } from '../../lib/observability/effect-metrics.js';
import { MemoryMetrics } from '../../lib/observability/memory-metrics.js';
import type { MetricName } from '../../lib/observability/metric-names.js';
import { resolvePipeline, type AppKey } from '../../lib/pipeline/model.js';
import { PromotionError } from '../../lib/promotion/port.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import type { CheckPipelineMessage } from '../../lib/queue/messages.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { DEV, deployed, PIPELINE, pipelineDocument, PROD, PROD_EU, T0 } from '../verifier/world.js';

// A re-decision from the stored records (as a retry that came due sends): it always decides.
const DECIDE: CheckPipelineMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };
const MINUTE = 60_000;

/** dev → prod over the in-memory store, with the metrics listener the verifier Lambda gives it. */
async function world(options: { manual?: boolean } = {}) {
  const store = new MemoryStore();
  const clusters = new ScriptedClusters();
  const promoter = new RecordingPromoter();
  const metrics = new MemoryMetrics();
  const quiet = () => undefined;
  let now = T0;
  const verifier = createVerifier({
    store,
    queue: new RecordingQueue(),
    clusters,
    promoter,
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    now: () => now,
    workerId: 'metrics-test',
    listeners: [effectMetrics({ metrics, audit: store })],
  });
  const document = pipelineDocument(options);
  await store.applyPipeline(document, resolvePipeline(document), T0);
  return {
    promoter,
    metrics,
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
    /** The app runs `version`, as a read at the current time recorded it. */
    async deploy(app: AppKey, version: string) {
      const object = deployed(version, app.namespace);
      clusters.put(app, object);
      await store.recordTargetStatus(app, readTargetStatus(object), now);
    },
    decide: () => verifier(DECIDE, { messageId: 'm', receiveCount: 1 }),
    /** Each count the listener recorded, by name; LeadTime's values listed. */
    counts(): Partial<Record<MetricName, number>> {
      const found: Partial<Record<MetricName, number>> = {};
      for (const { name, value } of metrics.points()) if (name !== 'LeadTime') found[name] = (found[name] ?? 0) + value;
      return found;
    },
  };
}

describe('verifier effect metrics', () => {
  it('a promotion that succeeds, then the revision arriving in prod: counted once, with its lead time', async () => {
    const w = await world();
    await w.deploy(DEV, '6.9.2');
    await w.deploy(PROD, '6.9.1');
    await w.deploy(PROD_EU, '6.9.1');

    await w.decide();
    assert.deepEqual(w.counts(), { PromotionsStarted: 1, PromotionsSucceeded: 1 });
    assert.deepEqual(w.metrics.values('LeadTime'), [], 'prod passed on 6.9.1, whose start in dev was never seen');

    w.advance(30 * MINUTE);
    await w.deploy(PROD, '6.9.2');
    await w.deploy(PROD_EU, '6.9.2');
    await w.decide();
    await w.decide();

    assert.deepEqual(w.metrics.values('LeadTime'), [30 * MINUTE], 'dev passed at T0, prod 30 minutes later');
    assert.deepEqual(w.counts(), { PromotionsStarted: 1, PromotionsSucceeded: 1 }, 'redundant messages count nothing');
  });

  it('a failed attempt that is retried, then a failure for good: each counted as what it was', async () => {
    const w = await world();
    await w.deploy(DEV, '6.9.2');
    await w.deploy(PROD, '6.9.1');
    await w.deploy(PROD_EU, '6.9.1');
    w.promoter.failNext(
      new PromotionError('HostUnavailable', 'GitHub answered 502'),
      new PromotionError('Unauthorized', 'GitHub answered 401'),
    );

    await w.decide();
    assert.deepEqual(w.counts(), { PromotionsStarted: 1, PromotionsFailedRetrying: 1 });

    w.advance(5 * MINUTE);
    await w.decide();
    await w.decide();
    assert.deepEqual(w.counts(), { PromotionsStarted: 2, PromotionsFailedRetrying: 1, PromotionsFailedForGood: 1 });
    assert.equal(w.metrics.total('PromotionsFailedRetrying', { Reason: 'HostUnavailable' }), 1, 'the 502, by its kind');
    assert.equal(w.metrics.total('PromotionsFailedForGood', { Reason: 'Unauthorized' }), 1, 'the 401, by its kind');
  });

  it('a manual environment: the approval requested is counted once, however often the verifier decides', async () => {
    const w = await world({ manual: true });
    await w.deploy(DEV, '6.9.2');
    await w.deploy(PROD, '6.9.1');
    await w.deploy(PROD_EU, '6.9.1');

    await w.decide();
    await w.decide();

    assert.deepEqual(w.counts(), { ApprovalsRequested: 1 });
  });
});
