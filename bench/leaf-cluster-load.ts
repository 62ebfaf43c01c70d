// Load on the leaf clusters' Kubernetes API servers, and wall time, of ONE scheduled poll of a large fleet (200
// clusters, each running the same 50 apps), through the real product path: the store (DynamoDB adapter on dynalite)
// holds the clusters and pipelines as applied, the poller enqueues one `poll` per (cluster, kind) in use
// (`enqueuePolls`), the embedded queue hands them to the real verifier (`createVerifier`, batches of 10 handled in
// parallel, as the Lambda's consumer does), which LISTs each (cluster, kind) with the real KubernetesClusterReader
// (@kubernetes/client-node over HTTPS) against one fake API server per cluster answering after LATENCY_MS (all of
// them in a process of their own, lib/testing/fake-kube-fleet.ts, as the clusters are other machines), records
// every target's status and decides for every pipeline. Measured twice: the first poll (every status is new, so
// each is written) and a second, steady poll (nothing changed, nothing written). Wall time runs from enqueueing the
// polls until the queue is settled. The product path runs with PIPELINED_APPS of the apps in pipelines (see there):
// each LIST still returns all 50 apps of its cluster, so the Kubernetes side is the whole fleet's.
//
// The bench CHECKS the design's targets, "exactly one LIST page per (cluster, kind) per poll, and no GET" and "at
// most one TLS connection per cluster per poll": it counts the requests and connections each fake server received and
// throws, failing `npm run bench`, when a cluster saw anything else.
//
// Baseline, in the same run: the naive poll a controller without the LIST design would make for the whole fleet,
// one GET per (pipeline, environment, target) through the same KubernetesClusterReader (`getApp`), READ_CONCURRENCY
// at once, against the same servers with the same latency. It only reads; it records and decides nothing. So the
// wall-time comparison is made between like and like: the naive GETs against the poll's Kubernetes reads alone (the
// same reader LISTing every (cluster, kind), same concurrency, nothing else). The product poll's own wall time is
// reported apart, with its count of DynamoDB operations: on dynalite (in a process of its own), a single-threaded
// stand-in far slower than DynamoDB, they dominate it.
//
// Then, in the same section, targets chosen by cluster labels at fleet size (bench/leaf-cluster-selection.ts): one
// pipeline selecting 500 clusters still polls with one LIST per (cluster, kind), and relabelling one cluster writes
// in proportion to the pipelines that select it, not to the fleet (both checked).
import { KubernetesClusterReader } from '../lib/clusters/index.js';
import type { ClusterReader } from '../lib/clusters/port.js';
import type { AppKind, GitopsClusterDocument, PipelineDocument } from '../lib/config/schema.js';
import { resolvePipeline, type AppKey, type ObjectKey } from '../lib/pipeline/model.js';
import { enqueuePolls } from '../lib/poller/poller.js';
import { RecordingPromoter } from '../lib/testing/recording-promoter.js';
import { EmbeddedQueue } from '../lib/queue/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { FakeKubeFleet, type FleetRequestCounts } from '../lib/testing/fake-kube-fleet.js';
import { createVerifier, DEFAULT_SETTINGS, RecentReads } from '../lib/verifier/index.js';
import { deployed, settled } from '../test/loop/harness.js';
import { startBenchDynamo } from './dynamo.js';
import { measureLabelSelection } from './leaf-cluster-selection.js';
import { formatMs, formatNumber, formatRatio, percentile, runIfMain, type Bench, type BenchSection } from './report.js';
import { silentLogger } from '../lib/logging/logger.js';

// ---------------------------------------------------------------- the fleet

/** Leaf clusters, each its own fake API server. `BENCH_FLEET_CLUSTERS` overrides it for a quick trial. */
const CLUSTER_COUNT = Number(process.env.BENCH_FLEET_CLUSTERS ?? 200);
/** Apps, each with one pipeline, each running on every cluster. `BENCH_FLEET_APPS` overrides it. */
const APP_COUNT = Number(process.env.BENCH_FLEET_APPS ?? 50);
/** The last fifth of the apps are Kustomizations (platform add-ons), the others HelmReleases: 2 kinds per cluster. */
const KUSTOMIZATION_APPS = Math.round(APP_COUNT / 5);
/**
 * How many of the apps have their pipeline applied to the store for the product-path polls (both kinds among them).
 * Default: all of them. Every cluster runs all APP_COUNT apps whatever this is, so each LIST returns as much; only the
 * store's side shrinks. On the first poll every status is new, so each poll message decides again for every pipeline
 * on its (cluster, kind): with all 50 pipelines some 10,000 decisions and 70,000 DynamoDB operations, minutes on
 * dynalite (a steady poll decides each pipeline once). `BENCH_FLEET_PIPELINES=3` gives a quick trial.
 */
