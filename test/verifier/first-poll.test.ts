// A pristine pair's first poll (docs/architecture.md, "The poll summary"): its new statuses are written in batches,
// without a condition, so a status an event records between the poll's read and its batch write is written over with
// the poll's older observation; the poll or the event's writer notices, whichever comes last, and the newer status is
// recorded again. Driven through the real poller and verifier, the Kubernetes reader against fake API servers, and
// the DynamoDB store on dynalite, whose requests are held at the moment each order needs.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { createDynamoStore } from '../../lib/store/index.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { createVerifier, RecentReads } from '../../lib/verifier/index.js';
import { startDynalite } from '../support/dynalite.js';
import { DEV, deployed, pipelineDocument } from './world.js';

const NS = 'flux-system';

async function world(t: TestContext) {
  const dynamo = await startDynalite();
  const dev = await FakeKubeApi.start();
  const prod = await FakeKubeApi.start();
  t.after(async () => {
    await dev.stop();
    await prod.stop();
    await dynamo.stop();
  });
  const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
  const secrets = new StaticSecretSource([
    { key: { namespace: NS, name: 'dev-kubeconfig' }, values: { value: dev.kubeconfig() } },
    { key: { namespace: NS, name: 'prod-kubeconfig' }, values: { value: prod.kubeconfig() } },
  ]);
  let now = new Date('2026-11-01T10:00:00.000Z');
  for (const name of ['dev', 'prod']) {
    await store.applyCluster(
      {
        apiVersion: 'gitops.weave.works/v1alpha1',
        kind: 'GitopsCluster',
        metadata: { namespace: NS, name },
        spec: { secretRef: { name: `${name}-kubeconfig` } },
      },
      now,
    );
  }
  const document = pipelineDocument();
  await store.applyPipeline(document, resolvePipeline(document), now);
  dev.put(deployed('6.9.1'));
  prod.put(deployed('6.9.1'));
  prod.put(deployed('6.9.1', 'apps-eu'));
  const queue = new RecordingQueue();
  const registrations = new RecentReads(
    async (key) => (await store.getCluster(key))?.document,
    30_000,
    () => now,
  );
  const verifier = createVerifier({
    store,
    queue,
    clusters: new KubernetesClusterReader({ getCluster: (key) => registrations.get(key), secrets, timeoutMs: 2_000 }),
    clusterRegistrations: registrations,
    promoter: new RecordingPromoter(),
    logger: silentLogger,
    now: () => now,
    workerId: 'first-poll-test',
    settings: { pollDecisionDelaySeconds: 0 },
  });
  let id = 0;
  const handle = (message: QueueMessage) => verifier(message, { messageId: String(++id), receiveCount: 1 });
  /** One scheduled poll; the messages it sent besides its `poll-clusters` (a pair polled again on its own, …). */
  const poll = async (): Promise<QueueMessage[]> => {
    queue.take();
    await enqueuePolls({ store, queue, now: () => now });
    const sent = queue.take().map(({ message }) => message);
    for (const message of sent) if (message.type === 'poll-clusters') await handle(message);
    return [...sent.filter((message) => message.type !== 'poll-clusters'), ...queue.take().map((m) => m.message)];
  };
  /**
   * Runs `before` once, when the store is about to send its first BatchWriteItem (the batch read is done by then),
   * and sends it when `before` is done.
   */
  const beforeFirstBatchWrite = (before: () => Promise<void>): void => {
    let done = false;
    dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (!done && context.commandName === 'BatchWriteItemCommand') {
          done = true;
          await before();
        }
        return next(args);
      },
      { step: 'initialize', name: 'holdFirstBatchWrite' },
    );
  };
  /** What an event of the dev cluster's app makes the verifier do: read it and record what it found. */
  const devEvent = () => handle({ type: 'check-app', app: DEV, cause: 'event', attempt: 0 });
  return {
    dynamo,
    dev,
    store,
    poll,
    handle,
    devEvent,
    beforeFirstBatchWrite,
    revisionOf: async (app: typeof DEV) => (await store.getTargetStatus(app))?.status.revision,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

describe('a pristine pair’s first poll', () => {
  it('writes its new statuses in batches: no request per status', async (t) => {
    const w = await world(t);
    let statusPuts = 0;
    w.dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        const item = (args.input as { Item?: { sk?: { S?: string } } }).Item;
        if (context.commandName === 'PutItemCommand' && item?.sk?.S === 'STATUS') statusPuts++;
        return next(args);
      },
      { step: 'initialize', name: 'countStatusPuts' },
    );
    w.dynamo.resetCounts();
    const others = await w.poll();
    assert.deepEqual(
      others.filter((message) => message.type === 'poll'),
      [],
      'no pair polled again',
    );
    assert.equal(await w.revisionOf(DEV), '6.9.1');
    assert.equal(w.dynamo.operations.get('BatchWriteItem'), 2, 'one per pair: dev (1 app), prod (2 apps)');
    assert.equal(statusPuts, 0, 'no status written on its own');
  });

  it('a status an event recorded before the poll’s summary was written: the poll fails and the pair is polled again', async (t) => {
    const w = await world(t);
    w.beforeFirstBatchWrite(async () => {
      // The dev cluster moves on after the poll's LIST, and an event's check records it: a newer status.
      w.dev.put(deployed('6.9.2'));
      w.advance(1_000);
      await w.devEvent();
      assert.equal(await w.revisionOf(DEV), '6.9.2');
    });
    const others = await w.poll();
    assert.equal(await w.revisionOf(DEV), '6.9.1', 'the batch wrote the older status over it');
    const again = others.filter((message) => message.type === 'poll');
    assert.equal(again.length, 1, 'the dev pair is polled again');
    w.advance(1_000);
    for (const message of again) await w.handle(message);
    assert.equal(await w.revisionOf(DEV), '6.9.2');
  });

  it('a status an event recorded, forgotten in the summary only after the poll wrote it: the event records it again', async (t) => {
    const w = await world(t);
    let created!: () => void;
    const eventCreated = new Promise<void>((resolve) => (created = resolve));
    let pollDone!: () => void;
    const pollWritten = new Promise<void>((resolve) => (pollDone = resolve));
    const record = w.store.recordTargetStatus.bind(w.store);
    w.store.recordTargetStatus = async (...args) => {
      const result = await record(...args);
      if (result.created) created();
      return result;
    };
    const forget = w.store.forgetPolledStatus.bind(w.store);
    w.store.forgetPolledStatus = async (...args) => {
      await pollWritten;
      return forget(...args);
    };
    let event: Promise<unknown> | undefined;
    w.beforeFirstBatchWrite(async () => {
      w.dev.put(deployed('6.9.2'));
      w.advance(1_000);
      event = w.devEvent();
      await eventCreated;
    });
    const others = await w.poll();
    assert.deepEqual(
      others.filter((message) => message.type === 'poll'),
      [],
      'the poll saw nothing move',
    );
    assert.equal(await w.revisionOf(DEV), '6.9.1', 'the batch wrote the older status over it');
    pollDone();
    await event;
    assert.equal(await w.revisionOf(DEV), '6.9.2');
  });
});
