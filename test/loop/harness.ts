// The whole core loop in one process, every part real except the outside world's far ends: the receiver over
// HTTP, the embedded queue consumed by the verifier, the DynamoDB store on dynalite, the real Kubernetes client
// against fake leaf clusters over HTTPS, and a recording promoter in place of GitHub.
import type { TestContext } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { deriveClusterKey, handleRequest, signatureHeader, startHttpServer } from '../../lib/http/index.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import type { Promoter } from '../../lib/promotion/index.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { EmbeddedQueue, type QueueClock } from '../../lib/queue/index.js';
import { StaticSecretSource, type SecretSource } from '../../lib/secrets/port.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { waitFor, type WaitOptions } from '../../lib/testing/wait-for.js';
import { type Logger, silentLogger } from '../../lib/logging/logger.js';
import type { EffectListener } from '../../lib/verifier/effect-listener.js';
import { createVerifier, type VerifierSettings } from '../../lib/verifier/index.js';
import { deployedHelmRelease as deployed } from '../fixtures/flux-objects.js';
import { startDynalite } from '../support/dynalite.js';

export const MASTER_KEY = 'loop-test-master-key';
export const WEBHOOK_HMAC_KEY = 'weave-hmac-key';
export const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const CONSUMER = { batchSize: 10, pollIntervalMs: 10 };
/** The verifiers' queues hide a message that failed on its nth receive for entry n-1 (the last past the end). */
export const LOOP_RETRY_DELAYS_SECONDS: readonly number[] = [0.3, 0.6, 1.2];

export const pipelineDocument: PipelineDocument = {
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: 'podinfo', namespace: 'flux-system' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
      {
        name: 'prod',
        targets: [
          { namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
          { namespace: 'apps-eu', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
        ],
      },
    ],
    promotion: { strategy: { notification: {}, secretRef: { name: 'webhook-hmac' } } },
  },
};

export { deployedHelmRelease as deployed, upgradingHelmRelease as upgrading } from '../fixtures/flux-objects.js';

/** The body Flux's notification-controller posts after a HelmRelease upgrade (docs/flux-status.md, example A). */
export function upgradeEvent(version: string, namespace = 'apps', name = 'podinfo'): string {
  return JSON.stringify({
    involvedObject: {
      kind: 'HelmRelease',
      namespace,
      name,
      uid: '0d3c3a1e-6a7b-4c1e-9a53-2f1f0e6b8a11',
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      resourceVersion: '4183302',
    },
    severity: 'info',
    timestamp: '2026-11-21T12:00:05Z',
    message: `Helm upgrade succeeded for release ${namespace}/${name}.v3 with chart podinfo@${version}`,
    reason: 'UpgradeSucceeded',
    metadata: { 'app-version': version, revision: version },
    reportingController: 'helm-controller',
    reportingInstance: 'helm-controller-5f7d8c9b6-x2k4q',
  });
}

/** Each fake leaf cluster as GitopsCluster `flux-system/<name>` in the store, its kubeconfig in `<name>-kubeconfig`. */
export async function applyFakeClusters(
  store: Store,
  secrets: StaticSecretSource,
  fakes: ReadonlyMap<string, FakeKubeApi>,
  now: Date,
): Promise<void> {
  for (const [name, fake] of fakes) {
    await store.applyCluster(
      {
        apiVersion: 'gitops.weave.works/v1alpha1',
        kind: 'GitopsCluster',
        metadata: { name, namespace: 'flux-system' },
        spec: { secretRef: { name: `${name}-kubeconfig` } },
      },
      now,
    );
    secrets.set({ namespace: 'flux-system', name: `${name}-kubeconfig` }, { value: fake.kubeconfig() });
  }
}

