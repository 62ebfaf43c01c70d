// Receiver throughput and latency: requests per second, p50 and p99 of the real `handleRequest` (lib/http) with a
// real store (DynamoDB API on dynalite, in this process) holding one registered cluster and one pipeline whose apps
// are indexed, the embedded queue (not consumed) and static master keys. Two request kinds:
//   - a correctly signed Flux event about an indexed app → 202 and one `check-app` enqueued: the common case, which
//     costs two store reads (the cluster's registration, the apps index) and one enqueue;
//   - a badly signed request → 401: the abuse path, decided from the HMAC alone before anything is looked up;
//   - a forged Weave `/promotion` call (a well-formed signature under the wrong key) → 401: the pipeline's webhook
//     key has to be found before the signature can be checked; counted in store and Secret reads per request too;
//   - an ExternalService input provider's GET of `/v1/inputs/…` with its token → 200, and with a wrong one → 401,
//     counted in store reads per request, and what a thousand providers polling every minute cost a month.
// Each is driven by a closed loop with a fixed number of requests in flight, first in process (handleRequest called
// directly) and then over HTTP through the node:http adapter the local mode serves. The 202 path is run once more
// with the two store reads answered from memory, to separate the receiver's own work from dynalite's. The request
// log line goes to a silent logger (on Lambda, Powertools writes it to stdout).
//
// Baseline: the same load loop, in the same run, against a handler that answers the same fixed 202 and does nothing
// else (in process, and behind the same HTTP server). It is the ceiling of the harness and transport themselves, so
// the ratio says what the receiver's own work costs on top of them; it is not a competitor. The 401 path is also set
// against the 202 path, to show that a flood of forged requests costs less than real traffic.
//
// The figures are of this machine and of dynalite, a LevelDB-backed stand-in far slower per request than DynamoDB
// (the store reads dominate the 202 path); on Lambda each request is a separate invocation with its own network
// round trips to DynamoDB and SQS. What they compare honestly is the receiver's cost against the transport's, and
// the abuse path against the common one.
import { handleRequest, signatureHeader, startHttpServer, deriveClusterKey } from '../lib/http/index.js';
import type { HttpRequest, HttpResponse, ReceiverDeps } from '../lib/http/index.js';
import type { PipelineDocument } from '../lib/config/schema.js';
import { silentLogger } from '../lib/logging/logger.js';
import { resolvePipeline } from '../lib/pipeline/model.js';
import { EmbeddedQueue } from '../lib/queue/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { upgradeEvent } from '../test/loop/harness.js';
import { startBenchDynamo } from './dynamo.js';
import { deriveInputToken } from '../lib/signing/hmac.js';
import { PRICES } from './prices.js';
import { formatMs, formatNumber, formatRatio, percentile, runIfMain, type Bench, type BenchSection } from './report.js';

/** Requests in flight at once (a closed loop: each finished request starts the next). */
const CONCURRENCY = 16;
/** Unmeasured requests first: JIT, dynalite's caches, connection pools. */
const WARM_UP_MS = 500;
/** How long each measured run lasts. */
const MEASURE_MS = 3_000;

const MASTER_KEYS = { current: 'bench-master-key-3f9c1e7a' };
const CLUSTER = { namespace: 'flux-system', name: 'fleet-eu' };
const APP = { namespace: 'apps', name: 'podinfo' };
const EVENT_PATH = `/v1/events/${CLUSTER.namespace}/${CLUSTER.name}`;
const WEBHOOK_SECRET = { namespace: 'flux-system', name: 'podinfo-webhook' };
const WEBHOOK_HMAC_KEY = 'bench-webhook-key-8d2b6f1c';
const PROMOTION_PATH = '/promotion/flux-system/podinfo/dev';
const PODINFO = { namespace: 'flux-system', name: 'podinfo' };
const INPUTS_PATH = '/v1/inputs/flux-system/podinfo/prod';

const pipelineDocument: PipelineDocument = {
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: 'podinfo', namespace: 'flux-system' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: APP.name },
    environments: [
      {
        name: 'dev',
        targets: [{ namespace: APP.namespace, clusterRef: { kind: 'GitopsCluster', name: CLUSTER.name } }],
      },
      { name: 'prod', targets: [{ namespace: 'prod', clusterRef: { kind: 'GitopsCluster', name: CLUSTER.name } }] },
    ],
    promotion: { strategy: { notification: {}, secretRef: { name: WEBHOOK_SECRET.name } } },
  },
};

