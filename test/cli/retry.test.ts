// `pipelinectl retry`'s action in this process: on the whole loop (a promotion that failed for good runs again and
// succeeds once; an older revision is not brought back once a newer one is the candidate), and its refusals on a
// store seeded through the store API, each of which writes nothing and sends nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Backend } from '../../lib/cli/backend.js';
import { retryPromotion } from '../../lib/cli/operations/retry.js';
import { CliError } from '../../lib/cli/errors.js';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { unreadableTarget } from '../../lib/flux/target-status.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { PromotionError } from '../../lib/promotion/index.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { createDynamoStore } from '../../lib/store/index.js';
import type { Store } from '../../lib/store/port.js';
import { PIPELINE, deployed, pipelineDocument, settled, startLoop, upgradeEvent } from '../loop/harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';
import { healthy, app } from './fixtures.js';

const ACTOR = 'local:alice';

/** A Backend over `store` that hands messages to `deliver` and acts as `local:alice`; nothing else is used. */
function backendOver(store: Store, deliver: (message: QueueMessage) => Promise<void>): Backend {
  const unused = () => Promise.reject(new Error('not used by retry'));
  return {
    description: 'the test store',
    store,
    putSecret: unused,
    secretKeys: unused,
    enqueue: async (message) => {
      await deliver(message);
      return true;
    },
    masterKeys: unused,
    identity: () => Promise.resolve(ACTOR),
    close: () => Promise.resolve(),
  };
}