const PIPELINED_APPS = Math.min(APP_COUNT, Number(process.env.BENCH_FLEET_PIPELINES ?? APP_COUNT));
/** Every pipeline's environments, in promotion order; each takes an equal share of the clusters. */
const ENVIRONMENTS = ['dev', 'staging', 'prod-eu', 'prod-us'] as const;
/** Injected before every answer of every fake API server. */
const LATENCY_MS = 20;
/** Reads in flight at once for the naive GET poll and the LIST-only pass: the verifier's batch of 10 messages. */
const READ_CONCURRENCY = 10;
/** The namespaces the apps run in on every cluster. */
const HELM_NAMESPACE = 'apps';
const KUSTOMIZATION_NAMESPACE = 'flux-system';
const VERSION = '1.4.2';
const KUSTOMIZATION_REVISION = 'main@sha1:5d0f5c1cb2d4b4b0a1b7f8e65e0cb6b6a0a6e2f1';

const CLUSTER_NAMESPACE = 'flux-system';

const clusterName = (index: number): string => `leaf-${String(index).padStart(3, '0')}`;
const appName = (index: number): string => `app-${String(index).padStart(2, '0')}`;
const kindOf = (appIndex: number): AppKind =>
  appIndex >= APP_COUNT - KUSTOMIZATION_APPS ? 'Kustomization' : 'HelmRelease';
const namespaceOf = (kind: AppKind): string => (kind === 'HelmRelease' ? HELM_NAMESPACE : KUSTOMIZATION_NAMESPACE);

/** The clusters of environment `env` (by position): an equal, contiguous share of the fleet. */
function clustersOf(env: number): number[] {
  const share = Math.ceil(CLUSTER_COUNT / ENVIRONMENTS.length);
  const first = env * share;
  return Array.from({ length: Math.max(0, Math.min(share, CLUSTER_COUNT - first)) }, (_, i) => first + i);
}

function pipelineOf(appIndex: number): PipelineDocument {
  const kind = kindOf(appIndex);
  const apiVersion = kind === 'HelmRelease' ? 'helm.toolkit.fluxcd.io/v2' : 'kustomize.toolkit.fluxcd.io/v1';
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: appName(appIndex), namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion, kind, name: appName(appIndex) },
      environments: ENVIRONMENTS.map((env, position) => ({
        name: env,
        targets: clustersOf(position).map((cluster) => ({
          namespace: namespaceOf(kind),
          clusterRef: { kind: 'GitopsCluster' as const, name: clusterName(cluster) },
        })),
      })),
      promotion: { strategy: { notification: {} } },
    },
  };
}

/** A healthy v1 Kustomization that applied KUSTOMIZATION_REVISION. */
function appliedKustomization(name: string): Record<string, unknown> {
  const message = `Applied revision: ${KUSTOMIZATION_REVISION}`;
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: KUSTOMIZATION_NAMESPACE, generation: 2 },
    spec: {
      interval: '10m',
      path: `./platform/${name}`,
      prune: true,
      wait: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    },
    status: {
      observedGeneration: 2,
      lastAppliedRevision: KUSTOMIZATION_REVISION,
      lastAttemptedRevision: KUSTOMIZATION_REVISION,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ReconciliationSucceeded',
          message,
          observedGeneration: 2,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  };
}

function appObject(appIndex: number): Record<string, unknown> {
  const name = appName(appIndex);
  if (kindOf(appIndex) === 'Kustomization') return appliedKustomization(name);
  const object = deployed(VERSION, HELM_NAMESPACE) as { metadata: { name: string } };
  object.metadata.name = name;
  return object;
}

