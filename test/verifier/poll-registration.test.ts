// The poller lists the cluster registrations once per poll and hands each to its `poll-clusters` messages, so that
// the verifier's reads of a cluster do not start with a store read per message (lib/poller/poller.ts, the
// `poll-clusters` handler): what a user of a 200-cluster fleet pays per poll.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { pollDecisionDelaySeconds } from '../../lib/local/mode.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import type { PollClustersMessage } from '../../lib/queue/messages.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier, RecentReads } from '../../lib/verifier/index.js';
import { DEV_CLUSTER, pipelineDocument, PROD_CLUSTER, T0 } from './world.js';
import { silentLogger } from '../../lib/logging/logger.js';

function registration(key: ObjectKey, annotations: Record<string, string> = {}): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { ...key, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: { secretRef: { name: `${key.name}-kubeconfig` } },
  };
}

async function fleet(options: { largeProd?: boolean } = {}) {
  const store = new MemoryStore();
  await store.applyCluster(registration(DEV_CLUSTER), T0);
  await store.applyCluster(registration(PROD_CLUSTER, options.largeProd ? { notes: 'x'.repeat(20_000) } : {}), T0);
  const document = pipelineDocument();
  await store.applyPipeline(document, resolvePipeline(document), T0);
  const queue = new RecordingQueue();
  await enqueuePolls({ store, queue });
  const polls = queue.take().flatMap(({ message }) => (message.type === 'poll-clusters' ? message.clusters : []));
  return { store, polls };
}

type PolledCluster = PollClustersMessage['clusters'][number];

const pollOf = (polls: readonly PolledCluster[], cluster: ObjectKey): PolledCluster => {
  const found = polls.find((poll) => poll.cluster.name === cluster.name);
  assert.ok(found, `a poll of ${cluster.name}`);
  return found;
};

describe('a poll message carries its cluster registration', () => {
  it('the poller puts each cluster registration, as stored, in the poll messages of that cluster', async () => {
    const { polls } = await fleet();
    assert.deepEqual(pollOf(polls, DEV_CLUSTER).registration, registration(DEV_CLUSTER));
    assert.deepEqual(pollOf(polls, PROD_CLUSTER).registration, registration(PROD_CLUSTER));
  });

  it("the check of every pipeline is the poll's, or the local mode's resume after a start", async () => {
    const { store } = await fleet();
    const queue = new RecordingQueue();
    await enqueuePolls({ store, queue });
    await enqueuePolls({ store, queue, pipelineCheck: 'resume' });
    const causes = queue.take().flatMap(({ message }) => (message.type === 'check-pipeline' ? [message.cause] : []));
    assert.deepEqual(causes, ['poll', 'resume']);
  });

  it('the local mode decides within the poll message when its poll interval is short', () => {
    assert.equal(pollDecisionDelaySeconds(60_000), 5, 'a minute: the 5 s of the Lambda');
    assert.equal(pollDecisionDelaySeconds(10_000), 2, 'a quarter of the interval at most');
    assert.equal(pollDecisionDelaySeconds(2_000), 0, 'a 2 s interval (a test, a demo): within the message');
  });

  it('a registration over 16 KiB stays out of the message: the verifier reads it then', async () => {
    const { polls } = await fleet({ largeProd: true });
    assert.equal(pollOf(polls, PROD_CLUSTER).registration, undefined);
    assert.ok(pollOf(polls, DEV_CLUSTER).registration);
  });

  const verifierWith = (store: MemoryStore) => {
    const reads = { count: 0 };
    const registrations = new RecentReads(
      async (key) => {
        reads.count += 1;
        return (await store.getCluster(key))?.document;
      },
      30_000,
      () => T0,
    );
    const handle = createVerifier({
      store,
      queue: new RecordingQueue(),
      clusters: new ScriptedClusters(),
      promoter: new RecordingPromoter(),
      logger: silentLogger,
      now: () => T0,
      workerId: 'test',
      clusterRegistrations: registrations,
    });
    return {
      reads,
      registrations,
      handle: (polled: PolledCluster) =>
        handle({ type: 'poll-clusters', clusters: [polled] }, { messageId: 'm', receiveCount: 1 }),
    };
  };

  it('the verifier hands it to the cluster reader, which then reads no registration from the store', async () => {
    const { store, polls } = await fleet();
    const { reads, registrations, handle } = verifierWith(store);
    await handle(pollOf(polls, PROD_CLUSTER));
    assert.deepEqual(await registrations.get(PROD_CLUSTER), registration(PROD_CLUSTER));
    assert.equal(reads.count, 0, 'the reader got the registration from the message');
  });

  it('one that names another cluster, or does not pass the GitopsCluster schema, is not taken', async () => {
    const { store, polls } = await fleet();
    const { reads, registrations, handle } = verifierWith(store);
    await handle({ ...pollOf(polls, PROD_CLUSTER), registration: registration(DEV_CLUSTER) });
    await handle({ ...pollOf(polls, DEV_CLUSTER), registration: { kind: 'GitopsCluster', spec: 'dev' } });
    assert.deepEqual(await registrations.get(PROD_CLUSTER), registration(PROD_CLUSTER));
    assert.deepEqual(await registrations.get(DEV_CLUSTER), registration(DEV_CLUSTER));
    assert.equal(reads.count, 2, 'both read from the store instead');
  });
});