export interface LoopOptions {
  maxReceiveCount?: number;
  pipeline?: PipelineDocument;
  /** The leaf clusters (GitopsClusters `flux-system/<name>`), each a fake API server. Default dev and prod. */
  clusters?: readonly string[];
  /** Extra Secrets (`flux-system/<name>`), e.g. Git credentials. */
  secrets?: Readonly<Record<string, Record<string, string>>>;
  /** Builds the promoter from the loop's Secrets; default a RecordingPromoter. Called once per verifier worker. */
  promoter?: (secrets: SecretSource) => Promoter;
  /** Verifier settings over the loop's (re-checks after 1 s), e.g. shorter promotion retry delays. */
  settings?: Partial<VerifierSettings>;
  /** Receives what the receiver, the queue and the verifiers log; default silent. */
  logger?: Logger;
  /**
   * The time of the verifiers, the receiver and the queues (delays, visibility), e.g. a ManualClock that a test
   * moves instead of sleeping. Default the system clock.
   */
  clock?: QueueClock;
  /** Told of every effect the verifiers make, as the Lambda's metrics and notifications are; default none. */
  listeners?: (store: Store) => readonly EffectListener[];
}

/** A clock that stands still until the test moves it: delayed messages come due when it passes their time. */
export class ManualClock implements QueueClock {
  #ms: number;
  constructor(start = Date.now()) {
    this.#ms = start;
  }
  now(): number {
    return this.#ms;
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}

export async function startLoop(t: TestContext, options: LoopOptions = {}) {
  const dynamo = await startDynalite();
  const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
  const fakes = new Map<string, FakeKubeApi>();
  for (const name of options.clusters ?? ['dev', 'prod']) fakes.set(name, await new FakeKubeApi().start());
  const secrets = new StaticSecretSource();
  for (const [name, values] of Object.entries(options.secrets ?? {})) {
    secrets.set({ namespace: 'flux-system', name }, values);
  }
  const clock = options.clock ?? { now: () => Date.now() };
  const now = new Date(clock.now());
  await applyFakeClusters(store, secrets, fakes, now);
  secrets.set({ namespace: 'flux-system', name: 'webhook-hmac' }, { 'hmac-key': WEBHOOK_HMAC_KEY });
  const document = options.pipeline ?? pipelineDocument;
  await store.applyPipeline(document, resolvePipeline(document), now);

  const logger = options.logger ?? silentLogger;
  const clusterReader = () =>
    new KubernetesClusterReader({
      getCluster: async (key) => (await store.getCluster(key))?.document,
      secrets,
      timeoutMs: 1000,
    });
  const clusters = clusterReader();
  const recording = new RecordingPromoter();
  const promoter = options.promoter ? options.promoter(secrets) : recording;

  /** A queue consumed by a verifier named `workerId`: one verifier process (the store is shared). */
  const startVerifier = (workerId: string, reader: KubernetesClusterReader, workerPromoter: Promoter) => {
    const queue = new EmbeddedQueue({
      visibilityTimeoutSeconds: 0.3,
      // The AWS backoff (30 s, 1, 2, 4, 8 min) scaled down, so a failing message is dead-lettered within seconds.
      retryDelaysSeconds: LOOP_RETRY_DELAYS_SECONDS,
      maxReceiveCount: options.maxReceiveCount ?? 3,
      logger,
      clock,
    });
    const verifier = createVerifier({
      store,
      queue,
      clusters: reader,
      promoter: workerPromoter,
      logger,
      now: () => new Date(clock.now()),
      workerId,
      // A poll message decides what it changed itself unless a test asks for the delayed decision: the loop's tests
      // count decisions and move manual clocks as if a poll's changes were acted on before the queue drains.
      settings: { recheckDelaysSeconds: [1, 1, 1], pollDecisionDelaySeconds: 0, ...options.settings },
      ...(options.listeners ? { listeners: options.listeners(store) } : {}),
      // The checks' Secrets are the loop's; loopback http to the fakes only where a check allows it for itself.
      verification: { secrets },
    });
    queue.start(verifier, CONSUMER);
    return { queue, verifier };
  };

  /** The queue, the verifier consuming it and the receiver: what a process restart replaces (the store stays). */
  const startProcess = async () => {
    const { queue, verifier } = startVerifier('loop-test', clusters, promoter);
    const server = await startHttpServer(
      (request) =>
        handleRequest(request, {
          store,
          queue,
          secrets,
          masterKeys: () => Promise.resolve({ current: MASTER_KEY }),
          logger,
          now: () => new Date(clock.now()),
        }),
      { port: 0, host: '127.0.0.1' },
    );
    return { queue, server, verifier };
  };
  let running = await startProcess();
  const stopProcess = async () => {
    await running.queue.stop();
    await running.server.close();
  };
  const workers: EmbeddedQueue[] = [];
  t.after(async () => {
    for (const worker of workers) await worker.stop();
    await stopProcess();
    for (const fake of fakes.values()) await fake.stop();
    await dynamo.stop();
  });

  /** POSTs a Flux event for `cluster`, signed with its derived key unless `signature` says otherwise. */
  const sendEvent = async (cluster: string, body: string, signature?: string) => {
    const key = deriveClusterKey(MASTER_KEY, { namespace: 'flux-system', name: cluster });
    const response = await fetch(`${running.server.url}/v1/events/flux-system/${cluster}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'gotk-component': 'helm-controller',
        'x-signature': signature ?? signatureHeader(body, key),
      },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  };

  /** POSTs a Weave approval, signed with the Pipeline's hmac-key over the empty body unless `signature` is given. */
  const approve = async (env: string, revision: string, signature?: string) => {
    const path = `/approval/flux-system/podinfo/${env}/${encodeURIComponent(revision)}`;
    const response = await fetch(`${running.server.url}${path}`, {
      method: 'POST',
      headers: { 'x-signature': signature ?? signatureHeader('', WEBHOOK_HMAC_KEY) },
    });
    await response.arrayBuffer();
    return response.status;
  };

  /** Runs the poller once, as its schedule would. */
  /** One scheduled poll; resolves the (cluster, kind) pairs it polls. */
  const poll = async () => (await enqueuePolls({ store, queue: running.queue })).pairs;

  /** Every target of the pipeline runs `version`, healthy, and the loop has seen it: the usual starting point. */
  const deployEverywhere = async (version: string) => {
    for (const env of document.spec.environments) {
      for (const target of env.targets ?? [])
        cluster(target.clusterRef?.name ?? '').put(deployed(version, target.namespace));
    }
    await poll();
    await settled(running.queue);
  };

  /** Stops the queue, the verifier and the receiver, and starts new ones on the same store. */
  const restart = async () => {
    await stopProcess();
    running = await startProcess();
  };

  /**
   * Another verifier process on the same store, leaf clusters and Secrets, with its own queue, cluster clients and
   * promoter (the loop's RecordingPromoter when no `promoter` option is given), as a second Lambda instance would be.
   * Returns its queue: what is sent to it is handled by that worker only.
   */
  const startWorker = (workerId: string): EmbeddedQueue => {
    const { queue } = startVerifier(
      workerId,
      clusterReader(),
      options.promoter ? options.promoter(secrets) : recording,
    );
    workers.push(queue);
    return queue;
  };

  /** Stops the verifier consuming (what is sent stays queued), as a throttled or cold-starting verifier would. */
  const pauseVerifier = () => running.queue.stop();
  /** Consumes again: what piled up is handed over in batches of 10, each batch's messages handled in parallel. */
  const resumeVerifier = () => running.queue.start(running.verifier, CONSUMER);

  const cluster = (name: string): FakeKubeApi => {
    const fake = fakes.get(name);
    if (!fake) throw new Error(`no fake cluster ${name}`);
    return fake;
  };

  return {
    store,
    cluster,
    get dev() {
      return cluster('dev');
    },
    get prod() {
      return cluster('prod');
    },
    promoter: recording,
    sendEvent,
    approve,
    poll,
    deployEverywhere,
    restart,
    pauseVerifier,
    resumeVerifier,
    startWorker,
    dynamo,
    /** The Secrets the loop reads (kubeconfigs `flux-system/<cluster>-kubeconfig`, webhook and Git credentials). */
    secrets,
    get queue() {
      return running.queue;
    },
    get server() {
      return running.server;
    },
  };
}

/** Waits until the queue has nothing visible or in flight: what is left is delayed (e.g. a soak re-check). */
export async function idle(queue: EmbeddedQueue, options: WaitOptions = {}): Promise<void> {
  await waitFor(
    'the queue to have nothing to hand out',
    () => {
      const stats = queue.stats();
      return stats.visible + stats.inFlight === 0;
    },
    options,
  );
}

/** Waits until the queue has nothing visible, delayed or in flight. */
export async function settled(queue: EmbeddedQueue, options: WaitOptions = {}): Promise<void> {
  await waitFor(
    'the queue to drain',
    () => {
      const stats = queue.stats();
      return stats.visible + stats.inFlight + stats.delayed === 0;
    },
    options,
  );
}
