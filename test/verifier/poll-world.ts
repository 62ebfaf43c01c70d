// Two leaf clusters on fake API servers, dev (one target) and prod (two), registered and used by one pipeline,
// polled through the real poller and verifier and the Kubernetes reader (the real @kubernetes/client-node), over the
// store a test brings: for the tests of what a poll does with the store.
import type { TestContext } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { resolvePipeline, type AppKey } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import type { Store } from '../../lib/store/port.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { createVerifier, RecentReads } from '../../lib/verifier/index.js';
import { gitopsCluster } from '../clusters/helpers.js';
import { deployed, pipelineDocument } from './world.js';

const NS = 'flux-system';

export async function pollWorld(t: TestContext, store: Store, workerId: string) {
  const dev = await FakeKubeApi.start();
  const prod = await FakeKubeApi.start();
  t.after(async () => {
    await dev.stop();
    await prod.stop();
  });
  const secrets = new StaticSecretSource([
    { key: { namespace: NS, name: 'dev-kubeconfig' }, values: { value: dev.kubeconfig() } },
    { key: { namespace: NS, name: 'prod-kubeconfig' }, values: { value: prod.kubeconfig() } },
  ]);
  let now = new Date('2026-11-01T10:00:00.000Z');
  for (const name of ['dev', 'prod']) {
    await store.applyCluster(gitopsCluster({ namespace: NS, name }), now);
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
    workerId,
    settings: { pollDecisionDelaySeconds: 0 },
  });
  let id = 0;
  const handle = (message: QueueMessage) => verifier(message, { messageId: String(++id), receiveCount: 1 });
  return {
    dev,
    prod,
    handle,
    /**
     * One scheduled poll: the poller, then each `poll-clusters` it sent handed to the verifier; the other messages it
     * sent (a check of each pipeline, a pair polled again on its own) are returned.
     */
    async poll(): Promise<QueueMessage[]> {
      queue.take();
      await enqueuePolls({ store, queue, now: () => now });
      const sent = queue.take().map(({ message }) => message);
      for (const message of sent) if (message.type === 'poll-clusters') await handle(message);
      return [...sent.filter((message) => message.type !== 'poll-clusters'), ...queue.take().map((m) => m.message)];
    },
    revisionOf: async (app: AppKey) => (await store.getTargetStatus(app))?.status.revision,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}