/** The apps whose pipelines the product-path polls run with: the first HelmReleases and one Kustomization. */
function pipelinedApps(): number[] {
  const all = Array.from({ length: APP_COUNT }, (_, app) => app);
  if (PIPELINED_APPS >= APP_COUNT) return all;
  const kustomization = APP_COUNT - KUSTOMIZATION_APPS;
  return KUSTOMIZATION_APPS > 0 && PIPELINED_APPS > 1
    ? [...all.slice(0, PIPELINED_APPS - 1), kustomization]
    : all.slice(0, PIPELINED_APPS);
}

/** Every (pipeline, environment, target) of the pipelines of `apps`: what a naive poll GETs one by one. */
function targetsOf(apps: readonly number[]): AppKey[] {
  const targets: AppKey[] = [];
  for (const app of apps) {
    for (let env = 0; env < ENVIRONMENTS.length; env++) {
      for (const cluster of clustersOf(env)) {
        targets.push({
          cluster: { namespace: CLUSTER_NAMESPACE, name: clusterName(cluster) },
          kind: kindOf(app),
          namespace: namespaceOf(kindOf(app)),
          name: appName(app),
        });
      }
    }
  }
  return targets;
}

/** Every (cluster, kind) with at least one app: what one poll LISTs. */
function everyClusterKind(): { cluster: ObjectKey; kind: AppKind; namespaces: string[] }[] {
  const kinds: AppKind[] = [...new Set(Array.from({ length: APP_COUNT }, (_, app) => kindOf(app)))];
  return Array.from({ length: CLUSTER_COUNT }, (_, cluster) =>
    kinds.map((kind) => ({
      cluster: { namespace: CLUSTER_NAMESPACE, name: clusterName(cluster) },
      kind,
      namespaces: [namespaceOf(kind)],
    })),
  ).flat();
}

// ---------------------------------------------------------------- measuring

/** What one product-path poll cost: read by bench/fleet-scaling.ts from a child process run with BENCH_FLEET_FIGURES=1. */
export interface PollFigures {
  lists: number;
  wallMs: number;
  /** CPU time of the bench process meanwhile: the verifier's (the fake API servers and dynalite have processes of their own). */
  cpuMs: number;
  dynamoOperations: number;
  dynamoWrites: number;
  readUnits: number;
  writeUnits: number;
  /** Queue messages the verifier handled, by type. */
  messages: Record<string, number>;
}

export interface FleetFigures {
  clusters: number;
  pairs: number;
  pipelines: number;
  targets: number;
  first: PollFigures;
  steady: PollFigures;
}

/** The line a BENCH_FLEET_FIGURES=1 run prints its FleetFigures on, as JSON after this prefix. */
export const FLEET_FIGURES_PREFIX = 'fleet-figures: ';

/** Runs `work` over `items`, `limit` at once. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The product's reader, timing each LIST it makes (what the verifier waits on the clusters for). */
class TimedClusterReader implements ClusterReader {
  readonly listMs: number[] = [];

  constructor(private readonly reader: ClusterReader) {}

  getApp(app: AppKey): Promise<Record<string, unknown> | undefined> {
    return this.reader.getApp(app);
  }

  getCanary(cluster: ObjectKey, canary: ObjectKey): Promise<Record<string, unknown> | undefined> {
    return this.reader.getCanary(cluster, canary);
  }

  async listApps(cluster: ObjectKey, kind: AppKind, namespaces: readonly string[]) {
    const started = performance.now();
    try {
      return await this.reader.listApps(cluster, kind, namespaces);
    } finally {
      this.listMs.push(performance.now() - started);
    }
  }
}

interface RequestCounts {
  list: number;
  get: number;
  discovery: number;
  other: number;
  total: number;
}

function countRequests(perCluster: readonly FleetRequestCounts[]): RequestCounts {
  const counts: RequestCounts = { list: 0, get: 0, discovery: 0, other: 0, total: 0 };
  for (const { list, get, discovery, other } of perCluster) {
    counts.list += list;
    counts.get += get;
    counts.discovery += discovery;
    counts.other += other;
    counts.total += list + get + discovery + other;
  }
  return counts;
}

/** TLS connections the fakes accepted since their requests were last reset. */
function tlsConnections(perCluster: readonly FleetRequestCounts[]): number {
  return perCluster.reduce((sum, counts) => sum + counts.tlsConnections, 0);
}