interface LoadResult {
  /** Measured requests (the warm-up's not included). */
  requests: number;
  /** All requests answered, the warm-up's included. */
  answered: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Runs `call` in a closed loop with CONCURRENCY in flight: WARM_UP_MS unmeasured, then MEASURE_MS measured. Every
 * answer must have `expectedStatus`, or the bench fails (a fast wrong answer is not a result).
 */
async function closedLoop(call: () => Promise<number>, expectedStatus: number): Promise<LoadResult> {
  const drive = async (durationMs: number, latencies?: number[]): Promise<number> => {
    const deadline = performance.now() + durationMs;
    let requests = 0;
    const worker = async (): Promise<void> => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const status = await call();
        latencies?.push(performance.now() - started);
        requests += 1;
        if (status !== expectedStatus) throw new Error(`expected ${expectedStatus}, got ${status}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return requests;
  };
  const warmUp = await drive(WARM_UP_MS);
  const latencies: number[] = [];
  const started = performance.now();
  const requests = await drive(MEASURE_MS, latencies);
  const elapsedMs = performance.now() - started;
  return {
    requests,
    answered: warmUp + requests,
    perSecond: (requests / elapsedMs) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

const rate = (result: LoadResult): string => `${formatNumber(result.perSecond)} req/s`;
const latency = (result: LoadResult): string => `p50 ${formatMs(result.p50Ms)}, p99 ${formatMs(result.p99Ms)}`;

export const benchReceiver: Bench = async (): Promise<BenchSection> => {
  const dynamo = await startBenchDynamo();
  const { store } = dynamo;
  const now = new Date();
  await store.applyCluster(
    {
      apiVersion: 'gitops.weave.works/v1alpha1',
      kind: 'GitopsCluster',
      metadata: CLUSTER,
      spec: { secretRef: { name: `${CLUSTER.name}-kubeconfig` } },
    },
    now,
  );
  await store.applyPipeline(pipelineDocument, resolvePipeline(pipelineDocument), now);
  // Produced into, never consumed: the enqueue is part of the receiver's work, the verifier's is not.
  const queue = new EmbeddedQueue({ logger: { info() {}, warn() {}, error() {} } });
  // Counts the reads a forged /promotion call costs: the pipeline (store) and its webhook Secret.
  const reads = { store: 0, secrets: 0 };
  const secretSource = new StaticSecretSource([{ key: WEBHOOK_SECRET, values: { 'hmac-key': WEBHOOK_HMAC_KEY } }]);
  const deps: ReceiverDeps = {
    store: {
      getCluster: (key) => store.getCluster(key),
      findTargets: (app) => store.findTargets(app),
      getPipeline: (key) => {
        reads.store += 1;
        return store.getPipeline(key);
      },
      getApproval: (...args) => store.getApproval(...args),
      approve: (...args) => store.approve(...args),
      appendAudit: (entry) => store.appendAudit(entry),
      getConfigSource: (key) => store.getConfigSource(key),
      getServedInput: (...args) => {
        reads.store += 1;
        return store.getServedInput(...args);
      },
    },
    queue,
    secrets: {
      getSecret: (key) => {
        reads.secrets += 1;
        return secretSource.getSecret(key);
      },
    },
    masterKeys: () => Promise.resolve(MASTER_KEYS),
    logger: silentLogger,
  };

  const body = Buffer.from(upgradeEvent('6.9.2', APP.namespace, APP.name));
  const signed = signatureHeader(body, deriveClusterKey(MASTER_KEYS.current, CLUSTER));
  const forged = signatureHeader(body, deriveClusterKey('not-the-master-key', CLUSTER));
  const request = (signature: string): HttpRequest => ({
    method: 'POST',
    path: EVENT_PATH,
    headers: { 'content-type': 'application/json', 'x-signature': signature, 'content-length': String(body.length) },
    body,
  });
  const accepted = await handleRequest(request(signed), deps);
  const fixed202: HttpResponse = { ...accepted };
  const emptyHandler = (): Promise<HttpResponse> => Promise.resolve(fixed202);

  const servers: { close(): Promise<void> }[] = [];
  try {
    // (a), (b) and their baseline, in process.
    const baselineInProcess = await closedLoop(async () => (await emptyHandler()).statusCode, 202);
    const enqueuedBefore = queue.stats().visible;
    const signedInProcess = await closedLoop(async () => (await handleRequest(request(signed), deps)).statusCode, 202);
    const enqueued = queue.stats().visible - enqueuedBefore;
    if (enqueued !== signedInProcess.answered)
      throw new Error(`${signedInProcess.answered} answers 202, ${enqueued} enqueued`);
    // The same 202 path with the two store reads answered from memory (what the store returned above): the
    // receiver's own work (routing, HMAC, parsing, enqueue), to tell it apart from dynalite's.
    const cluster = await store.getCluster(CLUSTER);
    const targets = await store.findTargets({ cluster: CLUSTER, kind: 'HelmRelease', ...APP });
    const memoryDeps: ReceiverDeps = {
      ...deps,
      store: {
        getCluster: () => Promise.resolve(cluster),
        findTargets: () => Promise.resolve(targets),
        getPipeline: (key) => store.getPipeline(key),
        getApproval: (...args) => store.getApproval(...args),
        approve: (...args) => store.approve(...args),
        appendAudit: (entry) => store.appendAudit(entry),
        getConfigSource: (key) => store.getConfigSource(key),
        getServedInput: (...args) => store.getServedInput(...args),
      },
    };
    const signedMemory = await closedLoop(
      async () => (await handleRequest(request(signed), memoryDeps)).statusCode,
      202,
    );
    const visibleBeforeForged = queue.stats().visible;
    const forgedInProcess = await closedLoop(async () => (await handleRequest(request(forged), deps)).statusCode, 401);
    // A forged Weave call: a well-formed sha256 signature of the body under a key that is not the pipeline's.
    const promotionRequest: HttpRequest = {
      method: 'POST',
      path: PROMOTION_PATH,
      headers: { 'x-signature': signatureHeader(body, 'not-the-webhook-key'), 'content-length': String(body.length) },
      body,
    };
    const readsBefore = { ...reads };
    const forgedPromotion = await closedLoop(async () => (await handleRequest(promotionRequest, deps)).statusCode, 401);
    const forgedPromotionReads = {
      store: reads.store - readsBefore.store,
      secrets: reads.secrets - readsBefore.secrets,
    };
    if (queue.stats().visible !== visibleBeforeForged) throw new Error('a forged request enqueued something');

    // An input provider's poll: one GetItem per answer, none per refusal.
    await store.putServedInput(PODINFO, {
      env: 'prod',
      version: '6.9.2',
      previousVersion: '6.9.1',
      promotedAt: '2026-11-29T10:42:00.000Z',
      servedSince: '2026-11-29T10:42:00.000Z',
    });
    const inputsRequest = (token: string): HttpRequest => ({
      method: 'GET',
      path: INPUTS_PATH,
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
      body: Buffer.alloc(0),
    });
    const inputToken = deriveInputToken(MASTER_KEYS.current, PODINFO, 'prod');
    const beforeInputs = reads.store;
    const served = await closedLoop(async () => (await handleRequest(inputsRequest(inputToken), deps)).statusCode, 200);
    const readsPerInput = (reads.store - beforeInputs) / served.answered;
    const beforeRefused = reads.store;
    const refusedInputs = await closedLoop(
      async () => (await handleRequest(inputsRequest('0'.repeat(64)), deps)).statusCode,
      401,
    );
    const readsPerRefusal = (reads.store - beforeRefused) / refusedInputs.answered;
    // The route's promise (docs/external-service.md): one read per answer, none per refusal.
    if (readsPerInput !== 1) throw new Error(`GET /v1/inputs made ${readsPerInput} store reads per answer, not 1`);
    if (readsPerRefusal !== 0) throw new Error(`a refused GET /v1/inputs made ${readsPerRefusal} store reads`);
    // A thousand providers, each polling once a minute, for a 30-day month; a GetItem of an item under 4 KB,
    // eventually consistent: half a read unit. Lambda's duration on AWS is not measured here (dynalite is far slower
    // than DynamoDB): it is priced per billed millisecond at the receiver's 512 MB on arm64.
    const pollsPerMonth = 1_000 * 60 * 24 * 30;
    const monthly = {
      dynamo: pollsPerMonth * readsPerInput * 0.5 * PRICES.readRequestUnit,
      requests: pollsPerMonth * PRICES.lambdaRequest,
      perBilledMs: pollsPerMonth * 0.001 * 0.5 * PRICES.lambdaArmGbSecond,
    };

    // (c) the same over HTTP (node:http adapter, fetch with keep-alive), and its baseline behind the same server.
    const receiverServer = await startHttpServer((incoming) => handleRequest(incoming, deps));
    servers.push(receiverServer);
    const emptyServer = await startHttpServer(emptyHandler);
    servers.push(emptyServer);
    const post = async (url: string, signature: string): Promise<number> => {
      const response = await fetch(`${url}${EVENT_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': signature },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    };
    const baselineHttp = await closedLoop(() => post(emptyServer.url, signed), 202);
    const signedHttp = await closedLoop(() => post(receiverServer.url, signed), 202);
    const forgedHttp = await closedLoop(() => post(receiverServer.url, forged), 401);

    const conditions = `${CONCURRENCY} in flight, ${(MEASURE_MS / 1000).toFixed(1)} s after ${(WARM_UP_MS / 1000).toFixed(1)} s warm-up`;
    return {
      title: 'Receiver',
      measurements: [
        {
          name: 'signed event → 202, in process',
          value: rate(signedInProcess),
          baseline: `empty 202 handler, same loop: ${rate(baselineInProcess)}`,
          ratio: `${formatRatio(baselineInProcess.perSecond, signedInProcess.perSecond)} below the loop's ceiling`,
          note: `${conditions}; per request 1 GetItem + 1 Query on dynalite, 1 enqueue (checked: 1 per 202)`,
        },
        {
          name: 'signed event → 202, in process, latency',
          value: latency(signedInProcess),
          baseline: `empty 202 handler: ${latency(baselineInProcess)}`,
          note: conditions,
        },
        {
          name: 'signed event → 202, in process, store reads from memory',
          value: `${rate(signedMemory)}; ${latency(signedMemory)}`,
          baseline: `the same on dynalite: ${rate(signedInProcess)}`,
          ratio: `${formatRatio(signedMemory.perSecond, signedInProcess.perSecond)} the dynalite rate`,
          note: `${conditions}; the receiver's own work: routing, HMAC, event parsing, enqueue`,
        },
        {
          name: 'bad signature → 401, in process',
          value: rate(forgedInProcess),
          baseline: `signed event → 202: ${rate(signedInProcess)}`,
          ratio: `${formatRatio(forgedInProcess.perSecond, signedInProcess.perSecond)} the 202 rate`,
          note: `${conditions}; no store read, nothing enqueued`,
        },
        {
          name: 'forged /promotion (well-formed signature, wrong key) → 401, in process',
          value: `${rate(forgedPromotion)}; ${latency(forgedPromotion)}`,
          baseline: `bad signature on an event → 401: ${rate(forgedInProcess)}`,
          ratio: `${formatRatio(forgedInProcess.perSecond, forgedPromotion.perSecond)} the event's cost`,
          note:
            `${conditions}; ${formatNumber(forgedPromotionReads.store)} store and ` +
            `${formatNumber(forgedPromotionReads.secrets)} Secret reads for ${formatNumber(forgedPromotion.answered)} ` +
            'requests about one pipeline (a header that is not a signature: none)',
        },
        {
          name: 'bad signature → 401, in process, latency',
          value: latency(forgedInProcess),
          baseline: `signed event → 202: ${latency(signedInProcess)}`,
          note: conditions,
        },
        {
          name: 'input provider GET /v1/inputs/… → 200, in process',
          value: `${rate(served)}; ${latency(served)}`,
          note: `${conditions}; ${readsPerInput.toFixed(2)} store reads per answer (one GetItem on dynalite)`,
        },
        {
          name: 'input provider GET /v1/inputs/… with a wrong token → 401, in process',
          value: `${rate(refusedInputs)}; ${latency(refusedInputs)}`,
          note: `${conditions}; ${readsPerRefusal.toFixed(2)} store reads per refusal`,
        },
        {
          name: '1,000 input providers polling every minute, a month',
          value:
            `$${(monthly.dynamo + monthly.requests).toFixed(2)} per month, ` +
            `+ $${monthly.perBilledMs.toFixed(2)} per billed ms of a request`,
          note:
            `${formatNumber(pollsPerMonth)} requests: DynamoDB $${monthly.dynamo.toFixed(2)} ` +
            `(${readsPerInput.toFixed(2)} GetItem each, 0.5 RRU), Lambda requests $${monthly.requests.toFixed(2)}, ` +
            'duration at 512 MB arm64; before free tiers; list prices of bench/prices.ts',
        },
        {
          name: 'signed event → 202, over HTTP',
          value: `${rate(signedHttp)}; ${latency(signedHttp)}`,
          baseline: `empty 202 handler, same server: ${rate(baselineHttp)}; ${latency(baselineHttp)}`,
          ratio: `${formatRatio(baselineHttp.perSecond, signedHttp.perSecond)} below the server's ceiling`,
          note: `${conditions}; node:http adapter on loopback, fetch with keep-alive`,
        },
        {
          name: 'bad signature → 401, over HTTP',
          value: `${rate(forgedHttp)}; ${latency(forgedHttp)}`,
          baseline: `signed event → 202 over HTTP: ${rate(signedHttp)}`,
          ratio: `${formatRatio(forgedHttp.perSecond, signedHttp.perSecond)} the 202 rate`,
          note: conditions,
        },
      ],
    };
  } finally {
    for (const server of servers) await server.close();
    await dynamo.stop();
  }
};

await runIfMain(import.meta.url, benchReceiver);
