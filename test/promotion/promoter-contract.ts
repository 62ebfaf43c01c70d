// The behaviour every Promoter must have (lib/promotion/port.ts). Each strategy's test file calls `promoterContract`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { PromotionError, type Promoter, type PromotionRequest } from '../../lib/promotion/index.js';

export interface PromoterUnderTest {
  promoter: Promoter;
  /** How many distinct effects the outside world saw for (env, revision): PRs opened, events sent. */
  effects(env: string, revision: string): Promise<number>;
  /**
   * How many distinct rollbacks of `env` from the failed `from` the outside world saw (rollback PRs opened); absent
   * for a strategy that makes no rollbacks.
   */
  rollbackEffects?(env: string, from: string): Promise<number>;
  /** Makes the next call fail with the given kind of fault, as the outside service would. */
  injectFault?(kind: 'transient' | 'permanent'): void;
  stop?(): Promise<void>;
}

export function promotionRequest(revision: string, attempt = 1): PromotionRequest {
  const pipeline = resolvePipeline(
    {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: 'podinfo', namespace: 'flux-system' },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
        environments: [
          { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
          { name: 'prod', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }] },
        ],
        promotion: { strategy: { notification: {} } },
      },
    },
    undefined,
  );
  const env = pipeline.environments[1];
  assert.ok(env);
  return { pipeline, env, revision, attempt };
}

export function promoterContract(name: string, start: () => Promise<PromoterUnderTest>): void {
  describe(`${name}: Promoter contract`, () => {
    it('makes one effect per (environment, revision), however often it is called', async () => {
      const subject = await start();
      try {
        const first = await subject.promoter.promote(promotionRequest('6.9.2'));
        const again = await subject.promoter.promote(promotionRequest('6.9.2', 2));
        assert.deepEqual(again, first, 'a repeated call gives the same result');
        assert.equal(await subject.effects('prod', '6.9.2'), 1);
        await subject.promoter.promote(promotionRequest('6.9.3'));
        assert.equal(await subject.effects('prod', '6.9.3'), 1, 'a new revision is a new promotion');
      } finally {
        await subject.stop?.();
      }
    });

    it('makes one rollback per (environment, failed revision), apart from the promotions', async (t) => {
      const subject = await start();
      if (!subject.rollbackEffects) {
        await subject.stop?.();
        t.skip('this promoter makes no rollbacks');
        return;
      }
      try {
        await subject.promoter.promote(promotionRequest('6.9.2'));
        const rollback = (attempt: number) => ({ ...promotionRequest('6.9.2', attempt), rollback: { from: '6.9.3' } });
        const first = await subject.promoter.promote(rollback(1));
        const again = await subject.promoter.promote(rollback(2));
        assert.deepEqual(again, first, 'a repeated call gives the same result');
        assert.equal(await subject.rollbackEffects('prod', '6.9.3'), 1);
        assert.equal(await subject.effects('prod', '6.9.2'), 1, 'the promotion to the same revision stands apart');
      } finally {
        await subject.stop?.();
      }
    });

    it('reports a failure as a PromotionError that says whether a retry can help', async (t) => {
      const subject = await start();
      if (!subject.injectFault) {
        t.skip('this promoter cannot be made to fail');
        return;
      }
      try {
        subject.injectFault('transient');
        await assert.rejects(subject.promoter.promote(promotionRequest('7.0.0')), (error: unknown) => {
          assert.ok(error instanceof PromotionError);
          assert.equal(error.retryable, true);
          return true;
        });
        subject.injectFault('permanent');
        await assert.rejects(subject.promoter.promote(promotionRequest('7.0.0')), (error: unknown) => {
          assert.ok(error instanceof PromotionError);
          assert.equal(error.retryable, false);
          return true;
        });
        await subject.promoter.promote(promotionRequest('7.0.0'));
        assert.equal(await subject.effects('prod', '7.0.0'), 1, 'the failed calls made no effect');
      } finally {
        await subject.stop?.();
      }
    });
  });
}
