// A PipelineSet's `apps` generator follows the app objects of a leaf cluster through the poll (docs/pipeline-sets.md,
// "The apps generator"): the real poller, the real verifier's `poll-clusters` handler and the Kubernetes reader over the fake
// API server (the real @kubernetes/client-node), the store in memory. An app labelled to match adds its pipeline at
// the next poll; one whose label is removed keeps it for one poll more and loses it at the second; an object missing
// from one LIST only deletes nothing; the poll lists the pair once, as for hand-written pipelines; a re-apply of the
// set keeps what the poll generated.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { applyConfiguration, type ApplyPorts } from '../../lib/apply/index.js';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { StaticSecretSource, secretKeyNames } from '../../lib/secrets/port.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { helmRelease } from '../fixtures/flux-objects.js';
import { silentLogger } from '../../lib/logging/logger.js';

const NS = 'flux-system';

const SET = `apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: { name: standard-apps, namespace: ${NS} }
spec:
  generators:
    - apps:
        clusterRef: { kind: GitopsCluster, name: dev-1 }
        kind: HelmRelease
        namespace: apps
        matchLabels: { promotion: standard }
  template:
    metadata: { name: '{{ app }}' }
    spec:
      appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}' }
      environments:
        - name: dev
          targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev-1 } }]
        - name: prod
          targets: [{ namespace: '{{ team }}', clusterRef: { kind: GitopsCluster, name: dev-1 } }]
      promotion:
        strategy: { notification: {} }
`;

/** A HelmRelease `name` in `apps` with these labels. */
const release = (name: string, labels: Record<string, string>) => {
  const object = helmRelease({ metadata: { name, namespace: 'apps', labels } });
  return object;
};

async function world(t: TestContext) {
  const fake = await FakeKubeApi.start();
  t.after(() => fake.stop());
  const store = new MemoryStore();
  const secrets = new StaticSecretSource([
    { key: { namespace: NS, name: 'dev-1-kubeconfig' }, values: { value: fake.kubeconfig() } },
  ]);
  const queue = new RecordingQueue();
  const ports: ApplyPorts = {
    description: 'the test store',
    store,
    putSecret: () => Promise.resolve(),
    secretKeys: (key) => secretKeyNames(secrets, key),
    enqueue: async (message) => {
      await queue.send(message);
      return true;
    },
    identity: () => Promise.resolve('local:test'),
  };
  const apply = async (text: string) => {
    const result = await applyConfiguration(ports, { source: { text, file: 'config.yaml' } });
    assert.ok(result.ok, result.ok ? '' : result.problems.join('\n'));
    return result;
  };
  await apply(`apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: dev-1, namespace: ${NS} }
spec: { secretRef: { name: dev-1-kubeconfig } }
`);
  const clusters = new KubernetesClusterReader({
    getCluster: async (key) => (await store.getCluster(key))?.document,
    secrets,
  });
  const verifier = createVerifier({
    store,
    queue,
    clusters,
    promoter: new RecordingPromoter(),
    logger: silentLogger,
    now: () => new Date(),
    workerId: 'test-verifier',
    settings: { pollDecisionDelaySeconds: 0 },
  });
  let id = 0;
  /** One scheduled poll: the poller, then each `poll-clusters` message it sent handed to the verifier. */
  const poll = async () => {
    queue.take();
    await enqueuePolls({ store, queue });
    for (const { message } of queue.take()) {
      if (message.type === 'poll-clusters') await verifier(message, { messageId: String(++id), receiveCount: 1 });
    }
  };
  const pipelines = async () =>
    (await store.listPipelines()).items.map(({ document }) => document.metadata.name).sort();
  return { fake, store, apply, poll, pipelines };
}

describe('the apps generator follows the app objects of its cluster through the poll', () => {
  it('adds a pipeline for an app labelled to match at the next poll, and removes one after two polls without it', async (t) => {
    const { fake, apply, poll, pipelines, store } = await world(t);
    fake.put(release('web', { promotion: 'standard', team: 'web-team' }));
    fake.put(release('batch', { team: 'data' }));
    await apply(SET);
    assert.deepEqual(await pipelines(), [], 'nothing is generated before a poll has found the apps');

    await poll();
    assert.deepEqual(await pipelines(), ['web']);
    const web = await store.getPipeline({ namespace: NS, name: 'web' });
    assert.deepEqual(
      web?.pipeline.environments.map((env) => env.targets.map((target) => target.namespace)),
      [['apps'], ['web-team']],
      'the labels are keys of the element',
    );

    fake.update('HelmRelease', 'apps', 'batch', (object) => {
      (object.metadata.labels as Record<string, string>).promotion = 'standard';
    });
    await poll();
    assert.deepEqual(await pipelines(), ['batch', 'web']);

    fake.update('HelmRelease', 'apps', 'web', (object) => {
      delete (object.metadata.labels as Record<string, string>).promotion;
    });
    await poll();
    assert.deepEqual(await pipelines(), ['batch', 'web'], 'one poll without it keeps the pipeline');
    await poll();
    assert.deepEqual(await pipelines(), ['batch'], 'the second removes it');
  });

  it('deletes nothing for an object missing from one LIST only, and nothing when the LIST fails', async (t) => {
    const { fake, apply, poll, pipelines } = await world(t);
    const web = release('web', { promotion: 'standard', team: 'web-team' });
    fake.put(web);
    await apply(SET);
    await poll();
    assert.deepEqual(await pipelines(), ['web']);

    fake.delete('HelmRelease', 'apps', 'web');
    await poll();
    assert.deepEqual(await pipelines(), ['web'], 'missing from one LIST: kept');
    fake.put(release('web', { promotion: 'standard', team: 'web-team' }));
    await poll();
    await poll();
    assert.deepEqual(await pipelines(), ['web'], 'back before the second poll: kept');

    fake.failNext(500, { times: Number.MAX_SAFE_INTEGER });
    await poll().catch(() => undefined);
    await poll().catch(() => undefined);
    await poll().catch(() => undefined);
    assert.deepEqual(await pipelines(), ['web'], 'a cluster that cannot be listed removes nothing');
  });

  it('lists the pair once per poll, as hand-written pipelines on it do, and a re-apply keeps what the poll generated', async (t) => {
    const { fake, apply, poll, pipelines } = await world(t);
    fake.put(release('web', { promotion: 'standard', team: 'web-team' }));
    fake.put(release('api', { promotion: 'standard', team: 'api-team' }));
    await apply(SET);
    await poll();
    assert.deepEqual(await pipelines(), ['api', 'web']);

    fake.resetRequests();
    await poll();
    assert.equal(fake.count('list'), 1, 'one LIST of HelmReleases on dev-1 for the pipelines and the set alike');

    const again = await apply(SET);
    assert.deepEqual([...again.lines].sort(), [
      'pipeline flux-system/api unchanged',
      'pipeline flux-system/web unchanged',
      'pipelineset flux-system/standard-apps unchanged',
    ]);
    assert.deepEqual(await pipelines(), ['api', 'web']);
  });
});
