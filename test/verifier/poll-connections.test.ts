// One scheduled poll of a group of clusters running two kinds each opens one TLS connection per cluster: a cluster's
// second LIST goes out after its first is done, over the connection that one kept alive (poll-clusters.ts). Each
// poll's connections are new (the kept ones have been idle for 5 minutes), so this halves the handshakes a poll pays.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { silentLogger } from '../../lib/logging/logger.js';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { PAIR_CONCURRENCY } from '../../lib/verifier/handlers/poll-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { gitopsCluster } from '../clusters/helpers.js';
import { deployedHelmRelease, kustomization } from '../fixtures/flux-objects.js';

const NS = 'flux-system';

it('a poll of clusters running a HelmRelease and a Kustomization each opens one connection per cluster', async (t) => {
  const store = new MemoryStore();
  const now = new Date('2026-11-01T10:00:00.000Z');
  // More clusters than pairs polled at once: how a poll message of a fleet (25 clusters) looks.
  const names = Array.from({ length: PAIR_CONCURRENCY + 4 }, (_, index) => `leaf-${index}`);
  const fakes = await Promise.all(names.map(() => FakeKubeApi.start({ latencyMs: 5 })));
  t.after(() => Promise.all(fakes.map((fake) => fake.stop())));
  const secrets = new StaticSecretSource();
  for (const [index, name] of names.entries()) {
    const fake = fakes[index] as FakeKubeApi;
    await store.applyCluster(gitopsCluster({ namespace: NS, name }), now);
    secrets.set({ namespace: NS, name: `${name}-kubeconfig` }, { value: fake.kubeconfig() });
    fake.put(deployedHelmRelease('6.9.1'));
    fake.put(kustomization());
  }
  const targets = (namespace: string) =>
    names.map((name) => ({ namespace, clusterRef: { kind: 'GitopsCluster' as const, name } }));
  for (const [name, appRef, namespace] of [
    ['podinfo', { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' }, 'apps'],
    ['platform', { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'apps' }, NS],
  ] as const) {
    const document: PipelineDocument = {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { namespace: NS, name },
      spec: {
        appRef,
        environments: [{ name: 'fleet', targets: targets(namespace) }],
        promotion: { strategy: { notification: {} } },
      },
    };
    await store.applyPipeline(document, resolvePipeline(document), now);
  }
  const queue = new RecordingQueue();
  const verifier = createVerifier({
    store,
    queue,
    clusters: new KubernetesClusterReader({
      getCluster: async (key: ObjectKey) => (await store.getCluster(key))?.document,
      secrets,
    }),
    promoter: new RecordingPromoter(),
    logger: silentLogger,
    now: () => now,
    workerId: 'poll-connections',
    settings: { pollDecisionDelaySeconds: 0 },
  });
  await enqueuePolls({ store, queue, now: () => now });
  const polls = queue.take().filter(({ message }) => message.type === 'poll-clusters');
  assert.equal(polls.length, 1, 'the clusters are polled by one message');
  for (const [id, { message }] of polls.entries()) await verifier(message, { messageId: String(id), receiveCount: 1 });

  assert.deepEqual(
    fakes.map((fake) => `${fake.count('list')} LIST, ${fake.tlsConnections} connection`),
    names.map(() => '2 LIST, 1 connection'),
  );
  const podinfo = await store.getTargetStatus({
    cluster: { namespace: NS, name: 'leaf-0' },
    kind: 'HelmRelease',
    namespace: 'apps',
    name: 'podinfo',
  });
  assert.equal(podinfo?.status.phase, 'Ready', 'the poll recorded what it listed');
});
