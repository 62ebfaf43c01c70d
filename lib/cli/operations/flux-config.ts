// What `pipelinectl flux-config` prints: what a leaf cluster's Flux needs to send its events to the receiver: a
// Secret with the cluster's derived key, a generic-hmac Provider pointing at the cluster's events route, and an Alert
// for every HelmRelease and Kustomization in the app namespaces (by default those the stored pipelines' targets use
// on that cluster). The Provider and Alert are written in the API version the cluster's Flux release serves, and,
// for a Flux locked down with --no-cross-namespace-refs, once per app namespace (docs/cli.md, "flux-config").
import { Document } from 'yaml';
import { deriveClusterKey } from '../../signing/hmac.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseHttpUrl } from '../flags.js';
import { listAll } from '../../util/paged.js';

/** A Flux 2 minor release, e.g. `2.4` (patch releases serve the same APIs). */
export interface FluxRelease {
  minor: number;
}

/** The Flux releases flux-config writes for, and the newest, which is the default. */
export const OLDEST_FLUX_MINOR = 0;
export const NEWEST_FLUX_MINOR = 9;
export const CURRENT_FLUX_RELEASE = `2.${NEWEST_FLUX_MINOR}`;

/**
 * The Provider and Alert API: notification-controller serves v1beta3 from Flux 2.2 on (alone from 2.9); Flux 2.0 and
 * 2.1 serve v1beta2 at most.
 */
export function notificationApiVersion(release: FluxRelease): string {
  return `notification.toolkit.fluxcd.io/${release.minor >= 2 ? 'v1beta3' : 'v1beta2'}`;
}

