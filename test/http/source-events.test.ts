// Flux events about a pipeline's source objects (ImagePolicy, OCIRepository) at the events route, in process with
// the in-memory store: like an app's event, one about the source a pipeline names is a trigger to read it, and one
// about a source no pipeline names is answered as for an app in no pipeline.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { GitopsClusterDocument, PipelineDocument } from '../../lib/config/schema.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { EVENT_A_HELM_UPGRADE } from '../fixtures/flux-events.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const MASTER_KEY = 'master-key-7e1d3c';
const FLEET_EU: ObjectKey = { namespace: 'flux-system', name: 'fleet-eu' };

function clusterDocument(key: ObjectKey): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name: key.name, namespace: key.namespace },
    spec: { secretRef: { name: `${key.name}-kubeconfig` } },
  };
}

/** podinfo promoted dev → prod, its first environment fed by the ImagePolicy `flux-system/podinfo` on fleet-eu. */
function pipelineDocument(): PipelineDocument {
  const target = (namespace: string) => ({
    namespace,
    clusterRef: { kind: 'GitopsCluster' as const, name: 'fleet-eu' },
  });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      source: {
        kind: 'ImagePolicy',
        name: 'podinfo',
        namespace: 'flux-system',
        clusterRef: { kind: 'GitopsCluster', name: 'fleet-eu' },
      },
      environments: [
        { name: 'dev', targets: [target('apps')] },
        { name: 'prod', targets: [target('prod')] },
      ],
      promotion: { strategy: { notification: {} } },
    },
  };
}

/** An event as image-reflector-controller or source-controller sends it, about `kind` `namespace/name`. */
function sourceEvent(kind: 'ImagePolicy' | 'OCIRepository', namespace: string, name: string): string {
  const imagePolicy = kind === 'ImagePolicy';
  return JSON.stringify({
    involvedObject: {
      kind,
      namespace,
      name,
      uid: '3f9b1c2d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      apiVersion: imagePolicy ? 'image.toolkit.fluxcd.io/v1' : 'source.toolkit.fluxcd.io/v1',
      resourceVersion: '902211',
    },
    severity: 'info',
    timestamp: '2025-10-01T12:00:05Z',
    message: imagePolicy
      ? 'Latest image tag for ghcr.io/stefanprodan/podinfo updated from 6.6.0 to 6.6.1'
      : "stored artifact with revision '6.6.1@sha256:0cc9a8446c95009ef382f5eade883a67c257f77d50f84e78ecef2aac9428d1e5'",
    reason: imagePolicy ? 'Succeeded' : 'NewArtifact',
    ...(imagePolicy ? {} : { metadata: { revision: '6.6.1@sha256:0cc9a8446c95' } }),
    reportingController: imagePolicy ? 'image-reflector-controller' : 'source-controller',
  });
}

let store: MemoryStore;
let queue: RecordingQueue;

function deps(): ReceiverDeps {
  const ignore = () => undefined;
  return {
    store,
    queue,
    secrets: new StaticSecretSource(),
    masterKeys: () => Promise.resolve({ current: MASTER_KEY }),
    logger: { info: ignore, warn: ignore, error: ignore },
    now: () => NOW,
  };
}

function postEvent(body: string) {
  const key = deriveClusterKey(MASTER_KEY, FLEET_EU);
  return handleRequest(
    {
      method: 'POST',
      path: `/v1/events/${FLEET_EU.namespace}/${FLEET_EU.name}`,
      headers: { 'content-type': 'application/json', 'x-signature': signatureHeader(body, key) },
      body: Buffer.from(body),
    },
    deps(),
  );
}

describe('events about source objects', () => {
  beforeEach(async () => {
    store = new MemoryStore();
    queue = new RecordingQueue();
    await store.applyCluster(clusterDocument(FLEET_EU), NOW);
    const document = pipelineDocument();
    await store.applyPipeline(document, resolvePipeline(document), NOW);
  });

  it('are answered as for an app in no pipeline when no pipeline names the source', async () => {
    const notTargeted = await postEvent(
      JSON.stringify({
        ...(JSON.parse(EVENT_A_HELM_UPGRADE) as Record<string, unknown>),
        involvedObject: {
          kind: 'HelmRelease',
          namespace: 'apps',
          name: 'other',
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
        },
      }),
    );
    assert.equal(notTargeted.statusCode, 202);
    for (const body of [
      sourceEvent('ImagePolicy', 'flux-system', 'other'),
      sourceEvent('ImagePolicy', 'apps', 'podinfo'),
      sourceEvent('OCIRepository', 'flux-system', 'podinfo'),
    ]) {
      assert.deepEqual(await postEvent(body), notTargeted, body);
    }
    assert.deepEqual(queue.take(), []);
  });

  it("trigger a read of the pipeline's source, the event's revision a hint only", async () => {
    const answer = await postEvent(sourceEvent('ImagePolicy', 'flux-system', 'podinfo'));
    assert.equal(answer.statusCode, 202);
    assert.deepEqual(queue.take(), [
      {
        message: {
          type: 'check-app',
          app: { cluster: FLEET_EU, kind: 'ImagePolicy', namespace: 'flux-system', name: 'podinfo' },
          cause: 'event',
          attempt: 0,
          hint: { reason: 'Succeeded' },
          pipelines: [{ namespace: 'flux-system', name: 'podinfo' }],
        },
      },
    ]);
  });
});
