// Targets chosen by cluster labels at fleet size (docs/configuration.md, "Targets chosen by cluster labels"), part of the
// leaf-cluster benchmark (bench/leaf-cluster-load.ts runs it after the fleet poll and adds its rows):
//
// 1. One poll of one pipeline whose environment selects SELECTION_CLUSTERS clusters by label: the clusters and the
//    pipeline are applied through `pipelinectl apply`'s action (applyConfiguration) on the DynamoDB store (dynalite),
//    each cluster is a fake Kubernetes API server, and the real poller, embedded queue, verifier and client-node
//    reader poll them. CHECKED: exactly one LIST per (cluster, kind) and no GET on every cluster, every target then
//    recorded Ready; a second, steady poll writes nothing.
// 2. Relabelling one cluster (applying that one GitopsCluster with other labels, so that it leaves, then joins again,
//    the environments that select it), on fleets of SMALL_FLEET and SELECTION_CLUSTERS clusters, with 0, 1 and 5
//    pipelines selecting it (and BYSTANDERS pipelines that select other clusters). DynamoDB write requests and the
//    items they write are counted at the client. CHECKED: the same at both fleet sizes (the writes do not grow with the
//    fleet), and linear in the selecting pipelines (w(P) = w(0) + P × (w(1) − w(0))).
//
// The capacity units of those writes (as dynalite reports them through ReturnConsumedCapacity, DynamoDB's 1 KB units)
// and the reads of the apply are reported beside them, unchecked: a selecting pipeline's definition is one item that
// is written whole, so its units grow with the targets it selects, and `apply` reads every stored object first.
import { applyConfiguration } from '../lib/apply/apply.js';
import type { Backend } from '../lib/cli/backend.js';
import { KubernetesClusterReader } from '../lib/clusters/index.js';
import type { AppKey, ObjectKey } from '../lib/pipeline/model.js';
import { enqueuePolls } from '../lib/poller/poller.js';
import { RecordingPromoter } from '../lib/testing/recording-promoter.js';
import type { QueueMessage } from '../lib/queue/messages.js';
import { EmbeddedQueue } from '../lib/queue/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { createDynamoStore } from '../lib/store/index.js';
import type { Store } from '../lib/store/port.js';
import { FakeKubeApi } from '../lib/testing/fake-kube-api.js';
import { createVerifier } from '../lib/verifier/index.js';
import { deployed, settled } from '../test/loop/harness.js';
import { startDynalite } from '../test/support/dynalite.js';
import { formatNumber, formatRatio, runIfMain, type Bench, type Measurement } from './report.js';
import { silentLogger } from '../lib/logging/logger.js';

/** The fleet one pipeline selects, each cluster its own fake API server. `BENCH_SELECTION_CLUSTERS` overrides it. */
const SELECTION_CLUSTERS = Number(process.env.BENCH_SELECTION_CLUSTERS ?? 500);
/** The smaller fleet the relabelling is measured on too. */
const SMALL_FLEET = Math.min(SELECTION_CLUSTERS, Number(process.env.BENCH_SELECTION_SMALL_FLEET ?? 100));
/** The most pipelines selecting the relabelled cluster in a relabelling run. */
const MOST_SELECTING = 5;
/** How many pipelines select the relabelled cluster, in the relabelling runs. */
const SELECTING = [0, 1, 2, MOST_SELECTING] as const;
/** Pipelines that select other clusters (`ring: canary`, which the relabelled cluster never has): never written. */
const BYSTANDERS = 5;
const CANARY_CLUSTERS = 10;
/** Injected before every answer of every fake API server, as in the fleet poll. */
const LATENCY_MS = 20;
const NS = 'flux-system';
const APP = 'web';
const APP_NAMESPACE = 'apps';
const VERSION = '1.4.2';
/** The cluster relabelled: `tier: prod` → `tier: retired` (leaves) → `tier: prod` (joins). */
const RELABELLED = 0;

const clusterName = (index: number): string => `leaf-${String(index).padStart(3, '0')}`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------- the configuration, as a user would apply it

type ClusterAccess = 'kubeconfig' | 'eks';

