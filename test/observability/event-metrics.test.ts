// The receiver's metrics, driven through the receiver itself (handleRequest) as the Lambda wires them: each request
// to the events route is received once and then enqueued, ignored, rejected by its named reason, or failed; other
// routes count nothing.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import { EVENT_REJECTIONS } from '../../lib/http/event-outcome.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import type { HttpRequest } from '../../lib/http/types.js';
import { eventMetrics } from '../../lib/observability/event-metrics.js';
import { MemoryMetrics } from '../../lib/observability/memory-metrics.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { EVENT_A_HELM_UPGRADE, EVENT_C_KUSTOMIZATION_SUCCEEDED } from '../fixtures/flux-events.js';
import { pipelineDocument, T0 } from '../verifier/world.js';

const MASTER_KEYS = { current: 'current-master-key-1f2e3d' };
/** The pipeline's dev target is HelmRelease apps/podinfo on this cluster: event A is about it. */
const DEV_CLUSTER: ObjectKey = { namespace: 'flux-system', name: 'dev' };
const UNREGISTERED: ObjectKey = { namespace: 'flux-system', name: 'elsewhere' };
/** Authentic, about a kind the controller never reads. */
const GIT_REPOSITORY_EVENT = JSON.stringify({
  involvedObject: {
    kind: 'GitRepository',
    namespace: 'flux-system',
    name: 'fleet',
    apiVersion: 'source.toolkit.fluxcd.io/v1',
  },
  severity: 'info',
  timestamp: '2025-10-01T12:00:05Z',
  message: 'stored artifact',
  reason: 'NewArtifact',
  reportingController: 'source-controller',
});

function clusterDocument(key: ObjectKey): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { ...key },
    spec: { secretRef: { name: `${key.name}-kubeconfig` } },
  };
}

function eventRequest(body: string, options: { cluster?: ObjectKey; key?: string; method?: string } = {}): HttpRequest {
  const cluster = options.cluster ?? DEV_CLUSTER;
  const key = options.key ?? deriveClusterKey(MASTER_KEYS.current, cluster);
  return {
    method: options.method ?? 'POST',
    path: `/v1/events/${cluster.namespace}/${cluster.name}`,
    headers: { 'content-type': 'application/json', 'x-signature': signatureHeader(body, key) },
    body: Buffer.from(body),
  };
}

let store: MemoryStore;
let queue: RecordingQueue;
let metrics: MemoryMetrics;
let deps: ReceiverDeps;

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe("the receiver's metrics of events", () => {
  beforeEach(async () => {
    store = new MemoryStore();
    queue = new RecordingQueue();
    metrics = new MemoryMetrics();
    await store.applyCluster(clusterDocument(DEV_CLUSTER), T0);
    const document = pipelineDocument();
    await store.applyPipeline(document, resolvePipeline(document), T0);
    const quiet = () => undefined;
    deps = {
      store,
      queue,
      secrets: new StaticSecretSource([]),
      masterKeys: () => Promise.resolve(MASTER_KEYS),
      logger: { info: quiet, warn: quiet, error: quiet },
      maxBodyBytes: 4096,
      onEvent: eventMetrics(metrics),
    };
  });

  /** Every count the receiver emits, as `name` or `name reason`, with its total. */
  function counts(): Record<string, number> {
    const found: Record<string, number> = {};
    for (const point of metrics.points()) {
      const label = point.dimensions.Reason === undefined ? point.name : `${point.name} ${point.dimensions.Reason}`;
      found[label] = (found[label] ?? 0) + point.value;
    }
    return found;
  }

  describe('receiver metrics', () => {
    it('an event about a target: received and enqueued, once the check-app is on the queue', async () => {
      const response = await handleRequest(eventRequest(EVENT_A_HELM_UPGRADE), deps);

      assert.equal(response.statusCode, 202);
      assert.equal(queue.sent.length, 1);
      assert.deepEqual(counts(), { EventsReceived: 1, EventsEnqueued: 1 });
    });

    it('authentic events about nothing a pipeline lists, or a kind never read: received and ignored', async () => {
      await handleRequest(eventRequest(EVENT_C_KUSTOMIZATION_SUCCEEDED), deps);
      await handleRequest(eventRequest(GIT_REPOSITORY_EVENT), deps);

      assert.equal(queue.sent.length, 0);
      assert.deepEqual(counts(), { EventsReceived: 2, EventsIgnored: 2 });
    });

    it('refused events: received and rejected, each under its named reason', async () => {
      const answers = [
        await handleRequest(eventRequest(EVENT_A_HELM_UPGRADE, { key: 'a-wrong-key' }), deps),
        await handleRequest(eventRequest(EVENT_A_HELM_UPGRADE, { cluster: UNREGISTERED }), deps),
        await handleRequest(eventRequest('{"not":"an event"}'), deps),
        await handleRequest(eventRequest('x'.repeat(5000)), deps),
        await handleRequest(eventRequest(EVENT_A_HELM_UPGRADE, { method: 'PUT' }), deps),
      ];

      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        [401, 401, 400, 413, 405],
      );
      assert.equal(queue.sent.length, 0);
      assert.deepEqual(counts(), {
        EventsReceived: 5,
        ...Object.fromEntries(EVENT_REJECTIONS.map((reason) => [`EventsRejected ${reason}`, 1])),
      });
    });

    it('an event the receiver could not handle (the store failed): received and failed', async () => {
      class ThrottledStore extends MemoryStore {
        override getCluster(): Promise<never> {
          return Promise.reject(new Error('ProvisionedThroughputExceededException'));
        }
      }
      const throttled = new ThrottledStore();

      const response = await handleRequest(eventRequest(EVENT_A_HELM_UPGRADE), { ...deps, store: throttled });

      assert.equal(response.statusCode, 500);
      assert.deepEqual(counts(), { EventsReceived: 1, EventsFailed: 1 });
    });

    it('requests to other routes count nothing', async () => {
      await handleRequest({ method: 'GET', path: '/healthz', headers: {}, body: Buffer.alloc(0) }, deps);
      await handleRequest(
        { method: 'POST', path: '/promotion/flux-system/podinfo/prod', headers: {}, body: Buffer.from('{}') },
        deps,
      );

      assert.deepEqual(counts(), {});
    });
  });
});
