// The ClusterReader as the verifier holds it: the Kubernetes client (@kubernetes/client-node, with its models of every
// Kubernetes API and the WebSocket, SOCKS, tar and JSONPath packages it imports, about 700 KiB of a bundle) is loaded
// on the first read of a cluster, not when the process starts. A verifier's messages that read no cluster (a
// promotion, a ConfigSource sync) never load it; one that does pays for loading it once per process, then reads as
// KubernetesClusterReader reads. A client that cannot be loaded fails every read with the loading error (the verifier
// records the target as unreadable and retries): a module that failed to evaluate stays failed in this process.
import type { KubernetesClusterReaderOptions } from './kubernetes-reader.js';
import type { ClusterReader } from './port.js';

/** A ClusterReader that builds a KubernetesClusterReader from `options` on its first read. */
export function deferredKubernetesClusterReader(options: KubernetesClusterReaderOptions): ClusterReader {
  let loading: Promise<ClusterReader> | undefined;
  const reader = (): Promise<ClusterReader> =>
    (loading ??= import('./kubernetes-reader.js').then(
      ({ KubernetesClusterReader }) => new KubernetesClusterReader(options),
    ));
  return {
    getApp: async (app) => (await reader()).getApp(app),
    getCanary: async (cluster, canary) => (await reader()).getCanary(cluster, canary),
    listApps: async (cluster, kind, namespaces) => (await reader()).listApps(cluster, kind, namespaces),
  };
}
