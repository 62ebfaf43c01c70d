// The poll digest (docs/architecture.md, "The poll digest"): a scheduled poll whose LIST of a (cluster, kind) holds
// what the last full poll of that pair recorded reads and writes nothing more; anything else — a changed object, an
// apply, a failed read recorded by an event's check, a digest an hour old — is polled in full. Driven through the
// real poller and verifier, the Kubernetes reader (the real @kubernetes/client-node) against two fake API servers,
// and the store in memory, whose reads and writes are counted.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { createVerifier, RecentReads } from '../../lib/verifier/index.js';
import { DEV, deployed, pipelineDocument, PROD, PROD_EU } from './world.js';
import { silentLogger } from '../../lib/logging/logger.js';

const NS = 'flux-system';

async function world(t: TestContext) {
  const dev = await FakeKubeApi.start();
  const prod = await FakeKubeApi.start();
  t.after(async () => {
    await dev.stop();
    await prod.stop();
  });
  const store = new MemoryStore();
  /** The store methods called since the last `resetCounts`, by name. */
  const called = new Set<string>();
  for (const name of Object.getOwnPropertyNames(MemoryStore.prototype)) {
    const method = (store as unknown as Record<string, unknown>)[name];
    if (name === 'constructor' || name === 'resetCounts' || typeof method !== 'function') continue;
    (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      called.add(name);
      return (method as (...args: unknown[]) => unknown).apply(store, args);
    };
  }
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
  // As the verifier's assembly: the reader's registrations are those the poll messages carry.
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
    workerId: 'poll-digest-test',
    settings: { pollDecisionDelaySeconds: 0 },
  });
  let id = 0;
  const handle = (message: QueueMessage) => verifier(message, { messageId: String(++id), receiveCount: 1 });
  /**
   * One scheduled poll: the poller, then each `poll-clusters` it sent handed to the verifier; the other messages it
   * sent (a check of each pipeline, a pair polled again on its own) are returned.
   */
  const poll = async (): Promise<QueueMessage[]> => {
    queue.take();
    await enqueuePolls({ store, queue, now: () => now });
    const sent = queue.take().map(({ message }) => message);
    for (const message of sent) if (message.type === 'poll-clusters') await handle(message);
    return [...sent.filter((message) => message.type !== 'poll-clusters'), ...queue.take().map((m) => m.message)];
  };
  const lists = () => dev.count('list') + prod.count('list');
  const resetCounts = () => {
    store.resetCounts();
    called.clear();
    dev.resetRequests();
    prod.resetRequests();
  };
  const revisionOf = async (app: typeof DEV) => (await store.getTargetStatus(app))?.status.revision;
  return {
    dev,
    prod,
    store,
    called,
    poll,
    handle,
    lists,
    resetCounts,
    revisionOf,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

describe('the poll digest', () => {
  it('a poll that finds every LIST as the last one recorded it reads and writes nothing more', async (t) => {
    const w = await world(t);
    await w.poll();
    assert.equal(await w.revisionOf(PROD_EU), '6.9.1', 'the first poll records every target');

    w.resetCounts();
    await w.poll();
    assert.equal(w.lists(), 2, 'each (cluster, kind) is still listed once');
    assert.equal(w.store.counts.writes, 0, 'nothing is written');
    // The poller: the generation and its plan, the clusters (for their registrations), ConfigSources and
    // PipelineSets. The verifier: the generation and the clusters' digests. No usage, summary, definition or status.
    assert.deepEqual([...w.called].sort(), [
      'getConfigurationGeneration',
      'getPollDigests',
      'getPollPlan',
      'listClusters',
      'listConfigSources',
      'listPipelineSets',
    ]);
  });

  it('an object that changed is recorded at the next poll', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.put(deployed('6.9.2', 'apps-eu'));
    await w.poll();
    assert.equal(await w.revisionOf(PROD_EU), '6.9.2');
    assert.equal(await w.revisionOf(PROD), '6.9.1');

    w.resetCounts();
    await w.poll();
    assert.equal(w.store.counts.writes, 0, 'and the poll after it has nothing to write');
  });

  it('after an apply, the next poll is a full one: a new target on an unchanged object is recorded', async (t) => {
    const w = await world(t);
    w.dev.put(deployed('6.9.1', 'apps-eu'));
    await w.poll();
    const document = pipelineDocument();
    const [devEnv, ...rest] = document.spec.environments;
    assert.ok(devEnv);
    const devEuTarget = { namespace: 'apps-eu', clusterRef: { kind: 'GitopsCluster' as const, name: 'dev' } };
    document.spec.environments = [{ ...devEnv, targets: [...(devEnv.targets ?? []), devEuTarget] }, ...rest];
    await w.store.applyPipeline(document, resolvePipeline(document), new Date('2026-11-01T10:01:00.000Z'));
    const devEu = { ...DEV, namespace: 'apps-eu' };
    assert.equal(await w.revisionOf(devEu), undefined);
    await w.poll();
    assert.equal(await w.revisionOf(devEu), '6.9.1');
  });

  it('a failed read recorded by an event’s check is not hidden by an unchanged LIST', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.offline();
    await w.handle({ type: 'check-app', app: PROD, cause: 'event', attempt: 0 }).catch(() => undefined);
    assert.equal((await w.store.getTargetStatus(PROD))?.status.phase, 'Unreadable');
    w.prod.online();
    await w.poll();
    const recorded = await w.store.getTargetStatus(PROD);
    assert.deepEqual([recorded?.status.phase, recorded?.status.revision], ['Ready', '6.9.1']);
  });

  it('a digest an hour old is not trusted: the pair is polled in full again', async (t) => {
    const w = await world(t);
    await w.poll();
    w.advance(30 * 60_000);
    w.resetCounts();
    await w.poll();
    const quiet = w.store.counts.reads;
    w.advance(31 * 60_000);
    w.resetCounts();
    await w.poll();
    assert.ok(w.store.counts.reads > quiet, `${w.store.counts.reads} reads an hour on, ${quiet} before`);
    assert.ok(w.store.counts.writes > 0, 'the digests are written again');
  });

  it('an unreachable cluster is polled again on its own; the rest of its message is polled', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.offline();
    w.dev.put(deployed('6.9.2'));
    const sent = await w.poll();
    assert.equal(await w.revisionOf(DEV), '6.9.2', 'dev, in the same message, is recorded');
    assert.equal((await w.store.getTargetStatus(PROD))?.status.reason, 'Unreachable');
    const retried = sent.filter((message) => message.type === 'poll');
    assert.deepEqual(
      retried.map((message) => [message.cluster.name, message.kind]),
      [['prod', 'HelmRelease']],
    );
    w.prod.online();
    await w.poll();
    assert.equal((await w.store.getTargetStatus(PROD))?.status.phase, 'Ready', 'and recovers at the next poll');
  });
});