/** Throws unless every cluster got exactly one LIST page per kind it runs and no GET. */
function checkOneListPerClusterKind(
  perCluster: readonly FleetRequestCounts[],
  kindsPerCluster: number,
  which: string,
): void {
  const wrong = perCluster.flatMap(({ list: lists, get: gets }, index) =>
    lists === kindsPerCluster && gets === 0 ? [] : [`${clusterName(index)}: ${lists} LIST, ${gets} GET`],
  );
  failUnlessNone(
    wrong,
    `${which}: the target "exactly one LIST page per (cluster, kind) per poll, no GET" is not met ` +
      `(${kindsPerCluster} LIST expected per cluster)`,
  );
}

/**
 * Throws unless every cluster's API server accepted at most one TLS connection: a poll LISTs a cluster's kinds one
 * after the other, over the connection the first opened (poll-clusters.ts).
 */
function checkOneConnectionPerCluster(perCluster: readonly FleetRequestCounts[], which: string): void {
  const wrong = perCluster.flatMap(({ tlsConnections: connections }, index) =>
    connections <= 1 ? [] : [`${clusterName(index)}: ${connections} TLS connections`],
  );
  failUnlessNone(wrong, `${which}: the target "at most one TLS connection per cluster per poll" is not met`);
}

/** Throws `target`, with the first clusters that missed it, when any did. */
function failUnlessNone(wrong: readonly string[], target: string): void {
  if (wrong.length === 0) return;
  throw new Error(
    `${target}: ${wrong.slice(0, 5).join('; ')}` + (wrong.length > 5 ? `; and ${wrong.length - 5} more clusters` : ''),
  );
}

/**
 * Store reads of a steady poll beyond two per (cluster, kind) (the pair's Query with its poll summary, and a read of
 * the cluster's registration when the poll message does not carry it) and the poller's listings, per pipeline: the
 * poller's check of each pipeline (its definition, promotion records and the stop switches: the fleet's pipelines
 * have nothing time can change, so no status is read) and the verifier's read of each definition. Nothing is left
 * per target: a poll summary vouches for each listed status.
 */
const READS_PER_PIPELINE = 4;

/**
 * Throws unless the steady poll's store requests grow with the (cluster, kind) pairs and the pipelines, not with the
 * targets: the premise of the poll summary (docs/architecture.md, "The poll summary").
 */
function checkSteadyPollReads(
  byName: ReadonlyMap<string, number>,
  pairs: number,
  pipelines: number,
  targets: number,
): void {
  const requests = [...byName.values()].reduce((sum, count) => sum + count, 0);
  const budget = 2 * pairs + 2 + pipelines * READS_PER_PIPELINE;
  if (requests > budget) {
    throw new Error(
      `steady poll: the target "one Query per (cluster, kind), reads per pipeline, none per target" is not met: ` +
        `${formatNumber(requests)} DynamoDB requests (${operationsText(byName)}) for ${formatNumber(pairs)} pairs, ` +
        `${formatNumber(pipelines)} pipelines and ${formatNumber(targets)} targets; budget ${formatNumber(budget)}`,
    );
  }
}

const operationsText = (byName: ReadonlyMap<string, number>): string =>
  [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, count]) => `${formatNumber(count)} ${name}`)
    .join(', ');

const seconds = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : formatMs(ms));
const requestsText = (counts: RequestCounts): string =>
  `${formatNumber(counts.list + counts.get)} requests (${formatNumber(counts.list)} LIST, ${formatNumber(counts.get)} GET)`;

// ---------------------------------------------------------------- the bench

/** The fleet poll, then the rows of bench/leaf-cluster-selection.ts (targets chosen by cluster labels). */
export const benchLeafClusterLoad: Bench = async (): Promise<BenchSection> => {
  const fleet = await benchFleetPoll();
  if (process.env.BENCH_FLEET_FIGURES === '1') return fleet;
  return { ...fleet, measurements: [...fleet.measurements, ...(await measureLabelSelection())] };
};

