// An apply cut off part-way (the table stops answering after some of a pipeline's index entries are written) leaves
// nothing the next apply does not clean up, on both backends (they share lib/apply and the DynamoDB
// adapter): afterwards the apps index holds exactly what the stored definitions use, and an event for an app only
// the interrupted apply named enqueues nothing and reads no cluster, before the clean-up as after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { tempFiles } from '../support/temp-files.js';
import {
  applyWorld,
  CLUSTER_YAML,
  namespaces,
  pipelineYaml,
  type ApplyWorld,
  type BackendKind,
} from './apply-world.js';

const PROD: ObjectKey = { namespace: 'flux-system', name: 'prod' };
const MASTER_KEY = 'apply-interrupted-master-key';
const T0 = new Date('2026-11-01T10:00:00.000Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const web = (namespace: string): AppKey => ({ cluster: PROD, kind: 'HelmRelease', namespace, name: 'web' });
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

for (const kind of ['data directory', 'AWS'] satisfies BackendKind[]) {
  describe(`an apply cut off part-way (${kind} backend)`, { concurrency: false }, () => {
    let world: ApplyWorld;
    before(async () => {
      world = await applyWorld(kind);
    });
    after(() => world.stop());

    const apply = (dir: string, now = T0) =>
      applyConfiguration(world.backend, { source: { paths: [dir] }, now: () => now });

    /**
     * One pipeline's part of the apps index: its entries as `env[i] namespace`, the namespaces whose usage names it,
     * and its apply intents, sorted.
     */
    async function index(pipeline: string): Promise<{ entries: string[]; usage: string[]; intents: number }> {
      const items = await world.items();
      const entries = items
        .filter((item) => item.entity === 'index-entry' && item.pipelineName === pipeline)
        .map((item) => {
          const namespace = decodeURIComponent(String(item.pk).split('/')[3] ?? '');
          return `${String(item.env)}[${String(item.targetIndex)}] ${namespace}`;
        })
        .sort();
      const usage = items
        .filter((item) => item.entity === 'usage' && (item.pipelines as Set<string>).has(`flux-system/${pipeline}`))
        .map((item) => String(item.namespace))
        .sort();
      const intents = items.filter((item) => item.entity === 'apply-intent' && item.pipelineName === pipeline);
      return { entries, usage, intents: intents.length };
    }

    /** What a signed event about the app gets from the receiver: its status and the messages it enqueued. */
    async function event(app: AppKey): Promise<{ status: number; enqueued: number }> {
      const queue = new RecordingQueue();
      const body = Buffer.from(
        JSON.stringify({
          involvedObject: {
            kind: 'HelmRelease',
            namespace: app.namespace,
            name: app.name,
            apiVersion: 'helm.toolkit.fluxcd.io/v2',
          },
          severity: 'info',
          timestamp: '2026-11-01T10:00:05Z',
          message: 'Helm upgrade succeeded',
          reason: 'UpgradeSucceeded',
          metadata: { revision: '1.2.3' },
          reportingController: 'helm-controller',
        }),
      );
      const answer = await handleRequest(
        {
          method: 'POST',
          path: '/v1/events/flux-system/prod',
          headers: { 'x-signature': signatureHeader(body, deriveClusterKey(MASTER_KEY, PROD)) },
          body,
        },
        {
          store: world.backend.store,
          queue,
          secrets: new StaticSecretSource(),
          masterKeys: () => Promise.resolve({ current: MASTER_KEY }),
          logger: silent,
        },
      );
      return { status: answer.statusCode, enqueued: queue.take().length };
    }

    /** The cluster reads the verifier makes for a `check-app` of the app. */
    async function verifierReads(app: AppKey): Promise<number> {
      const clusters = new ScriptedClusters();
      const handle = createVerifier({
        store: world.backend.store,
        queue: new RecordingQueue(),
        clusters,
        promoter: new RecordingPromoter(),
        logger: silent,
        now: () => T0,
        workerId: 'test',
      });
      await handle({ type: 'check-app', app, cause: 'event', attempt: 0 }, { messageId: 'm', receiveCount: 1 });
      return clusters.calls.length;
    }

    it('the next apply of the pipeline removes what the cut-off one wrote; a removed app is never read', async (t) => {
      const first = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('web', { dev: ['a'], prod: ['b', 'c'] }),
      });
      assert.equal((await apply(first)).ok, true);

      // 200 targets: 8 batches of index entries; the table stops answering after the third.
      const grown = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('web', { dev: namespaces('dev', 100), prod: namespaces('prod', 100) }),
      });
      world.fault.failAfterBatches(3);
      await assert.rejects(apply(grown), /socket hang up/);
      assert.equal(
        (await index('web')).entries.length,
        3 + 75,
        'the three stored entries and the 75 of the cut-off one',
      );
      assert.ok(world.fault.refused >= 1);

      // Meanwhile (the table answering again): the stale entries are in the index, so the receiver enqueues a
      // check, but the verifier reads no cluster for an app the stored definition does not list.
      world.fault.heal();
      assert.deepEqual(await event(web('dev-5')), { status: 202, enqueued: 1 });
      assert.equal(await verifierReads(web('dev-5')), 0);
      assert.equal(await verifierReads(web('b')), 1, 'a target the definition lists is read');

      const corrected = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('web', { dev: ['a'], prod: ['b', 'd'] }),
      });
      assert.equal((await apply(corrected, minutes(1))).ok, true);
      assert.deepEqual(await index('web'), {
        entries: ['dev[0] a', 'prod[0] b', 'prod[1] d'],
        usage: ['a', 'b', 'd'],
        intents: 0,
      });
      assert.deepEqual(await event(web('dev-5')), { status: 202, enqueued: 0 });
      assert.equal(await verifierReads(web('dev-5')), 0);
      assert.deepEqual(await event(web('c')), { status: 202, enqueued: 0 }, 'c was removed by the corrected apply');
    });

    it('applying again what is stored (nothing changed) removes it too', async (t) => {
      const stored = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('shop', { dev: ['shop-a'], prod: ['shop-b'] }),
      });
      assert.equal((await apply(stored, minutes(2))).ok, true);
      const grown = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('shop', { dev: namespaces('shop-dev', 60), prod: ['shop-b'] }),
      });
      world.fault.failAfterBatches(1);
      await assert.rejects(apply(grown, minutes(2)), /socket hang up/);
      world.fault.heal();
      assert.equal((await index('shop')).entries.length, 2 + 25);

      const again = await apply(stored, minutes(3));
      assert.ok(again.ok);
      assert.deepEqual(again.lines, [
        'gitopscluster flux-system/prod unchanged',
        'pipeline flux-system/shop unchanged',
      ]);
      assert.deepEqual(await index('shop'), {
        entries: ['dev[0] shop-a', 'prod[0] shop-b'],
        usage: ['shop-a', 'shop-b'],
        intents: 0,
      });
      assert.equal(await verifierReads(web('shop-dev-3')), 0);
    });

    it('a pipeline whose first apply was cut off and that is then dropped: any apply removes it after 10 minutes', async (t) => {
      const withNew = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('web', { dev: ['a'], prod: ['b', 'd'] }),
        'api.yaml': pipelineYaml('api', { dev: namespaces('api', 40) }),
      });
      world.fault.failAfterBatches(1);
      await assert.rejects(apply(withNew, minutes(10)), /socket hang up/);
      world.fault.heal();
      assert.equal((await index('api')).entries.length, 25);

      const without = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('web', { dev: ['a'], prod: ['b', 'd'] }),
      });
      // Soon after, the cut-off apply might still be under way elsewhere: it is left alone.
      assert.equal((await apply(without, minutes(12))).ok, true);
      assert.equal((await index('api')).entries.length, 25);
      assert.equal(await verifierReads(web('api-3')), 0, 'no definition lists it: not read');

      assert.equal((await apply(without, minutes(21))).ok, true);
      assert.deepEqual(await index('api'), { entries: [], usage: [], intents: 0 });
      assert.equal(await world.backend.store.getPipeline({ namespace: 'flux-system', name: 'api' }), undefined);
      assert.deepEqual((await world.backend.store.listPipelines()).items.map((p) => p.pipeline.name).sort(), [
        'shop',
        'web',
      ]);
      assert.deepEqual(await event(web('api-3')), { status: 202, enqueued: 0 });

      // The dropped pipeline can be applied again later, as new.
      const back = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'api.yaml': pipelineYaml('api', { dev: ['api-1'] }),
      });
      const applied = await apply(back, minutes(22));
      assert.ok(applied.ok);
      assert.ok(applied.lines.includes('pipeline flux-system/api created'), applied.lines.join('\n'));
      assert.deepEqual(await index('api'), { entries: ['dev[0] api-1'], usage: ['api-1'], intents: 0 });
    });

    it('when only one write fails, the failing apply removes what it wrote itself', async (t) => {
      const cart = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('cart', { dev: ['cart-a'] }),
      });
      assert.equal((await apply(cart, minutes(30))).ok, true);
      const grown = await tempFiles(t, {
        'cluster.yaml': CLUSTER_YAML,
        'pipeline.yaml': pipelineYaml('cart', { dev: ['cart-a', ...namespaces('cart', 40)] }),
      });
      world.fault.failAfterBatches(1, { once: true });
      await assert.rejects(apply(grown, minutes(30)), /socket hang up/);
      assert.equal(world.fault.refused, 1);
      assert.deepEqual(await index('cart'), { entries: ['dev[0] cart-a'], usage: ['cart-a'], intents: 0 });
    });
  });
}