function clusterYaml(index: number, labels: Record<string, string>, access: ClusterAccess): string {
  const name = clusterName(index);
  const spec =
    access === 'kubeconfig'
      ? `{secretRef: {name: ${name}-kubeconfig}}`
      : `{eks: {clusterName: ${name}, region: eu-west-1}}`;
  return `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: ${NS}, labels: ${JSON.stringify(labels)}}
spec: ${spec}
`;
}

/** Every cluster is `tier: prod`; the CANARY_CLUSTERS after the relabelled one are also `ring: canary`. */
function labelsOf(index: number): Record<string, string> {
  const canary = index > RELABELLED && index <= RELABELLED + CANARY_CLUSTERS;
  return { tier: 'prod', ...(canary ? { ring: 'canary' } : {}) };
}

/** A pipeline whose one environment is every cluster the labels select. */
function selectingPipelineYaml(name: string, labels: Record<string, string>): string {
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: ${NS}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${APP}}
  environments:
    - name: prod
      targetSelector: {clusterSelector: {matchLabels: ${JSON.stringify(labels)}}, namespace: ${APP_NAMESPACE}}
  promotion: {strategy: {notification: {}}}
`;
}

// ---------------------------------------------------------------- the store, counted at the client

interface StoreCounts {
  /** PutItem, UpdateItem, DeleteItem and BatchWriteItem requests. */
  writeRequests: number;
  /** Items those requests write or delete (a BatchWriteItem counts each of its items). */
  writtenItems: number;
  /** Write capacity units, as dynalite reports them (1 KB units of the larger of the old and new item). */
  writeUnits: number;
  readRequests: number;
  readUnits: number;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

interface CountedStore {
  store: Store;
  counts: StoreCounts;
  reset(): void;
  stop(): Promise<void>;
}

async function startCountedStore(): Promise<CountedStore> {
  // With the SDK's retries, as bench/dynamo.ts explains (dynalite closes idle keep-alive sockets).
  const dynamo = await startDynalite({ sdkRetries: true });
  const counts: StoreCounts = { writeRequests: 0, writtenItems: 0, writeUnits: 0, readRequests: 0, readUnits: 0 };
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as { ReturnConsumedCapacity?: string; RequestItems?: Record<string, unknown[]> };
      input.ReturnConsumedCapacity = 'TOTAL';
      const isWrite = WRITES.has(operation);
      if (isWrite) {
        counts.writeRequests += 1;
        counts.writtenItems +=
          operation === 'BatchWriteItem'
            ? Object.values(input.RequestItems ?? {}).reduce((sum, items) => sum + items.length, 0)
            : 1;
      } else {
        counts.readRequests += 1;
      }
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
        (sum: number, entry) => sum + ((entry as { CapacityUnits?: number }).CapacityUnits ?? 0),
        0,
      );
      if (isWrite) counts.writeUnits += units;
      else counts.readUnits += units;
      return result;
    },
    { step: 'initialize', name: 'benchCountStore' },
  );
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    counts,
    reset: () => {
      counts.writeRequests = 0;
      counts.writtenItems = 0;
      counts.writeUnits = 0;
      counts.readRequests = 0;
      counts.readUnits = 0;
    },
    stop: () => dynamo.stop(),
  };
}

/** What `pipelinectl apply` acts on: the store, Secrets in memory, the verifier's checks recorded (not delivered). */
function applyBackend(store: Store, sent: QueueMessage[], secrets = new Map<string, Record<string, string>>()) {
  const id = (key: ObjectKey) => `${key.namespace}/${key.name}`;
  const backend: Backend = {
    description: 'benchmark table on dynalite',
    store,
    putSecret: (key, values) => Promise.resolve(void secrets.set(id(key), { ...values })),
    secretKeys: (key) => {
      const values = secrets.get(id(key));
      return Promise.resolve(values && Object.keys(values));
    },
    enqueue: (message) => Promise.resolve(sent.push(message) > 0),
    masterKeys: () => Promise.reject(new Error('no master keys in this benchmark')),
    identity: () => Promise.resolve('bench'),
    close: () => Promise.resolve(),
  };
  return { backend, secrets };
}

async function apply(backend: Backend, text: string, file: string): Promise<string[]> {
  const result = await applyConfiguration(backend, { source: { text, file } });
  if (!result.ok) throw new Error(`${file}: apply refused the configuration:\n${result.problems.join('\n')}`);
  return result.lines;
}

// ---------------------------------------------------------------- 1. one poll of one pipeline selecting the fleet

interface SelectionPoll {
  polls: number;
  lists: number;
  gets: number;
  discovery: number;
  wallMs: number;
  operations: StoreCounts;
  steadyWallMs: number;
  steadyOperations: StoreCounts;
  setupMs: number;
}

async function pollSelectedFleet(): Promise<SelectionPoll> {
  const setupStarted = performance.now();
  const counted = await startCountedStore();
  const { store } = counted;
  const fakes: FakeKubeApi[] = [];
  let queue: EmbeddedQueue | undefined;
  try {
    const sent: QueueMessage[] = [];
    const { backend } = applyBackend(store, sent);
    const secrets = new StaticSecretSource();
    for (let index = 0; index < SELECTION_CLUSTERS; index++) {
      const fake = await new FakeKubeApi().start();
      fakes.push(fake);
      const object = deployed(VERSION, APP_NAMESPACE) as { metadata: { name: string } };
      object.metadata.name = APP;
      fake.put(object);
      // The kubeconfig Secrets as `apply` would have stored them earlier (the verifier reads them from its source).
      const secret = { namespace: NS, name: `${clusterName(index)}-kubeconfig` };
      await backend.putSecret(secret, { value: fake.kubeconfig() }, ['kubeconfig']);
      secrets.set(secret, { value: fake.kubeconfig() });
    }
    const clusters = Array.from({ length: SELECTION_CLUSTERS }, (_, index) =>
      clusterYaml(index, labelsOf(index), 'kubeconfig'),
    );
    await apply(backend, [...clusters, selectingPipelineYaml(APP, { tier: 'prod' })].join('---\n'), 'fleet.yaml');
    const selected = (await store.getPipeline({ namespace: NS, name: APP }))?.pipeline.environments[0]?.targets;
    if (selected?.length !== SELECTION_CLUSTERS) {
      throw new Error(`the pipeline selects ${selected?.length} clusters, ${SELECTION_CLUSTERS} expected`);
    }
    for (const fake of fakes) fake.latencyMs = LATENCY_MS;
    const setupMs = performance.now() - setupStarted;

    const running = new EmbeddedQueue({ visibilityTimeoutSeconds: 360, logger: silentLogger });
    queue = running;
    const verifier = createVerifier({
      store,
      queue: running,
      clusters: new KubernetesClusterReader({
        getCluster: async (key) => (await store.getCluster(key))?.document,
        secrets,
      }),
      promoter: new RecordingPromoter(),
      logger: silentLogger,
      now: () => new Date(),
      workerId: 'bench',
    });
    running.start(verifier, { batchSize: 10, pollIntervalMs: 5 });

    const poll = async (which: string) => {
      for (const fake of fakes) fake.resetRequests();
      counted.reset();
      const started = performance.now();
      const { pairs: polls } = await enqueuePolls({ store, queue: running });
      await settled(running, { timeoutMs: 30 * 60_000 });
      const wallMs = performance.now() - started;
      if (running.stats().deadLetters > 0) throw new Error(`${which}: poll messages were dead-lettered`);
      if (polls !== SELECTION_CLUSTERS) throw new Error(`${which}: ${polls} polls, ${SELECTION_CLUSTERS} expected`);
      const wrong = fakes.flatMap((fake, index) => {
        const lists = fake.count('list');
        const gets = fake.count('get');
        return lists === 1 && gets === 0 ? [] : [`${clusterName(index)}: ${lists} LIST, ${gets} GET`];
      });
      if (wrong.length > 0) {
        throw new Error(
          `${which}: the target "exactly one LIST per (cluster, kind) per poll, no GET" is not met for a pipeline ` +
            `selecting ${SELECTION_CLUSTERS} clusters: ${wrong.slice(0, 5).join('; ')}` +
            (wrong.length > 5 ? `; and ${wrong.length - 5} more clusters` : ''),
        );
      }
      const count = (type: 'list' | 'get' | 'discovery') => fakes.reduce((sum, fake) => sum + fake.count(type), 0);
      return {
        polls,
        lists: count('list'),
        gets: count('get'),
        discovery: count('discovery'),
        wallMs,
        operations: { ...counted.counts },
      };
    };
    const first = await poll('first poll of the selected fleet');
    const targets: AppKey[] = selected.map((target) => ({
      cluster: target.cluster,
      kind: 'HelmRelease',
      namespace: APP_NAMESPACE,
      name: APP,
    }));
    const statuses = await store.getTargetStatuses(targets);
    const healthy = [...statuses.values()].filter((entry) => entry.status.phase === 'Ready').length;
    if (healthy !== SELECTION_CLUSTERS) {
      throw new Error(`after the first poll ${healthy} of ${SELECTION_CLUSTERS} selected targets are recorded Ready`);
    }
    const steady = await poll('steady poll of the selected fleet');
    if (steady.operations.writeRequests > 0) {
      throw new Error(`the steady poll of the selected fleet wrote ${steady.operations.writeRequests} times`);
    }
    return {
      ...first,
      steadyWallMs: steady.wallMs,
      steadyOperations: steady.operations,
      setupMs,
    };
  } finally {
    await queue?.stop();
    for (const fake of fakes) await fake.stop();
    await counted.stop();
  }
}

// ---------------------------------------------------------------- 2. relabelling one cluster

interface RelabelCost {
  clusters: number;
  selecting: number;
  leave: StoreCounts;
  join: StoreCounts;
  /** The verifier checks the relabelling asked for (one per pipeline whose targets changed). */
  checks: number;
}

async function relabelOneCluster(clusters: number, selecting: number): Promise<RelabelCost> {
  const counted = await startCountedStore();
  try {
    const sent: QueueMessage[] = [];
    const { backend } = applyBackend(counted.store, sent);
    const documents = [
      ...Array.from({ length: clusters }, (_, index) => clusterYaml(index, labelsOf(index), 'eks')),
      ...Array.from({ length: selecting }, (_, i) => selectingPipelineYaml(`selecting-${i}`, { tier: 'prod' })),
      ...Array.from({ length: BYSTANDERS }, (_, i) => selectingPipelineYaml(`bystander-${i}`, { ring: 'canary' })),
    ];
    await apply(backend, documents.join('---\n'), 'fleet.yaml');

    const relabel = async (labels: Record<string, string>, joined: number, left: number): Promise<StoreCounts> => {
      counted.reset();
      sent.length = 0;
      const lines = await apply(backend, clusterYaml(RELABELLED, labels, 'eks'), 'relabel.yaml');
      const expected = [
        `gitopscluster ${NS}/${clusterName(RELABELLED)} configured`,
        ...Array.from(
          { length: selecting },
          (_, i) =>
            `pipeline ${NS}/selecting-${i} configured (targets selected by cluster labels: ${joined} joined, ${left} left)`,
        ),
      ];
      if (lines.join('\n') !== expected.join('\n')) {
        throw new Error(`relabelling printed:\n${lines.join('\n')}\ninstead of:\n${expected.join('\n')}`);
      }
      if (sent.length !== selecting)
        throw new Error(`relabelling asked for ${sent.length} checks, ${selecting} expected`);
      return { ...counted.counts };
    };
    const leave = await relabel({ tier: 'retired' }, 0, 1);
    const join = await relabel(labelsOf(RELABELLED), 1, 0);
    return { clusters, selecting, leave, join, checks: sent.length };
  } finally {
    await counted.stop();
  }
}

/**
 * Relabelling's writes as a line in the selecting pipelines P: `none` with no pipeline (the cluster itself), and for
 * P ≥ 1 `none + once + P × perPipeline`, where `once` is what happens once whatever P (the (cluster, kind) leaves
 * the poll, or joins it). Fitted on P = 1 and 2; checkRelabelling checks the other points lie on it.
 */
function linearFit(writes: (selecting: number) => number): { none: number; once: number; perPipeline: number } {
  const none = writes(0);
  const perPipeline = writes(2) - writes(1);
  return { none, once: writes(1) - none - perPipeline, perPipeline };
}

/** Throws unless relabelling writes the same on both fleets, and linearly in the selecting pipelines. */
function checkRelabelling(costs: readonly RelabelCost[]): void {
  const problems: string[] = [];
  const at = (clusters: number, selecting: number) =>
    costs.find((cost) => cost.clusters === clusters && cost.selecting === selecting);
  for (const direction of ['leave', 'join'] as const) {
    for (const selecting of SELECTING) {
      const small = at(SMALL_FLEET, selecting)?.[direction];
      const large = at(SELECTION_CLUSTERS, selecting)?.[direction];
      if (!small || !large) continue;
      if (large.writeRequests > small.writeRequests || large.writtenItems > small.writtenItems) {
        problems.push(
          `${direction}, ${selecting} selecting: ${large.writeRequests} write requests (${large.writtenItems} items) at ` +
            `${SELECTION_CLUSTERS} clusters, ${small.writeRequests} (${small.writtenItems}) at ${SMALL_FLEET}: ` +
            'the writes grow with the fleet',
        );
      }
    }
    for (const clusters of [SMALL_FLEET, SELECTION_CLUSTERS]) {
      const writes = (selecting: number) => at(clusters, selecting)?.[direction].writeRequests ?? Number.NaN;
      const line = linearFit(writes);
      for (const selecting of SELECTING) {
        const expected = selecting === 0 ? line.none : line.none + line.once + selecting * line.perPipeline;
        if (writes(selecting) !== expected || line.perPipeline < 1) {
          problems.push(
            `${direction}, ${clusters} clusters: ${writes(selecting)} write requests with ${selecting} selecting ` +
              `pipelines, ${expected} expected (${line.none} + ${line.once} + ${selecting} × ${line.perPipeline}): ` +
              'not proportional to the selecting pipelines',
          );
        }
      }
    }
  }
  if (problems.length > 0) throw new Error(`relabelling one cluster: ${problems.join('; ')}`);
}

// ---------------------------------------------------------------- the rows

export async function measureLabelSelection(): Promise<Measurement[]> {
  const polled = await pollSelectedFleet();
  const costs: RelabelCost[] = [];
  for (const clusters of [SMALL_FLEET, SELECTION_CLUSTERS]) {
    for (const selecting of SELECTING) costs.push(await relabelOneCluster(clusters, selecting));
  }
  checkRelabelling(costs);

  const at = (clusters: number, selecting: number): RelabelCost => {
    const cost = costs.find((each) => each.clusters === clusters && each.selecting === selecting);
    if (!cost) throw new Error(`no relabelling measured for ${clusters} clusters, ${selecting} selecting`);
    return cost;
  };
  const large = (selecting: number) => at(SELECTION_CLUSTERS, selecting);
  const small = (selecting: number) => at(SMALL_FLEET, selecting);
  const fitOf = (direction: 'leave' | 'join') => {
    const { none, once, perPipeline } = linearFit((selecting) => large(selecting)[direction].writeRequests);
    return `${none} + ${perPipeline} per selecting pipeline` + (once > 0 ? ` + ${once} once` : '');
  };
  const most = MOST_SELECTING;
  const list = (pick: (selecting: number) => number) => SELECTING.map((selecting) => formatNumber(pick(selecting)));
  const writesText = (cost: (selecting: number) => RelabelCost, direction: 'leave' | 'join') =>
    `${list((selecting) => cost(selecting)[direction].writeRequests).join(' / ')} write requests ` +
    `(${list((selecting) => cost(selecting)[direction].writtenItems).join(' / ')} items)`;
  const unitsText = (cost: (selecting: number) => RelabelCost, direction: 'leave' | 'join') =>
    list((selecting) => Math.round(cost(selecting)[direction].writeUnits)).join(' / ');
  const readsText = (cost: RelabelCost) =>
    `${formatNumber(cost.leave.readRequests)} read requests (${formatNumber(Math.round(cost.leave.readUnits))} RCU)`;
  const storeWork = (counts: StoreCounts) =>
    `${formatNumber(counts.readRequests + counts.writeRequests)} DynamoDB requests ` +
    `(${formatNumber(counts.writeRequests)} writes; ${formatNumber(Math.round(counts.readUnits))} RCU)`;
  const pipelines = SELECTING.join(' / ');

  return [
    {
      name: `one pipeline selecting ${formatNumber(SELECTION_CLUSTERS)} clusters by label, first poll: Kubernetes API requests`,
      value: `${formatNumber(polled.lists + polled.gets)} requests (${formatNumber(polled.lists)} LIST, ${formatNumber(polled.gets)} GET)`,
      baseline: `(cluster, kind) pairs selected: ${formatNumber(polled.polls)}`,
      ratio: `${formatRatio(polled.lists, polled.polls)} LIST per pair`,
      note:
        `targetSelector {tier: prod} over ${formatNumber(SELECTION_CLUSTERS)} labelled GitopsClusters, applied with ` +
        `apply's action; checked: 1 LIST per (cluster, kind), 0 GET, every target then recorded Ready` +
        (polled.discovery > 0 ? `; plus ${formatNumber(polled.discovery)} discovery GET /apis (cached 10 min)` : '') +
        `; ${LATENCY_MS} ms per API request; product path enqueue → settled ${seconds(polled.wallMs)}, ` +
        `${storeWork(polled.operations)}; the steady poll after it: ${seconds(polled.steadyWallMs)}, ` +
        `${storeWork(polled.steadyOperations)}, checked 0 writes; setup ${seconds(polled.setupMs)}`,
    },
    {
      name:
        `relabelling one cluster so that it leaves the ${pipelines} pipelines selecting it: DynamoDB writes, ` +
        `${formatNumber(SELECTION_CLUSTERS)} clusters`,
      value: writesText(large, 'leave'),
      baseline: `${formatNumber(SMALL_FLEET)} clusters: ${writesText(small, 'leave')}`,
      ratio: `${formatRatio(large(most).leave.writeRequests, small(most).leave.writeRequests)} (same)`,
      note:
        `checked: the same on both fleets, and ${fitOf('leave')} (deleting the cluster's poll entry with its last ` +
        `pipeline); ` +
        `${BYSTANDERS} pipelines selecting other clusters are not written; apply of one GitopsCluster; ` +
        `write capacity units ${unitsText(large, 'leave')} at ${formatNumber(SELECTION_CLUSTERS)} clusters, ` +
        `${unitsText(small, 'leave')} at ${formatNumber(SMALL_FLEET)} (a pipeline's definition is one item written ` +
        `whole: its units grow with the targets it selects); the apply's reads: ${readsText(large(most))} at ` +
        `${formatNumber(SELECTION_CLUSTERS)} clusters, ${readsText(small(most))} at ${formatNumber(SMALL_FLEET)} ` +
        `(it reads every stored object); ${formatNumber(large(most).checks)} verifier checks`,
    },
    {
      name:
        `relabelling one cluster so that it joins the ${pipelines} pipelines selecting it: DynamoDB writes, ` +
        `${formatNumber(SELECTION_CLUSTERS)} clusters`,
      value: writesText(large, 'join'),
      baseline: `${formatNumber(SMALL_FLEET)} clusters: ${writesText(small, 'join')}`,
      ratio: `${formatRatio(large(most).join.writeRequests, small(most).join.writeRequests)} (same)`,
      note:
        `checked: the same on both fleets, and ${fitOf('join')}; write capacity units ${unitsText(large, 'join')} at ${formatNumber(SELECTION_CLUSTERS)} clusters, ` +
        `${unitsText(small, 'join')} at ${formatNumber(SMALL_FLEET)}`,
    },
  ];
}

/** Run alone (`npx tsx bench/leaf-cluster-selection.ts`): only these rows. */
const benchLabelSelection: Bench = async () => ({
  title: 'Leaf-cluster load, targets chosen by cluster labels',
  measurements: await measureLabelSelection(),
});

await runIfMain(import.meta.url, benchLabelSelection);