const benchFleetPoll: Bench = async (): Promise<BenchSection> => {
  const setupStarted = performance.now();
  // dynalite in a process of its own: each of the first poll's writes costs dynalite about as much CPU as the
  // product (bench/dynamo.ts), and DynamoDB's CPU is not the verifier's.
  const dynamo = await startBenchDynamo({ ownProcess: true });
  const { store } = dynamo;
  const fakesStarted = performance.now();
  // The leaf clusters' API servers in a process of their own: their CPU is not the verifier's.
  const fakes = await FakeKubeFleet.start(CLUSTER_COUNT);
  const fakesMs = performance.now() - fakesStarted;
  let queue: EmbeddedQueue | undefined;
  try {
    const secrets = new StaticSecretSource();
    const now = new Date();
    for (const [index, kubeconfig] of fakes.kubeconfigs.entries()) {
      const name = clusterName(index);
      await store.applyCluster(
        {
          apiVersion: 'gitops.weave.works/v1alpha1',
          kind: 'GitopsCluster',
          metadata: { name, namespace: CLUSTER_NAMESPACE },
          spec: { secretRef: { name: `${name}-kubeconfig` } },
        },
        now,
      );
      secrets.set({ namespace: CLUSTER_NAMESPACE, name: `${name}-kubeconfig` }, { value: kubeconfig });
    }
    await fakes.putEverywhere(Array.from({ length: APP_COUNT }, (_, app) => appObject(app)));
    const pipelined = pipelinedApps();
    for (const app of pipelined) {
      const document = pipelineOf(app);
      await store.applyPipeline(document, resolvePipeline(document), now);
    }
    const pipelinedTargets = targetsOf(pipelined);
    const allTargets = targetsOf(Array.from({ length: APP_COUNT }, (_, app) => app));
    const clusterKinds = everyClusterKind();
    const kindsPerCluster = clusterKinds.length / CLUSTER_COUNT;
    await fakes.setLatency(LATENCY_MS);
    const setupMs = performance.now() - setupStarted;
    // The product's reader reads the GitopsCluster from the store, remembered for 30 s and handed over by the poll
    // messages that carry it, as the verifier's assembly (lib/runtime/assemble-verifier.ts) builds it. The readers of
    // the two Kubernetes-only passes get it from memory, so that those measure the clusters' side alone.
    const registrations = new RecentReads(
      async (key) => (await store.getCluster(key))?.document,
      DEFAULT_SETTINGS.pollPipelineMaxAgeMs,
      () => new Date(),
    );
    const productReader = () => new KubernetesClusterReader({ getCluster: (key) => registrations.get(key), secrets });
    const registered = new Map<string, GitopsClusterDocument>();
    for (let index = 0; index < CLUSTER_COUNT; index++) {
      const document = (await store.getCluster({ namespace: CLUSTER_NAMESPACE, name: clusterName(index) }))?.document;
      if (document) registered.set(clusterName(index), document);
    }
    const newReader = () =>
      new KubernetesClusterReader({ getCluster: (key) => Promise.resolve(registered.get(key.name)), secrets });

    // The product path: poller → embedded queue → verifier → reader → store.
    const reader = new TimedClusterReader(productReader());
    const running = new EmbeddedQueue({ visibilityTimeoutSeconds: 360, logger: silentLogger });
    queue = running;
    const verifier = createVerifier({
      store,
      queue: running,
      clusters: reader,
      promoter: new RecordingPromoter(),
      logger: silentLogger,
      now: () => new Date(),
      workerId: 'bench',
      clusterRegistrations: registrations,
    });
    // Messages the verifier handled, by type: what SQS and Lambda bill a poll for (fleet-scaling.ts).
    const handled = new Map<string, number>();
    running.start(
      async (message, context) => {
        handled.set(message.type, (handled.get(message.type) ?? 0) + 1);
        await verifier(message, context);
      },
      { batchSize: 10, pollIntervalMs: 5 },
    );

    const productPoll = async (which: string) => {
      await fakes.resetRequests();
      dynamo.resetCounts();
      handled.clear();
      reader.listMs.length = 0;
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const { pairs: polls } = await enqueuePolls({ store, queue: running });
      await settled(running, { timeoutMs: 30 * 60_000 });
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      // The verifier runs on this process's thread: CPU time near the wall time says the poll is bound by this
      // machine's CPU, not by waiting.
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const { deadLetters } = running.stats();
      if (deadLetters > 0) throw new Error(`${which}: ${deadLetters} poll messages were dead-lettered`);
      if (polls !== clusterKinds.length) {
        throw new Error(`${which}: ${polls} polls enqueued, ${clusterKinds.length} expected`);
      }
      const perCluster = await fakes.requestCounts();
      checkOneListPerClusterKind(perCluster, kindsPerCluster, which);
      checkOneConnectionPerCluster(perCluster, which);
      return {
        connections: tlsConnections(perCluster),
        wallMs,
        cpuMs,
        counts: countRequests(perCluster),
        listP50Ms: percentile(reader.listMs, 50),
        dynamoOperations: dynamo.total(),
        dynamoUnits: dynamo.units(),
        messages: new Map(handled),
        dynamoByName: new Map(dynamo.operations),
        dynamoWrites: ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].reduce(
          (sum, name) => sum + (dynamo.operations.get(name) ?? 0),
          0,
        ),
      };
    };
    const first = await productPoll('first poll');
    const statuses = await store.getTargetStatuses(pipelinedTargets);
    const healthy = [...statuses.values()].filter((entry) => entry.status.phase === 'Ready').length;
    if (healthy !== pipelinedTargets.length) {
      throw new Error(`after the first poll ${healthy} of ${pipelinedTargets.length} targets are recorded healthy`);
    }
    const steady = await productPoll('steady poll');
    if (steady.dynamoWrites > 0) throw new Error(`the steady poll wrote ${steady.dynamoWrites} times`);
    checkSteadyPollReads(steady.dynamoByName, clusterKinds.length, pipelined.length, pipelinedTargets.length);
    await running.stop();
    if (process.env.BENCH_FLEET_FIGURES === '1') {
      const figuresOf = (poll: typeof first): PollFigures => ({
        lists: poll.counts.list,
        wallMs: poll.wallMs,
        cpuMs: poll.cpuMs,
        dynamoOperations: poll.dynamoOperations,
        dynamoWrites: poll.dynamoWrites,
        readUnits: poll.dynamoUnits.readUnits,
        writeUnits: poll.dynamoUnits.writeUnits,
        messages: Object.fromEntries(poll.messages),
      });
      const figures: FleetFigures = {
        clusters: CLUSTER_COUNT,
        pairs: clusterKinds.length,
        pipelines: pipelined.length,
        targets: pipelinedTargets.length,
        first: figuresOf(first),
        steady: figuresOf(steady),
      };
      console.log(`${FLEET_FIGURES_PREFIX}${JSON.stringify(figures)}`);
      return { title: 'Leaf-cluster load', measurements: [] };
    }

    // The Kubernetes side of one poll alone: a fresh reader LISTs every (cluster, kind), nothing else.
    const listReader = newReader();
    await fakes.resetRequests();
    let started = performance.now();
    await forEachLimited(clusterKinds, READ_CONCURRENCY, async ({ cluster, kind, namespaces }) => {
      await listReader.listApps(cluster, kind, namespaces);
    });
    const listOnlyMs = performance.now() - started;
    const listOnlyPerCluster = await fakes.requestCounts();
    checkOneListPerClusterKind(listOnlyPerCluster, kindsPerCluster, 'LIST-only pass');
    const listOnly = countRequests(listOnlyPerCluster);
    const listOnlyConnections = tlsConnections(listOnlyPerCluster);

    // The naive poll of the whole fleet: one GET per (pipeline, environment, target), a fresh reader, the same
    // concurrency and latency.
    const getReader = newReader();
    await fakes.resetRequests();
    started = performance.now();
    let missing = 0;
    await forEachLimited(allTargets, READ_CONCURRENCY, async (app) => {
      if ((await getReader.getApp(app)) === undefined) missing += 1;
    });
    const naiveMs = performance.now() - started;
    const naivePerCluster = await fakes.requestCounts();
    const naive = countRequests(naivePerCluster);
    const naiveConnections = tlsConnections(naivePerCluster);
    if (missing > 0 || naive.get !== allTargets.length) {
      throw new Error(`naive poll: ${naive.get} GETs for ${allTargets.length} targets, ${missing} objects not found`);
    }

    const fleet =
      `${CLUSTER_COUNT} clusters × ${APP_COUNT} apps (${APP_COUNT - KUSTOMIZATION_APPS} HelmReleases, ` +
      `${KUSTOMIZATION_APPS} Kustomizations), one pipeline per app × ${ENVIRONMENTS.length} environments × ` +
      `${clustersOf(0).length} clusters = ${formatNumber(allTargets.length)} targets, ` +
      `${formatNumber(clusterKinds.length)} (cluster, kind) pairs; ${LATENCY_MS} ms per API request`;
    const productFleet =
      `${pipelined.length} of the ${APP_COUNT} pipelines applied (${formatNumber(pipelinedTargets.length)} targets): ` +
      `the LISTs are the same, the store's work scales with pipelines × their targets`;
    const discovery = (counts: RequestCounts): string =>
      counts.discovery > 0 ? `; plus ${formatNumber(counts.discovery)} discovery GET /apis (cached for an hour)` : '';
    const naiveRequests = `naive GET poll: ${requestsText(naive)}`;
    const storeWork = (poll: typeof first): string =>
      `${formatNumber(poll.dynamoOperations)} DynamoDB operations (${formatNumber(poll.dynamoWrites)} writes) on ` +
      `dynalite: ${operationsText(poll.dynamoByName)}`;
    return {
      title: 'Leaf-cluster load',
      measurements: [
        {
          name: 'first poll: Kubernetes API requests',
          value: requestsText(first.counts),
          baseline: naiveRequests,
          ratio: `${formatRatio(naive.get, first.counts.list)} fewer`,
          note:
            `${fleet}; checked: 1 LIST per (cluster, kind), 0 GET, at most 1 TLS connection per cluster ` +
            `(${formatNumber(first.connections)})${discovery(first.counts)}`,
        },
        {
          name: 'steady poll (nothing changed): Kubernetes API requests',
          value: requestsText(steady.counts),
          baseline: naiveRequests,
          ratio: `${formatRatio(naive.get, steady.counts.list)} fewer`,
          note:
            `checked: 1 LIST per (cluster, kind), 0 GET, at most 1 TLS connection per cluster ` +
            `(${formatNumber(steady.connections)})` +
            discovery(steady.counts),
        },
        {
          name: 'the Kubernetes reads of one poll, wall time',
          value: `LIST every (cluster, kind): ${seconds(listOnlyMs)}`,
          baseline: `naive GET poll: ${seconds(naiveMs)}`,
          ratio: `${formatRatio(naiveMs, listOnlyMs)} faster`,
          note:
            `both through KubernetesClusterReader, ${READ_CONCURRENCY} in flight, fresh readers, clusters from memory (with ` +
            `${formatNumber(listOnly.discovery)} and ${formatNumber(naive.discovery)} discovery requests, ` +
            `${formatNumber(listOnlyConnections)} and ${formatNumber(naiveConnections)} TLS connections: kept alive, ` +
            `per cluster); the fake servers run in a process of their own`,
        },
        {
          name: 'first poll (every status new), product path, wall time',
          value: `${seconds(first.wallMs)} (${seconds(first.cpuMs)} of CPU)`,
          baseline: `its Kubernetes reads alone: ${seconds(listOnlyMs)}`,
          ratio: formatRatio(first.wallMs, listOnlyMs),
          note:
            `enqueue → queue settled; ${productFleet}; ${storeWork(first)} dominate; ` +
            `LIST p50 ${formatMs(first.listP50Ms)} as the verifier saw it`,
        },
        {
          name: 'steady poll (nothing changed), product path, wall time',
          value: `${seconds(steady.wallMs)} (${seconds(steady.cpuMs)} of CPU)`,
          baseline: `its Kubernetes reads alone: ${seconds(listOnlyMs)}`,
          ratio: formatRatio(steady.wallMs, listOnlyMs),
          note: `enqueue → queue settled; ${storeWork(steady)}; LIST p50 ${formatMs(steady.listP50Ms)}`,
        },
        {
          name: 'setup (not measured above)',
          value: seconds(setupMs),
          note:
            `${CLUSTER_COUNT} fake HTTPS API servers in a process of their own (started in ${seconds(fakesMs)}), ` +
            `${formatNumber(CLUSTER_COUNT * APP_COUNT)} objects, clusters and pipelines applied to the store`,
        },
      ],
    };
  } finally {
    await queue?.stop();
    await fakes.stop();
    await dynamo.stop();
  }
};

await runIfMain(import.meta.url, benchLeafClusterLoad);
