// Run by read-bounds.test.ts in a child process with a small heap: reads the clusters given on standard input (a JSON
// array of `{ name, kubeconfig }`, each registered as `flux-system/<name>`) as one poll does, every HelmRelease of
// each at once, and prints what each gave as JSON: the objects' names, or the error.
import { text } from 'node:stream/consumers';
import { ClusterAccessError } from '../../lib/clusters/index.js';
import { names, gitopsCluster, Registry } from './helpers.js';

export type ListedCluster =
  { cluster: string; names: string[] } | { cluster: string; error: { kind: string; message: string } };

const clusters = JSON.parse(await text(process.stdin)) as { name: string; kubeconfig: string }[];
const registry = new Registry();
for (const { name, kubeconfig } of clusters) {
  registry.setCluster(gitopsCluster({ namespace: 'flux-system', name }));
  registry.secrets.set({ namespace: 'flux-system', name: `${name}-kubeconfig` }, { value: kubeconfig });
}
const reader = registry.reader();
const results = await Promise.allSettled(
  clusters.map(({ name }) => reader.listApps({ namespace: 'flux-system', name }, 'HelmRelease', ['apps'])),
);
const listed: ListedCluster[] = results.map((result, i) => {
  const cluster = `flux-system/${clusters[i]?.name}`;
  if (result.status === 'fulfilled') return { cluster, names: names(result.value) };
  const error: unknown = result.reason;
  return error instanceof ClusterAccessError
    ? { cluster, error: { kind: error.kind, message: error.message } }
    : { cluster, error: { kind: 'unexpected', message: String(error) } };
});
process.stdout.write(JSON.stringify(listed));
