// What the verifier tells the promoter of a group's other members (docs/release-trains.md), read from the store as it
// is: each member's newest promotion into the environment that did not fail, when it is being made or sits in a
// pull request still open; and the members it decides again once a train that waits for all has left.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { groupPromotionOf, wakeTheTrain } from '../../lib/verifier/group-members.js';

const T0 = new Date('2026-11-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const CLAIM = { owner: 'worker', leaseMs: 60_000 };
const PULL = 'https://github.com/acme/fleet/pull/7';

function member(name: string, pullRequest: Record<string, unknown> = {}): PipelineDocument {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { namespace: 'apps', name },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
        { name: 'prod', targets: [{ namespace: 'prod', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }] },
      ],
      promotion: {
        strategy: {
          'pull-request': {
            type: 'github',
            url: 'https://github.com/acme/fleet',
            baseBranch: 'main',
            secretRef: { name: 'gh' },
            group: 'shop',
            ...pullRequest,
          },
        },
      },
    },
  };
}

async function storeWith(documents: PipelineDocument[]): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (const document of documents) await store.applyPipeline(document, resolvePipeline(document), T0);
  return store;
}

/** A promotion of `revision` into prod made at `seconds`: its pull request `result`, or a failure. */
async function promoted(store: MemoryStore, name: string, revision: string, seconds: number, result?: string) {
  const key = { namespace: 'apps', name };
  const { record } = await store.createPromotion(key, 'prod', revision, at(seconds), CLAIM);
  if (result === undefined) return record;
  await store.completePromotion(record, result, at(seconds + 1));
  return (await store.getPromotion(key, 'prod', revision)) ?? assert.fail('no record');
}

describe("a group's members as the verifier reads them", () => {
  it('holds what is being made or sits in an open pull request, the newest that did not fail', async () => {
    const store = await storeWith([
      member('cart'),
      member('web'),
      member('checkout'),
      member('api'),
      member('search', { baseBranch: 'release' }),
      member('admin', { group: 'backoffice' }),
    ]);
    await promoted(store, 'cart', '1.1.0', 1, PULL);
    await promoted(store, 'web', '2.0.0', 2, PULL);
    const failed = await promoted(store, 'web', '2.1.0', 3);
    await store.failPromotion(failed, 'NoMarkers', undefined, at(4));
    const merged = await promoted(store, 'checkout', '3.0.0', 5, PULL);
    await store.recordPullRequestState(merged, 'merged', at(6));
    await promoted(store, 'api', '4.0.0', 7);
    await promoted(store, 'search', '5.0.0', 8);
    await promoted(store, 'admin', '6.0.0', 9);

    const stored = await store.getPipeline({ namespace: 'apps', name: 'cart' });
    const prod = stored?.pipeline.environments[1] ?? assert.fail('no prod');
    const members = await groupPromotionOf(prod, store, () => T0)?.members();
    assert.deepEqual(
      [...(members ?? [])].sort((a, b) => a.pipeline.name.localeCompare(b.pipeline.name)),
      [
        { pipeline: { namespace: 'apps', name: 'api' }, revision: '4.0.0' },
        { pipeline: { namespace: 'apps', name: 'cart' }, revision: '1.1.0', pullRequest: PULL },
        { pipeline: { namespace: 'apps', name: 'web' }, revision: '2.0.0', pullRequest: PULL },
      ],
    );
  });

  it('of a train that waits for all, also holds each member due whose own promotion has not started', async () => {
    const store = await storeWith(['cart', 'web', 'checkout'].map((name) => member(name, { waitForAll: true })));
    const ready = (revision: string) => ({
      revision,
      phase: 'Ready' as const,
      reason: 'Deployed' as const,
      message: 'ok',
    });
    const app = (env: 'dev' | 'prod', name: string) => ({
      cluster: { namespace: 'apps', name: env },
      kind: 'HelmRelease' as const,
      namespace: env,
      name,
    });
    // web 2.1.0 is due in prod; checkout runs its candidate there already.
    await store.recordTargetStatus(app('dev', 'web'), ready('2.1.0'), T0);
    await store.recordTargetStatus(app('prod', 'web'), ready('2.0.0'), T0);
    await store.recordTargetStatus(app('dev', 'checkout'), ready('3.0.0'), T0);
    await store.recordTargetStatus(app('prod', 'checkout'), ready('3.0.0'), T0);
    await promoted(store, 'cart', '1.1.0', 1);

    const prod = (await store.getPipeline({ namespace: 'apps', name: 'cart' }))?.pipeline.environments[1];
    const members = await groupPromotionOf(prod ?? assert.fail('no prod'), store, () => at(2))?.members();
    assert.deepEqual(members, [
      { pipeline: { namespace: 'apps', name: 'cart' }, revision: '1.1.0' },
      { pipeline: { namespace: 'apps', name: 'web' }, revision: '2.1.0' },
    ]);
  });

  it('is none for an environment whose promotion is in no group', async () => {
    const document = member('cart');
    const alone = { ...document, spec: { ...document.spec, promotion: { strategy: { notification: {} } } } };
    const store = await storeWith([alone]);
    const prod = (await store.getPipeline({ namespace: 'apps', name: 'cart' }))?.pipeline.environments[1];
    assert.equal(
      groupPromotionOf(prod ?? assert.fail('no prod'), store, () => T0),
      undefined,
    );
  });

  it('decides the other members of a train that waits for all again once it has left, and none of a plain group', async () => {
    const store = await storeWith([
      member('cart', { waitForAll: true }),
      member('web', { waitForAll: true }),
      member('checkout', { waitForAll: true }),
    ]);
    const queue = new RecordingQueue();
    const cart = (await store.getPipeline({ namespace: 'apps', name: 'cart' }))?.pipeline ?? assert.fail('no cart');
    await wakeTheTrain(cart, cart.environments[1] ?? assert.fail('no prod'), { store, queue });
    assert.deepEqual(
      queue.sent.map((sent) => sent.message).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      ['checkout', 'web'].map((name) => ({
        type: 'check-pipeline',
        pipeline: { namespace: 'apps', name },
        cause: 'retry',
        readTargets: false,
      })),
    );

    const plain = await storeWith([member('cart'), member('web')]);
    const plainCart = (await plain.getPipeline({ namespace: 'apps', name: 'cart' }))?.pipeline ?? assert.fail('no');
    const none = new RecordingQueue();
    await wakeTheTrain(plainCart, plainCart.environments[1] ?? assert.fail('no prod'), { store: plain, queue: none });
    assert.deepEqual(none.sent, []);
  });
});
