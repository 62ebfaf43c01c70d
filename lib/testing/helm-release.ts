// HelmRelease objects and helm-controller event bodies as Flux 2.4+ writes them (docs/flux-status.md), for
// the Flux simulator of the local demo. The same shapes as test/fixtures/flux-objects.ts, which lib/ may not
// import: a v2 HelmRelease whose status carries the Helm release history (newest first), Ready/Released conditions
// and the last attempted revision, and the compact JSON event body a generic-hmac Provider posts.
import { createHash, randomUUID } from 'node:crypto';
import { parseAllDocuments } from 'yaml';

export const HELM_RELEASE_API_VERSION = 'helm.toolkit.fluxcd.io/v2';
/** The values digest of the release (`configDigest` / `lastAttemptedConfigDigest`); the values never change here. */
export const CONFIG_DIGEST = 'sha256:e15c415d62760896bd8bec192a44c5716dc224db9e0fc609b9ac14718f8f9e56';
/** How many Helm releases helm-controller keeps in `status.history` (its `maxHistory` default). */
const MAX_HISTORY = 5;

export interface HelmReleaseIdentity {
  namespace: string;
  name: string;
  /** The chart; default the release name. */
  chart?: string;
}

export interface HelmSnapshot {
  chartName: string;
  chartVersion: string;
  appVersion: string;
  configDigest: string;
  digest: string;
  firstDeployed: string;
  lastDeployed: string;
  name: string;
  namespace: string;
  status: string;
  version: number;
}

/** The Kubernetes timestamp form (seconds, `Z`). */
export function kubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

function condition(type: string, status: string, reason: string, message: string, generation: number, at: Date) {
  return { type, status, reason, message, observedGeneration: generation, lastTransitionTime: kubeTime(at) };
}

function chartOf(identity: HelmReleaseIdentity): string {
  return identity.chart ?? identity.name;
}

function snapshot(identity: HelmReleaseIdentity, version: string, release: number, first: string, at: Date) {
  const digest = createHash('sha256').update(`${identity.namespace}/${identity.name}.v${release} ${version}`);
  return {
    chartName: chartOf(identity),
    chartVersion: version,
    appVersion: version,
    configDigest: CONFIG_DIGEST,
    digest: `sha256:${digest.digest('hex')}`,
    firstDeployed: first,
    lastDeployed: kubeTime(at),
    name: identity.name,
    namespace: identity.namespace,
    status: 'deployed',
    version: release,
  } satisfies HelmSnapshot;
}

function spec(identity: HelmReleaseIdentity, version: string): Record<string, unknown> {
  return {
    interval: '10m',
    releaseName: identity.name,
    chart: {
      spec: {
        chart: chartOf(identity),
        version,
        sourceRef: { kind: 'HelmRepository', name: chartOf(identity), namespace: 'flux-system' },
        interval: '10m',
      },
    },
    install: { remediation: { retries: 3 } },
    upgrade: { remediation: { retries: 3, remediateLastFailure: true } },
    values: { replicaCount: 2 },
  };
}

/** A HelmRelease freshly installed at `version` (Helm release v1) and healthy. */
export function installedHelmRelease(identity: HelmReleaseIdentity, version: string, at = new Date()) {
  const { namespace, name } = identity;
  const generation = 1;
  const message = `Helm install succeeded for release ${namespace}/${name}.v1 with chart ${chartOf(identity)}@${version}`;
  return {
    apiVersion: HELM_RELEASE_API_VERSION,
    kind: 'HelmRelease',
    metadata: {
      name,
      namespace,
      generation,
      uid: randomUUID(),
      creationTimestamp: kubeTime(at),
      finalizers: ['finalizers.fluxcd.io'],
      labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
    },
    spec: spec(identity, version),
    status: {
      observedGeneration: generation,
      lastAttemptedGeneration: generation,
      lastAttemptedRevision: version,
      lastAttemptedReleaseAction: 'install',
      lastAttemptedConfigDigest: CONFIG_DIGEST,
      helmChart: `flux-system/${namespace}-${name}`,
      storageNamespace: namespace,
      history: [snapshot(identity, version, 1, kubeTime(at), at)],
      conditions: [
        condition('Ready', 'True', 'InstallSucceeded', message, generation, at),
        condition('Released', 'True', 'InstallSucceeded', message, generation, at),
      ],
    },
  };
}

type Mutable = Record<string, unknown> & { metadata: Record<string, unknown> };

/**
 * What Flux does when Git names a new chart version: kustomize-controller applies the new spec (a new generation)
 * and helm-controller starts the Helm upgrade. Ready is Unknown and Reconciling True until it ends; the history and
 * `observedGeneration` still describe the release that runs. Changes `object` in place.
 */