/** `2.4`, `2.4.1` or `v2.4.1` → release 2.4; anything outside 2.0–2.9 is refused, as its API is not known here. */
export function parseFluxVersion(text: string): FluxRelease {
  const match = /^v?2\.(0|[1-9]\d*)(?:\.\d+)?$/.exec(text.trim());
  const minor = match ? Number(match[1]) : NaN;
  if (!(minor >= OLDEST_FLUX_MINOR && minor <= NEWEST_FLUX_MINOR)) {
    throw new CliError(
      `--flux-version must be a Flux release from 2.${OLDEST_FLUX_MINOR} to ${CURRENT_FLUX_RELEASE}, such as 2.4 or ` +
        `v2.4.1 (got ${JSON.stringify(text)})`,
    );
  }
  return { minor };
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `apps,team-b` → the namespace names, sorted, each once. */
export function parseNamespaceList(text: string): string[] {
  const namespaces = text.split(',').map((part) => part.trim());
  if (!namespaces.every((namespace) => NAMESPACE.test(namespace))) {
    throw new CliError(
      `--namespaces must be namespace names separated by commas, such as apps,team-b (got ${JSON.stringify(text)})`,
    );
  }
  return [...new Set(namespaces)].sort();
}

export interface FluxConfigOptions {
  cluster: ObjectKey;
  /** The receiver's base URL: the stack's ReceiverUrl, or the local serve's. */
  url: string;
  /** Where the three objects go on the leaf cluster; default `flux-system`. Not with `perNamespace`. */
  namespace?: string;
  /** The leaf cluster's Flux release; default the current one. */
  fluxVersion?: FluxRelease;
  /** The app namespaces whose events to send; default those the stored pipelines' targets use on the cluster. */
  namespaces?: readonly string[];
  /** Flux runs with --no-cross-namespace-refs: one Secret, Provider and Alert in each app namespace. */
  perNamespace?: boolean;
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

/** An object an Alert names by kind and name: a pipeline's source (spec.source) on the cluster. */
interface NamedEventSource {
  kind: string;
  name: string;
  namespace: string;
}

/** The stored pipelines' source objects on `cluster` (an ImagePolicy or OCIRepository each), sorted. */
export async function clusterSources(backend: Backend, cluster: ObjectKey): Promise<NamedEventSource[]> {
  const pipelines = await listAll((page) => backend.store.listPipelines(page));
  const sources = new Map<string, NamedEventSource>();
  for (const { pipeline } of pipelines) {
    const source = pipeline.source;
    if (!source || objectKeyString(source.cluster) !== objectKeyString(cluster)) continue;
    const id = `${source.namespace}/${source.kind}/${source.name}`;
    sources.set(id, { kind: source.kind, name: source.name, namespace: source.namespace });
  }
  return [...sources.keys()].sort().map((id) => sources.get(id) as NamedEventSource);
}

// The token is a credential: a plain Secret committed to a Git repository that Flux reconciles would publish it.
const SECRET_COMMENT =
  ' The token is the key derived for this cluster from the master key: keep it secret. Do not commit this\n' +
  ' Secret to Git as it is: encrypt it with SOPS (Flux decrypts it), or create it from your secret store with\n' +
  ' External Secrets; or apply it straight from this output, as above.';

/** The multi-document YAML for `kubectl apply -f -` on the leaf cluster. */
export async function fluxConfig(backend: Backend, options: FluxConfigOptions): Promise<string> {
  const { cluster } = options;
  const name = objectKeyString(cluster);
  const address = eventsAddress(options.url, cluster);
  if (options.perNamespace && options.namespace !== undefined) {
    throw new CliError(
      '--namespace and --no-cross-namespace-refs exclude each other: with --no-cross-namespace-refs the objects go ' +
        'into each app namespace',
    );
  }
  if (!(await backend.store.getCluster(cluster))) {
    throw new CliError(`GitopsCluster ${name} is not registered in ${backend.description}: apply it first`);
  }
  const release = options.fluxVersion ?? parseFluxVersion(CURRENT_FLUX_RELEASE);
  const apiVersion = notificationApiVersion(release);
  const token = deriveClusterKey((await backend.masterKeys()).current, cluster);
  const named = options.namespaces !== undefined;
  const namespaces = named ? [...new Set(options.namespaces)].sort() : await clusterNamespaces(backend, cluster);
  const sources = await clusterSources(backend, cluster);
  const sourcesIn = (namespace: string) => sources.filter((source) => source.namespace === namespace);
  const sourceNames = sources.map((source) => `${source.kind} ${source.namespace}/${source.name}`).join(', ');

  /** The Secret, the Provider and, when there is something to watch, the Alert, in `namespace`. */
  const objectsIn = (
    namespace: string,
    watched: readonly string[],
    watchedSources: readonly NamedEventSource[],
  ): Document[] => {
    const metadata = { name: FLUX_OBJECT_NAME, namespace };
    const secret = new Document({ apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', stringData: { token } });
    secret.commentBefore = SECRET_COMMENT;
    // Only fields every release serving this version takes: v1beta2 and v1beta3 differ in optional fields only
    // (interval, summary, eventMetadata), and none of those is needed here.
    const provider = new Document({
      apiVersion,
      kind: 'Provider',
      metadata,
      spec: { type: 'generic-hmac', address, secretRef: { name: FLUX_OBJECT_NAME } },
    });
    if (watched.length === 0 && watchedSources.length === 0) return [secret, provider];
    const alert = new Document({
      apiVersion,
      kind: 'Alert',
      metadata,
      spec: {
        providerRef: { name: FLUX_OBJECT_NAME },
        eventSeverity: 'info',
        eventSources: [
          ...watched.flatMap((ns) => [
            { kind: 'HelmRelease', name: '*', namespace: ns },
            { kind: 'Kustomization', name: '*', namespace: ns },
          ]),
          // A source is named: its events say a newer version was found, which is read from its status.
          ...watchedSources.map((source) => ({ kind: source.kind, name: source.name, namespace: source.namespace })),
        ],
      },
    });
    return [secret, provider, alert];
  };

  const header = [
    ` Flux on the leaf cluster GitopsCluster ${name}: send its events to pipeline-controller.`,
    ` Provider and Alert in ${apiVersion}, as Flux 2.${release.minor} serves them (--flux-version).`,
    ' Apply with: pipelinectl flux-config ... | kubectl apply -f -',
  ];
  let documents: Document[];
  if (options.perNamespace) {
    if (namespaces.length === 0 && sources.length === 0) {
      throw new CliError(`no stored pipeline has a target on ${name}: name the app namespaces with --namespaces`);
    }
    header.push(
      ' One Secret, Provider and Alert in each app namespace, for a Flux run with --no-cross-namespace-refs:',
      ' there an Alert only receives events from objects in its own namespace.',
    );
    const all = [...new Set([...namespaces, ...sources.map((source) => source.namespace)])].sort();
    documents = all.flatMap((namespace) => {
      const watched = namespaces.includes(namespace) ? [namespace] : [];
      const objects = objectsIn(namespace, watched, sourcesIn(namespace));
      if (objects[2]) {
        const what = [
          ...(watched.length > 0 ? [`The HelmReleases and Kustomizations in ${namespace}`] : []),
          ...sourcesIn(namespace).map((source) => `the pipelines' source ${source.kind} ${source.name}`),
        ];
        objects[2].commentBefore = ` ${what.join('; ')}.`;
      }
      return objects;
    });
  } else {
    documents = objectsIn(options.namespace ?? 'flux-system', namespaces, sources);
    if (documents[2]) {
      const what =
        namespaces.length === 0
          ? []
          : [
              named
                ? `The app namespaces named with --namespaces: ${namespaces.join(', ')}`
                : `Every namespace the pipelines' targets use on ${name}: ${namespaces.join(', ')}`,
            ];
      if (sources.length > 0) what.push(`the pipelines' sources: ${sourceNames}`);
      documents[2].commentBefore = ` ${what.join('; ')}.`;
    }
  }
  const [first] = documents;
  if (first) first.commentBefore = `${header.join('\n')}\n\n${first.commentBefore ?? ''}`;

  let text = documents.map((document) => document.toString()).join('---\n');
  if (namespaces.length === 0 && sources.length === 0) {
    text +=
      `# No Alert yet: no stored pipeline has a target on ${name}, so there are no namespaces to watch.\n` +
      '# Apply a pipeline that uses this cluster, then run flux-config again to get the Alert.\n';
  }
  return text;
}
