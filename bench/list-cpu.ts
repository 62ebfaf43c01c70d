// What one poll LIST costs the verifier's CPU, for the Lambda duration of bench/fleet-scaling.ts: the product's
// Kubernetes reader (the real @kubernetes/client-node) LISTs a (cluster, kind) of the fleet's size (the objects with
// the managedFields a real API server returns, lib/testing/fake-kube-api.ts) and the poll digest is computed over
// what it returned, against a fake API server in a child process of its own, so that the server's CPU is not
// counted. The LISTs are made as a poll makes them, a cluster's two kinds one after the other,
// 5 minutes after the cluster's last poll: its kept-alive connection has been idle too long
// (kept-alive-connections.ts), so the first LIST opens a new TLS connection (the session resumed from the last one,
// which the client keeps, and the TLS context shared) and the second uses it, and the API discovery the client
// remembers for an hour is made again every twelfth poll. Median of several rounds of LISTs, after a warm-up.
import { KubernetesClusterReader } from '../lib/clusters/kubernetes-reader.js';
import type { GitopsClusterDocument } from '../lib/config/schema.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { FakeKubeFleet } from '../lib/testing/fake-kube-fleet.js';
import { listDigest } from '../lib/verifier/list-digest.js';
import { deployedHelmRelease } from '../test/fixtures/flux-objects.js';

const ROUNDS = 7;
const LISTS_PER_ROUND = 100;
/** The scheduled poll's interval: how far the reader's clock moves between two polls of the cluster. */
const POLL_INTERVAL_MS = 5 * 60_000;
/** The kinds of a cluster a poll LISTs one after the other (poll-clusters.ts): HelmReleases and Kustomizations. */
const LISTS_PER_POLL = 2;

/** CPU milliseconds of the verifier's process per poll LIST of `objects` HelmReleases, digest included. */
export async function listCpuMs(objects: number): Promise<number> {
  const fleet = await FakeKubeFleet.start(1);
  try {
    await fleet.putEverywhere(
      Array.from({ length: objects }, (_, index) => {
        const object = deployedHelmRelease('1.4.2', 'apps') as { metadata: { name: string } };
        object.metadata.name = `app-${index}`;
        return object;
      }),
    );
    const [kubeconfig = ''] = fleet.kubeconfigs;
    const cluster = { namespace: 'flux-system', name: 'measured' };
    const registration: GitopsClusterDocument = {
      apiVersion: 'gitops.weave.works/v1alpha1',
      kind: 'GitopsCluster',
      metadata: cluster,
      spec: { secretRef: { name: 'measured-kubeconfig' } },
    };
    let clock = Date.now();
    const reader = new KubernetesClusterReader({
      now: () => clock,
      getCluster: () => Promise.resolve(registration),
      secrets: new StaticSecretSource([
        { key: { namespace: 'flux-system', name: 'measured-kubeconfig' }, values: { value: kubeconfig } },
      ]),
    });
    let lists = 0;
    const list = async () => {
      if (lists++ % LISTS_PER_POLL === 0) clock += POLL_INTERVAL_MS;
      const listed = await reader.listApps(cluster, 'HelmRelease', ['apps']);
      if (listed.length !== objects) throw new Error(`listed ${listed.length} objects, not ${objects}`);
      listDigest(listed);
    };
    for (let index = 0; index < 20; index++) await list();
    const perList: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = process.cpuUsage();
      for (let index = 0; index < LISTS_PER_ROUND; index++) await list();
      const used = process.cpuUsage(before);
      perList.push((used.user + used.system) / 1000 / LISTS_PER_ROUND);
    }
    return perList.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? Number.NaN;
  } finally {
    await fleet.stop();
  }
}
