// What serve does at start with the promotions a killed serve left in the middle (lib/local/interrupted.ts): an
// attempt still held by another worker is ended as failed and due now, so it can be claimed again at once instead of
// after its 5-minute lease; records of this worker, finished records and records that move meanwhile are left alone.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { INTERRUPTED_ERROR, releaseInterruptedPromotions } from '../../lib/local/interrupted.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { createDynamoStore } from '../../lib/store/index.js';
import type { Store } from '../../lib/store/port.js';
import { startDynalite } from '../support/dynalite.js';

const LEASE_MS = 5 * 60_000;
const KILLED = 'local:4242:1767225600000';
const RESTARTED = 'local:4343:1767225660000';
const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:01:00Z'); // the restart: well inside the killed serve's lease

function pipelineDocument(name: string): PipelineDocument {
  const target = (namespace: string) => ({ namespace, clusterRef: { kind: 'GitopsCluster' as const, name: 'fleet' } });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
      environments: [
        { name: 'dev', targets: [target('dev')] },
        { name: 'staging', targets: [target('staging')] },
        { name: 'prod', targets: [target('prod')] },
      ],
      promotion: { strategy: { notification: {} } },
    },
  };
}

function recordingLogger() {
  const warnings: { message: string; attributes?: Record<string, unknown> }[] = [];
  return {
    warnings,
    warn: (message: string, attributes?: Record<string, unknown>) => warnings.push({ message, attributes }),
  };
}

async function claimed(store: Store, pipeline: ObjectKey, env: string, revision: string, owner: string) {
  await store.createPromotion(pipeline, env, revision, T0);
  const record = await store.claimPromotion(pipeline, env, revision, owner, LEASE_MS, T0);
  assert.ok(record, `${env} ${revision} claimed by ${owner}`);
  return record;
}

/** A store on a fresh table, with the pipelines applied. */
async function storeWith(t: TestContext, ...names: string[]): Promise<Store> {
  const dynamo = await startDynalite();
  t.after(() => dynamo.stop());
  const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
  for (const name of names) {
    const document = pipelineDocument(name);
    await store.applyPipeline(document, resolvePipeline(document), T0);
  }
  return store;
}

describe('releaseInterruptedPromotions', () => {
  it('ends the attempts a killed serve held, due now, and leaves every other record alone', async (t) => {
    const store = await storeWith(t, 'podinfo', 'web');
    const podinfo = { namespace: 'flux-system', name: 'podinfo' };
    const web = { namespace: 'flux-system', name: 'web' };
    await claimed(store, podinfo, 'staging', '6.9.2', KILLED); // cut off: the case this is for
    await claimed(store, web, 'prod', '1.4.0', KILLED); // in another pipeline
    const own = await claimed(store, podinfo, 'prod', '6.9.2', RESTARTED);
    const done = await claimed(store, podinfo, 'staging', '6.9.1', KILLED);
    await store.completePromotion(done, 'https://github.com/acme/fleet/pull/1', T0);
    await store.createPromotion(web, 'staging', '1.4.0', T0); // pending, nobody holds it: claimable already
    const logger = recordingLogger();

    const released = await releaseInterruptedPromotions({ store, workerId: RESTARTED, logger, now: () => T1 });

    assert.deepEqual(released.map((record) => `${record.pipeline.name} ${record.env} ${record.revision}`).sort(), [
      'podinfo staging 6.9.2',
      'web prod 1.4.0',
    ]);
    const interrupted = await store.getPromotion(podinfo, 'staging', '6.9.2');
    assert.equal(interrupted?.state, 'failed');
    assert.equal(interrupted.error, INTERRUPTED_ERROR);
    assert.equal(interrupted.retryAt, T1.toISOString());
    assert.equal(interrupted.owner, undefined);
    // The point of it: the restarted serve can take the attempt at once, not when the lease would have run out.
    const resumed = await store.claimPromotion(podinfo, 'staging', '6.9.2', RESTARTED, LEASE_MS, T1);
    assert.equal(resumed?.attempts, 2);
    assert.equal((await store.getPromotion(web, 'prod', '1.4.0'))?.state, 'failed');

    assert.equal((await store.getPromotion(podinfo, 'prod', '6.9.2'))?.version, own.version, 'own record untouched');
    assert.equal((await store.getPromotion(podinfo, 'staging', '6.9.1'))?.state, 'succeeded');
    assert.equal((await store.getPromotion(web, 'staging', '1.4.0'))?.state, 'pending');

    const audit = (await store.listAudit(podinfo)).items.filter((entry) => entry.type === 'promotion-interrupted');
    assert.deepEqual(
      audit.map(({ env, revision, actor }) => ({ env, revision, actor })),
      [{ env: 'staging', revision: '6.9.2', actor: 'pipeline-controller' }],
    );
    assert.deepEqual(
      logger.warnings.map(({ message, attributes }) => [message, attributes?.pipeline, attributes?.owner]),
      [
        ['promotion interrupted by a stop; retrying it now', 'flux-system/podinfo', KILLED],
        ['promotion interrupted by a stop; retrying it now', 'flux-system/web', KILLED],
      ],
    );
  });

  it('also ends an attempt whose lease already ran out: it is still held, only claimable sooner', async (t) => {
    const store = await storeWith(t, 'slow');
    const key = { namespace: 'flux-system', name: 'slow' };
    await claimed(store, key, 'prod', '3.0.0', KILLED);
    const later = new Date(T0.getTime() + 2 * LEASE_MS);

    const released = await releaseInterruptedPromotions({
      store,
      workerId: RESTARTED,
      logger: recordingLogger(),
      now: () => later,
    });

    assert.deepEqual(
      released.map((record) => record.revision),
      ['3.0.0'],
    );
    const record = await store.getPromotion(key, 'prod', '3.0.0');
    assert.deepEqual([record?.state, record?.retryAt], ['failed', later.toISOString()]);
  });

  it('leaves a record that its owner finished meanwhile', async (t) => {
    const store = await storeWith(t, 'late');
    const key = { namespace: 'flux-system', name: 'late' };
    await claimed(store, key, 'staging', '2.0.0', KILLED);
    // The records are read, then the attempt completes before the release writes: the stale version loses.
    const racing: Store = {
      ...store,
      listPromotions: async (pipeline) => {
        const records = await store.listPromotions(pipeline);
        for (const record of records) await store.completePromotion(record, 'https://github.com/acme/fleet/pull/2', T1);
        return records;
      },
    };
    const logger = recordingLogger();

    const released = await releaseInterruptedPromotions({ store: racing, workerId: RESTARTED, logger, now: () => T1 });

    assert.deepEqual(released, []);
    const record = await store.getPromotion(key, 'staging', '2.0.0');
    assert.equal(record?.state, 'succeeded');
    assert.equal(record.result, 'https://github.com/acme/fleet/pull/2');
    assert.deepEqual(logger.warnings, []);
    assert.deepEqual(
      (await store.listAudit(key)).items.filter((entry) => entry.type === 'promotion-interrupted'),
      [],
    );
  });
});
