// TLS connections and API discovery requests on the leaf clusters' API servers, counted by the fake servers
// (`FakeKubeApi.tlsConnections`: completed TLS handshakes; `count('discovery')`), through the real
// KubernetesClusterReader (@kubernetes/client-node over HTTPS) against one fake API server per cluster answering after
// LATENCY_MS:
//
// 1. One poll's reads: a fresh reader LISTs every (cluster, kind) of CLUSTER_COUNT clusters, READ_CONCURRENCY in
//    flight (the verifier's batch of 10 poll messages). CHECKED: each cluster saw at most as many connections as its
//    kinds (the requests it can have in flight at once) and exactly one discovery request.
// 2. CHECKS checks of one cluster (one GET each, as the verifier reads the app of a check-app message), one at a time
//    and READ_CONCURRENCY at a time. CHECKED: one connection for the sequential run, at most READ_CONCURRENCY for the
//    other.
// 3. Discovery: every read of CLUSTER_COUNT clusters (a LIST of each kind and a GET) started at once on one reader.
//    CHECKED: exactly one discovery request per cluster.
//
// Baselines, in the same run: for 1 and 2, the same requests through client-node's own API clients
// (`KubeConfig.makeApiClient`, which builds an https.Agent per request): CHECKED to open one connection per request,
// the premise of this measure. For 3, the same reads with a reader per read, each discovering for itself.
import { ApisApi, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { KubernetesClusterReader } from '../lib/clusters/index.js';
import type { AppKind } from '../lib/config/schema.js';
import type { AppKey, ObjectKey } from '../lib/pipeline/model.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { FakeKubeApi } from '../lib/testing/fake-kube-api.js';
import { helmRelease, kustomization } from '../test/fixtures/flux-objects.js';
import { formatNumber, formatRatio, runIfMain, type Bench, type BenchSection } from './report.js';

/** Leaf clusters, each its own fake API server. `BENCH_CONNECTION_CLUSTERS` overrides it for a quick trial. */
const CLUSTER_COUNT = Number(process.env.BENCH_CONNECTION_CLUSTERS ?? 200);
/** Objects on every cluster: HelmReleases in `apps`, Kustomizations in `flux-system` (2 kinds per cluster). */
const HELM_RELEASES = 40;
const KUSTOMIZATIONS = 10;
const KINDS: readonly AppKind[] = ['HelmRelease', 'Kustomization'];
/** Checks of one cluster. */
const CHECKS = 100;
/** Reads in flight at once: the verifier's batch of 10 messages handled in parallel. */
const READ_CONCURRENCY = 10;
/** Injected before every answer of every fake API server. */
const LATENCY_MS = 20;
const NS = 'flux-system';

const clusterName = (index: number): string => `leaf-${String(index).padStart(3, '0')}`;
const clusterKey = (index: number): ObjectKey => ({ namespace: NS, name: clusterName(index) });
const checkedApp = (cluster: ObjectKey, index: number): AppKey => ({
  cluster,
  kind: 'HelmRelease',
  namespace: 'apps',
  name: `app-${String(index % HELM_RELEASES).padStart(2, '0')}`,
});

/** Runs `work` over `items`, `limit` at once. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

interface Counted {
  connections: number;
  requests: number;
  discovery: number;
  /** The most connections one cluster saw. */
  mostPerCluster: number;
}

/** Counts what the fakes saw during `run`, from zero. */
async function counted(fakes: readonly FakeKubeApi[], run: () => Promise<void>): Promise<Counted> {
  for (const fake of fakes) fake.resetRequests();
  await run();
  const sum = (count: (fake: FakeKubeApi) => number) => fakes.reduce((total, fake) => total + count(fake), 0);
  return {
    connections: sum((fake) => fake.tlsConnections),
    requests: sum((fake) => fake.count()),
    discovery: sum((fake) => fake.count('discovery')),
    mostPerCluster: Math.max(0, ...fakes.map((fake) => fake.tlsConnections)),
  };
}

/** client-node's own API clients for a fake, as `kc.makeApiClient` builds them: an https.Agent per request. */
function stockClients(fake: FakeKubeApi): { customObjects: CustomObjectsApi; apis: ApisApi } {
  const kc = new KubeConfig();
  kc.loadFromString(fake.kubeconfig());
  return { customObjects: kc.makeApiClient(CustomObjectsApi), apis: kc.makeApiClient(ApisApi) };
}