export function startHelmUpgrade(object: Mutable, version: string, at = new Date()): void {
  const generation = numberAt(object.metadata, 'generation') + 1;
  object.metadata.generation = generation;
  const chart = record(record(record(object, 'spec'), 'chart'), 'spec');
  chart.version = version;
  const status = record(object, 'status');
  status.lastAttemptedGeneration = generation;
  status.lastAttemptedRevision = version;
  status.lastAttemptedReleaseAction = 'upgrade';
  const message = "Running 'upgrade' action with timeout of 5m0s";
  status.conditions = [
    condition('Reconciling', 'True', 'Progressing', message, generation, at),
    condition('Ready', 'Unknown', 'Progressing', message, generation, at),
    ...conditionsOf(status).filter((c) => c.type === 'Released'),
  ];
}

/**
 * Ends the upgrade started by `startHelmUpgrade`: a new Helm release (the previous one superseded) runs the
 * version, the new generation is observed, Ready and Released are True with `UpgradeSucceeded`. Changes `object`
 * in place and returns the new Helm release number and the message helm-controller logs and sends.
 */
export function finishHelmUpgrade(object: Mutable, at = new Date()): { release: number; message: string } {
  const generation = numberAt(object.metadata, 'generation');
  const namespace = String(object.metadata.namespace);
  const name = String(object.metadata.name);
  const status = record(object, 'status');
  const version = String(status.lastAttemptedRevision);
  const history = (Array.isArray(status.history) ? status.history : []) as HelmSnapshot[];
  const previous = history[0];
  const release = (previous?.version ?? 0) + 1;
  const identity = { namespace, name, chart: previous?.chartName ?? name };
  const first = previous?.firstDeployed ?? kubeTime(at);
  status.history = [
    snapshot(identity, version, release, first, at),
    ...history.map((entry, index) => (index === 0 ? { ...entry, status: 'superseded' } : entry)),
  ].slice(0, MAX_HISTORY);
  status.observedGeneration = generation;
  status.lastAttemptedGeneration = generation;
  status.lastAttemptedConfigDigest = CONFIG_DIGEST;
  const message = `Helm upgrade succeeded for release ${namespace}/${name}.v${release} with chart ${identity.chart}@${version}`;
  status.conditions = [
    condition('Ready', 'True', 'UpgradeSucceeded', message, generation, at),
    condition('Released', 'True', 'UpgradeSucceeded', message, generation, at),
  ];
  return { release, message };
}

/** The chart version the HelmRelease's spec asks for (what Git said last), if any. */
export function requestedChartVersion(object: object): string | undefined {
  const version = (object as { spec?: { chart?: { spec?: { version?: unknown } } } }).spec?.chart?.spec?.version;
  return typeof version === 'string' ? version : undefined;
}

export interface HelmEventInput {
  /** The object as the API server returned it (uid and resourceVersion are copied into the event). */
  object: { metadata: Record<string, unknown> };
  reason: 'UpgradeSucceeded' | 'InstallSucceeded';
  message: string;
  version: string;
  at?: Date;
  reportingInstance?: string;
}

/**
 * The body helm-controller's event becomes once notification-controller forwards it to a generic-hmac Provider
 * (docs/flux-status.md, "Example events", A): compact JSON, keys in Go struct order.
 */
export function helmReleaseEventBody(input: HelmEventInput): string {
  const { metadata } = input.object;
  return JSON.stringify({
    involvedObject: {
      kind: 'HelmRelease',
      namespace: metadata.namespace,
      name: metadata.name,
      uid: metadata.uid,
      apiVersion: HELM_RELEASE_API_VERSION,
      resourceVersion: metadata.resourceVersion,
    },
    severity: 'info',
    timestamp: kubeTime(input.at ?? new Date()),
    message: input.message,
    reason: input.reason,
    metadata: { 'app-version': input.version, revision: input.version },
    reportingController: 'helm-controller',
    reportingInstance: input.reportingInstance ?? 'helm-controller-5f7d8c9b6-x2k4q',
  });
}

function record(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = parent[key];
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  parent[key] = created;
  return created;
}

function numberAt(parent: Record<string, unknown>, key: string): number {
  const value = parent[key];
  return typeof value === 'number' ? value : 1;
}

function conditionsOf(status: Record<string, unknown>): { type?: unknown }[] {
  return Array.isArray(status.conditions) ? (status.conditions as { type?: unknown }[]) : [];
}

/** The chart version a HelmRelease manifest in Git asks for (`spec.chart.spec.version` of its HelmRelease). */
export function chartVersionIn(manifest: string): string | undefined {
  for (const document of parseAllDocuments(manifest)) {
    if (document.errors.length > 0) return undefined;
    const value: unknown = document.toJS();
    if (!value || typeof value !== 'object' || (value as { kind?: unknown }).kind !== 'HelmRelease') continue;
    return requestedChartVersion(value);
  }
  return undefined;
}

/** The manifest with its HelmRelease's `spec.chart.spec.version` set (comments and markers are kept). */
export function withChartVersion(manifest: string, version: string): string {
  const documents = parseAllDocuments(manifest);
  const target = documents.find((document) => document.get('kind') === 'HelmRelease');
  if (!target || documents.some((document) => document.errors.length > 0)) {
    throw new Error('the manifest holds no valid HelmRelease');
  }
  target.setIn(['spec', 'chart', 'spec', 'version'], version);
  return documents.map((document) => document.toString()).join('');
}