describe('pipelinectl retry on the loop', () => {
  it('a promotion that failed for good runs again when retried, and succeeds once', async (t) => {
    const loop = await startLoop(t);
    await loop.deployEverywhere('6.9.1');
    loop.promoter.failNext(new PromotionError('NoMarkers', 'no marker for flux-system:podinfo:prod in the repository'));
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const failed = await waitFor('the failure', async () => {
      const record = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      return record?.state === 'failed' ? record : undefined;
    });
    assert.equal(failed.retryAt, undefined, 'failed for good');
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), [], 'nothing promoted by the failed attempt');

    const backend = backendOver(loop.store, (message) => loop.queue.send(message));
    const result = await retryPromotion(backend, PIPELINE, 'prod', undefined);
    assert.deepEqual(result, { revision: '6.9.2', attempt: 2, by: ACTOR, at: result.at, delivered: true });

    await waitFor(
      'the retried promotion',
      async () => (await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state === 'succeeded',
    );
    await settled(loop.queue);
    assert.deepEqual(loop.promoter.promotions(), [
      { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
    ]);
    const record = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.equal(record?.attempts, 2);
    const audit = (await loop.store.listAudit(PIPELINE)).items.filter((entry) => !isEnvironmentFact(entry)).reverse();
    assert.deepEqual(
      audit.map((entry) => entry.type),
      [
        'promotion-started',
        'promotion-failed',
        'promotion-retry-requested',
        'promotion-started',
        'promotion-succeeded',
      ],
    );
    const requested = audit.find((entry) => entry.type === 'promotion-retry-requested');
    assert.equal(requested?.actor, ACTOR);
    assert.equal(requested?.env, 'prod');
    assert.equal(requested?.revision, '6.9.2');
    assert.equal(requested?.at, result.at, 'the retry is reported at the time it was audited');

    await assert.rejects(
      retryPromotion(backend, PIPELINE, 'prod', undefined),
      refusal('the promotion of 6.9.2 to flux-system/podinfo prod succeeded (attempt 2): nothing to retry'),
    );
  });

  it('an older revision that failed for good is not retried once a newer one is the candidate', async (t) => {
    const loop = await startLoop(t);
    await loop.deployEverywhere('6.9.1');
    loop.promoter.failNext(new PromotionError('Unauthorized', 'GitHub rejected the credentials'));
    loop.dev.put(deployed('6.9.2'));
    await loop.sendEvent('dev', upgradeEvent('6.9.2'));
    await waitFor(
      'the failure of 6.9.2',
      async () => (await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state === 'failed',
    );
    loop.dev.put(deployed('6.9.3'));
    await loop.sendEvent('dev', upgradeEvent('6.9.3'));
    await waitFor(
      'the promotion of 6.9.3',
      async () => (await loop.store.getPromotion(PIPELINE, 'prod', '6.9.3'))?.state === 'succeeded',
    );
    await settled(loop.queue);
    const before = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');

    const sent: QueueMessage[] = [];
    const backend = backendOver(loop.store, (message) => Promise.resolve(void sent.push(message)));
    await assert.rejects(
      retryPromotion(backend, PIPELINE, 'prod', '6.9.2'),
      refusal(
        '6.9.2 is no longer the candidate for flux-system/podinfo prod (6.9.3 is): the verifier would not promote it',
      ),
    );
    await assert.rejects(
      retryPromotion(backend, PIPELINE, 'prod', undefined),
      refusal('the promotion of 6.9.3 to flux-system/podinfo prod succeeded (attempt 1): nothing to retry'),
      'the default is the newest promotion of the environment',
    );
    assert.deepEqual(await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'), before, 'the old record is untouched');
    assert.deepEqual(sent, []);
    assert.deepEqual(
      loop.promoter.promotions().map((promotion) => promotion.revision),
      ['6.9.3'],
    );
  });
});

describe('pipelinectl retry refuses, writing nothing and sending nothing', { concurrency: false }, () => {
  let dynamo: LocalDynamo;
  let store: Store;
  const sent: QueueMessage[] = [];
  let backend: Backend;
  let pipelines = 0;

  before(async () => {
    dynamo = await startDynalite();
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    backend = backendOver(store, (message) => Promise.resolve(void sent.push(message)));
  });
  after(() => dynamo.stop());

  /**
   * A pipeline of its own (the loop's: dev → prod, two prod targets) with dev on `dev` and prod on `prod`, all
   * healthy, and the promotion of `revision` to prod in the state `record` leaves it in. Returns its key.
   */
  async function seeded(
    dev: string,
    prod: string,
    record?: (key: ObjectKey, now: Date) => Promise<void>,
  ): Promise<ObjectKey> {
    pipelines += 1;
    const key = { namespace: 'flux-system', name: `podinfo-${pipelines}` };
    const document: PipelineDocument = { ...pipelineDocument, metadata: { ...pipelineDocument.metadata, ...key } };
    const now = new Date();
    await store.applyPipeline(document, resolvePipeline(document), now);
    await store.recordTargetStatus(app('dev', 'apps'), healthy(dev), now);
    await store.recordTargetStatus(app('prod', 'apps'), healthy(prod), now);
    await store.recordTargetStatus(app('prod', 'apps-eu'), healthy(prod), now);
    await record?.(key, now);
    return key;
  }

  /** Creates and claims the promotion of `revision` to prod: attempt 1, in progress. */
  async function claimed(key: ObjectKey, revision: string, now: Date) {
    await store.createPromotion(key, 'prod', revision, now);
    const record = await store.claimPromotion(key, 'prod', revision, 'verifier', 60_000, now);
    assert.ok(record);
    return record;
  }
  const failedForGood = async (key: ObjectKey, now: Date) => {
    assert.ok(await store.failPromotion(await claimed(key, '6.9.2', now), 'Bad credentials', undefined, now));
  };

  /** Asserts the refusal, and that the store and the queue are as they were. */
  async function refuses(key: ObjectKey, revision: string | undefined, message: string, env = 'prod') {
    const records = await store.listPromotions(key);
    const audit = await store.listAudit(key);
    await assert.rejects(retryPromotion(backend, key, env, revision), refusal(message));
    assert.deepEqual(await store.listPromotions(key), records);
    assert.deepEqual(await store.listAudit(key), audit);
    assert.deepEqual(sent, []);
  }

  it('an unknown pipeline or environment', async () => {
    const key = await seeded('6.9.2', '6.9.1', failedForGood);
    await refuses(
      { namespace: 'flux-system', name: 'nope' },
      undefined,
      'pipeline flux-system/nope not found in the test store',
    );
    await refuses(key, undefined, `pipeline flux-system/${key.name} has no environment "qa" (it has dev, prod)`, 'qa');
  });

  it('no promotion recorded for the environment, or none of that revision', async () => {
    const key = await seeded('6.9.2', '6.9.1');
    await refuses(key, undefined, `no promotion to flux-system/${key.name} prod was recorded: nothing to retry`);
    const failed = await seeded('6.9.2', '6.9.1', failedForGood);
    await refuses(
      failed,
      '6.9.9',
      `no promotion of 6.9.9 to flux-system/${failed.name} prod was recorded: nothing to retry`,
    );
  });

  it('a promotion in progress', async () => {
    const key = await seeded('6.9.2', '6.9.1', async (pipeline, now) => void (await claimed(pipeline, '6.9.2', now)));
    await refuses(
      key,
      undefined,
      `the promotion of 6.9.2 to flux-system/${key.name} prod is in progress (attempt 1): nothing to retry`,
    );
  });

  it('a failure already scheduled for a retry', async () => {
    const retryAt = new Date(Date.now() + 600_000);
    const key = await seeded('6.9.2', '6.9.1', async (pipeline, now) => {
      assert.ok(await store.failPromotion(await claimed(pipeline, '6.9.2', now), 'GitHub 502', retryAt, now));
    });
    await refuses(
      key,
      '6.9.2',
      `the promotion of 6.9.2 to flux-system/${key.name} prod is already scheduled for retry at ${retryAt.toISOString()}`,
    );
  });

  it('a failure the verifier would not act on now: prod already runs it, or dev has no candidate', async () => {
    // Someone merged the change by hand: prod runs 6.9.2, healthy.
    const passed = await seeded('6.9.2', '6.9.2', failedForGood);
    await refuses(
      passed,
      undefined,
      `the verifier would not retry 6.9.2 in flux-system/${passed.name} prod now: prod (passed): all targets run 6.9.2 and are healthy`,
    );
    // dev cannot be read: no candidate, so nothing is promoted anywhere.
    const unreadable = await seeded('6.9.2', '6.9.1', async (key, now) => {
      await failedForGood(key, now);
      await store.recordTargetStatus(app('dev', 'apps'), unreadableTarget('Unreachable', 'connect ECONNREFUSED'), now);
    });
    await refuses(
      unreadable,
      undefined,
      `the verifier would not retry 6.9.2 in flux-system/${unreadable.name} prod now: dev has no candidate (cannot read target flux-system/dev apps: connect ECONNREFUSED)`,
    );
  });

  it('a failure of a revision that is no longer the candidate', async () => {
    // dev went back to 6.9.1, which prod runs: promoting 6.9.2 now would undo that.
    const rolledBack = await seeded('6.9.1', '6.9.1', failedForGood);
    await refuses(
      rolledBack,
      undefined,
      `6.9.2 is no longer the candidate for flux-system/${rolledBack.name} prod (6.9.1 is): the verifier would not promote it`,
    );
  });
});

/** Matches a CliError with exactly `message` (what the CLI prints after `error: `). */
function refusal(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof CliError, String(error));
    assert.equal(error.message, message);
    return true;
  };
}