const LIST_PATHS: Readonly<Record<AppKind, { group: string; version: string; plural: string }>> = {
  HelmRelease: { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases' },
  Kustomization: { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations' },
};

function checkPerRequestBaseline(which: string, baseline: Counted): void {
  if (baseline.connections !== baseline.requests) {
    throw new Error(
      `${which}: client-node's own clients opened ${baseline.connections} connections for ${baseline.requests} ` +
        'requests; the baseline "one connection per request" no longer holds',
    );
  }
}

const connectionsText = (counts: Counted): string =>
  `${formatNumber(counts.connections)} TLS connection${counts.connections === 1 ? '' : 's'} for ` +
  `${formatNumber(counts.requests)} requests`;

export const benchLeafClusterConnections: Bench = async (): Promise<BenchSection> => {
  const fakes: FakeKubeApi[] = [];
  try {
    const secrets = new StaticSecretSource();
    for (let index = 0; index < CLUSTER_COUNT; index++) {
      const fake = await new FakeKubeApi().start();
      fakes.push(fake);
      for (let app = 0; app < HELM_RELEASES; app++) {
        fake.put(helmRelease({ metadata: { name: `app-${String(app).padStart(2, '0')}` } }));
      }
      for (let app = 0; app < KUSTOMIZATIONS; app++) fake.put(kustomization({ metadata: { name: `platform-${app}` } }));
      secrets.set({ namespace: NS, name: `${clusterName(index)}-kubeconfig` }, { value: fake.kubeconfig() });
      fake.latencyMs = LATENCY_MS;
    }
    const newReader = () =>
      new KubernetesClusterReader({
        getCluster: (key) =>
          Promise.resolve({
            apiVersion: 'gitops.weave.works/v1alpha1',
            kind: 'GitopsCluster',
            metadata: { namespace: key.namespace, name: key.name },
            spec: { secretRef: { name: `${key.name}-kubeconfig` } },
          }),
        secrets,
      });
    const clusterKinds = fakes.flatMap((_, index) => KINDS.map((kind) => ({ index, kind })));

    // 1. One poll's reads.
    let reader = newReader();
    const poll = await counted(fakes, () =>
      forEachLimited(clusterKinds, READ_CONCURRENCY, async ({ index, kind }) => {
        await reader.listApps(clusterKey(index), kind, []);
      }),
    );
    const overPoll = fakes.flatMap((fake, index) =>
      fake.tlsConnections <= KINDS.length && fake.count('discovery') === 1
        ? []
        : [`${clusterName(index)}: ${fake.tlsConnections} connections, ${fake.count('discovery')} discovery requests`],
    );
    if (overPoll.length > 0) {
      throw new Error(
        `one poll: the target "at most ${KINDS.length} connections (its kinds) and 1 discovery request per cluster" ` +
          `is not met: ${overPoll.slice(0, 5).join('; ')}${overPoll.length > 5 ? `; and ${overPoll.length - 5} more` : ''}`,
      );
    }
    const stock = fakes.map(stockClients);
    const stockPoll = await counted(fakes, async () => {
      const discovered = new Map<number, Promise<unknown>>();
      await forEachLimited(clusterKinds, READ_CONCURRENCY, async ({ index, kind }) => {
        const clients = stock[index];
        if (!clients) throw new Error(`no client for cluster ${index}`);
        if (!discovered.has(index)) discovered.set(index, clients.apis.getAPIVersions());
        await discovered.get(index);
        await clients.customObjects.listClusterCustomObject({ ...LIST_PATHS[kind], limit: 500 });
      });
    });
    checkPerRequestBaseline('one poll', stockPoll);

    // 2. Checks of one cluster.
    const [checkedFake] = fakes;
    const [checkedStock] = stock;
    if (!checkedFake || !checkedStock) throw new Error('no cluster');
    const checks = Array.from({ length: CHECKS }, (_, index) => checkedApp(clusterKey(0), index));
    reader = newReader();
    const sequential = await counted([checkedFake], async () => {
      for (const app of checks) await reader.getApp(app);
    });
    if (sequential.connections !== 1) {
      throw new Error(`${CHECKS} checks one at a time: ${sequential.connections} TLS connections, 1 expected`);
    }
    reader = newReader();
    const parallel = await counted([checkedFake], () =>
      forEachLimited(checks, READ_CONCURRENCY, async (app) => {
        await reader.getApp(app);
      }),
    );
    if (parallel.connections > READ_CONCURRENCY) {
      throw new Error(
        `${CHECKS} checks, ${READ_CONCURRENCY} in flight: ${parallel.connections} TLS connections, at most ` +
          `${READ_CONCURRENCY} expected`,
      );
    }
    const stockSequential = await counted([checkedFake], async () => {
      await checkedStock.apis.getAPIVersions();
      for (const app of checks) {
        await checkedStock.customObjects.getNamespacedCustomObject({ ...LIST_PATHS.HelmRelease, ...app });
      }
    });
    checkPerRequestBaseline(`${CHECKS} checks`, stockSequential);
    const stockParallel = await counted([checkedFake], async () => {
      await checkedStock.apis.getAPIVersions();
      await forEachLimited(checks, READ_CONCURRENCY, async (app) => {
        await checkedStock.customObjects.getNamespacedCustomObject({ ...LIST_PATHS.HelmRelease, ...app });
      });
    });
    checkPerRequestBaseline(`${CHECKS} checks, ${READ_CONCURRENCY} in flight`, stockParallel);

    // 3. Discovery, every read at once: on one reader, then on a reader per read.
    const allReads = (readerOf: () => KubernetesClusterReader): Promise<unknown>[] =>
      fakes.flatMap((_, index) => [
        ...KINDS.map((kind) => readerOf().listApps(clusterKey(index), kind, [])),
        readerOf().getApp(checkedApp(clusterKey(index), 0)),
      ]);
    const readsPerCluster = KINDS.length + 1;
    reader = newReader();
    const shared = await counted(fakes, async () => {
      await Promise.all(allReads(() => reader));
    });
    const notOnce = fakes.flatMap((fake, index) =>
      fake.count('discovery') === 1 ? [] : [`${clusterName(index)}: ${fake.count('discovery')}`],
    );
    if (notOnce.length > 0) {
      throw new Error(
        `${CLUSTER_COUNT} clusters read at once: ${shared.discovery} discovery requests, ${CLUSTER_COUNT} expected ` +
          `(${notOnce.slice(0, 5).join('; ')}${notOnce.length > 5 ? `; and ${notOnce.length - 5} more` : ''})`,
      );
    }
    const unshared = await counted(fakes, async () => {
      await Promise.all(allReads(newReader));
    });

    const fleet = `${CLUSTER_COUNT} clusters × ${KINDS.length} kinds, ${LATENCY_MS} ms per API request`;
    return {
      title: 'Leaf-cluster connections',
      measurements: [
        {
          name: `one poll (LIST every (cluster, kind), ${READ_CONCURRENCY} in flight): TLS connections`,
          value: `${connectionsText(poll)}; at most ${poll.mostPerCluster} per cluster`,
          baseline: `client-node's agent per request: ${connectionsText(stockPoll)}`,
          ratio: `${formatRatio(stockPoll.connections, poll.connections)} fewer`,
          note:
            `${fleet}; checked: ≤ ${KINDS.length} per cluster (its kinds, read at once), 1 discovery request per ` +
            `cluster (${formatNumber(poll.discovery)} in all); checked: the baseline opens one per request`,
        },
        {
          name: `${CHECKS} checks of one cluster (a GET each), one at a time: TLS connections`,
          value: connectionsText(sequential),
          baseline: `client-node's agent per request: ${connectionsText(stockSequential)}`,
          ratio: `${formatRatio(stockSequential.connections, sequential.connections)} fewer`,
          note: 'checked: 1 connection, kept alive; checked: the baseline opens one per request',
        },
        {
          name: `${CHECKS} checks of one cluster, ${READ_CONCURRENCY} in flight: TLS connections`,
          value: connectionsText(parallel),
          baseline: `client-node's agent per request: ${connectionsText(stockParallel)}`,
          ratio: `${formatRatio(stockParallel.connections, parallel.connections)} fewer`,
          note: `checked: ≤ ${READ_CONCURRENCY} (the requests in flight at once); checked: the baseline opens one per request`,
        },
        {
          name: `API discovery requests, ${CLUSTER_COUNT} clusters read at once (${readsPerCluster} reads each)`,
          value: formatNumber(shared.discovery),
          baseline: `a discovery per read (a reader per read): ${formatNumber(unshared.discovery)}`,
          ratio: `${formatRatio(unshared.discovery, shared.discovery)} fewer`,
          note: 'checked: exactly 1 per cluster; concurrent reads of a cluster share its discovery in flight',
        },
      ],
    };
  } finally {
    for (const fake of fakes) await fake.stop();
  }
};

await runIfMain(import.meta.url, benchLeafClusterConnections);
