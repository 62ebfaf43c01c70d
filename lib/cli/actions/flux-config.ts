// What `pipelinectl flux-config` prints: what a leaf cluster's Flux needs to send its events to the receiver: a
// Secret with the cluster's derived key, a generic-hmac Provider pointing at the cluster's events route, and an Alert
// for every HelmRelease and Kustomization in the namespaces the stored pipelines' targets use on that cluster.
import { Document } from 'yaml';
import { deriveClusterKey } from '../../signing/hmac.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseHttpUrl } from '../flags.js';
import { listAll } from '../output.js';

export interface FluxConfigOptions {
  cluster: ObjectKey;
  /** The receiver's base URL: the stack's ReceiverUrl, or the local serve's. */
  url: string;
  /** Where the three objects go on the leaf cluster; default `flux-system`. */
  namespace?: string;
}

/** The name of the Secret, Provider and Alert on the leaf cluster. */
export const FLUX_OBJECT_NAME = 'pipeline-controller';

/** `<url>/v1/events/<ns>/<name>`, with exactly one slash between the parts whatever the URL ends with. */
export function eventsAddress(url: string, cluster: ObjectKey): string {
  return `${parseHttpUrl(url, '--url')}/v1/events/${cluster.namespace}/${cluster.name}`;
}

/** The namespaces the stored pipelines' targets use on `cluster`, sorted. */
export async function clusterNamespaces(backend: Backend, cluster: ObjectKey): Promise<string[]> {
  const pipelines = await listAll((page) => backend.store.listPipelines(page));
  const namespaces = new Set<string>();
  for (const { pipeline } of pipelines) {
    for (const env of pipeline.environments) {
      for (const target of env.targets) {
        if (objectKeyString(target.cluster) === objectKeyString(cluster)) namespaces.add(target.namespace);
      }
    }
  }
  return [...namespaces].sort();
}

/** The multi-document YAML for `kubectl apply -f -` on the leaf cluster. */
export async function fluxConfig(backend: Backend, options: FluxConfigOptions): Promise<string> {
  const { cluster } = options;
  const name = objectKeyString(cluster);
  const address = eventsAddress(options.url, cluster);
  if (!(await backend.store.getCluster(cluster))) {
    throw new CliError(`GitopsCluster ${name} is not registered in ${backend.description}: apply it first`);
  }
  const namespace = options.namespace ?? 'flux-system';
  const token = deriveClusterKey((await backend.masterKeys()).current, cluster);
  const namespaces = await clusterNamespaces(backend, cluster);
  const metadata = { name: FLUX_OBJECT_NAME, namespace };

  const secret = new Document({ apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', stringData: { token } });
  secret.commentBefore =
    ` Flux on the leaf cluster GitopsCluster ${name}: send its events to pipeline-controller.\n` +
    ' Apply with: pipelinectl flux-config ... | kubectl apply -f -\n' +
    ' The token is the key derived for this cluster from the master key; keep it secret.';
  const provider = new Document({
    apiVersion: 'notification.toolkit.fluxcd.io/v1beta3',
    kind: 'Provider',
    metadata,
    spec: { type: 'generic-hmac', address, secretRef: { name: FLUX_OBJECT_NAME } },
  });
  const documents = [secret, provider];
  if (namespaces.length > 0) {
    const alert = new Document({
      apiVersion: 'notification.toolkit.fluxcd.io/v1beta3',
      kind: 'Alert',
      metadata,
      spec: {
        providerRef: { name: FLUX_OBJECT_NAME },
        eventSeverity: 'info',
        eventSources: namespaces.flatMap((ns) => [
          { kind: 'HelmRelease', name: '*', namespace: ns },
          { kind: 'Kustomization', name: '*', namespace: ns },
        ]),
      },
    });
    alert.commentBefore = ` Every namespace the pipelines' targets use on ${name}: ${namespaces.join(', ')}.`;
    documents.push(alert);
  }
  let text = documents.map((document) => document.toString()).join('---\n');
  if (namespaces.length === 0) {
    text +=
      `# No Alert yet: no stored pipeline has a target on ${name}, so there are no namespaces to watch.\n` +
      '# Apply a pipeline that uses this cluster, then run flux-config again to get the Alert.\n';
  }
  return text;
}
