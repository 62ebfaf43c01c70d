// The resolved pipeline model: a Pipeline document with every default applied (cluster and namespace of each
// target, the promotion in force for each environment). Everything after the config loader works on this. It
// depends on nothing else of ours: lib/config builds it from the documents.
import { selectsLabels, type LabelSelector, type Labels } from './label-selector.js';
import {
  DEFAULT_ROLLBACK_AFTER,
  type ApprovalPolicy,
  type FreezeWindow,
  type RollbackPolicy,
} from './environment-policies.js';
import { namesStrategy, type Promotion } from './promotion.js';
import { resolveVerification, type Verification, type WrittenVerification } from './verification.js';

/** The Flux objects a pipeline can promote. */
export const APP_KINDS = ['HelmRelease', 'Kustomization'] as const;
export type AppKind = (typeof APP_KINDS)[number];

/** The Flux objects a pipeline's `spec.source` may name: their status says which version is the newest. */
export const SOURCE_KINDS = ['ImagePolicy', 'OCIRepository'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Every kind the controller reads from a leaf cluster: the apps it promotes and the sources of new versions. */
export type WatchedKind = AppKind | SourceKind;

/** The API group that serves each kind (the version is discovered per cluster: lib/clusters/flux-app-apis.ts). */
export const WATCHED_KIND_GROUPS: Readonly<Record<WatchedKind, string>> = {
  HelmRelease: 'helm.toolkit.fluxcd.io',
  Kustomization: 'kustomize.toolkit.fluxcd.io',
  ImagePolicy: 'image.toolkit.fluxcd.io',
  OCIRepository: 'source.toolkit.fluxcd.io',
};

export function isSourceKind(kind: string): kind is SourceKind {
  return (SOURCE_KINDS as readonly string[]).includes(kind);
}

/** The kinds of news about a pipeline people are told of (lib/notify); defined here so that `spec.notify` can name them. */
export const PIPELINE_NEWS_KINDS = [
  'approval-waiting',
  'promotion-opened',
  'promotion-failed',
  'environment-regressed',
  'rollback-opened',
  'verification-failed',
] as const;
export type PipelineNewsKind = (typeof PIPELINE_NEWS_KINDS)[number];

/** Every kind of news, the installation's `news` setting chooses among: a pipeline's, and a ConfigSource's. */
export const NEWS_KINDS = [...PIPELINE_NEWS_KINDS, 'config-sync-failed'] as const;
export type NewsKind = (typeof NEWS_KINDS)[number];

/** Extension: which news of this pipeline people are told of; an absent field narrows nothing. */
export interface NotifyNarrowing {
  news?: PipelineNewsKind[];
  environments?: string[];
}

export interface ObjectKey {
  namespace: string;
  name: string;
}

/** A pipeline's (or any stored object's) key: its namespace and name, without the rest. */
export function pipelineKeyOf(pipeline: ObjectKey): ObjectKey {
  return { namespace: pipeline.namespace, name: pipeline.name };
}

/** `namespace/name`, the usual Kubernetes way to name an object. */
export function objectKeyString(key: ObjectKey): string {
  return `${key.namespace}/${key.name}`;
}

/** How many poll groups the clusters are dealt into (pollGroupOf). */
export const POLL_GROUPS = 16;
const UTF8 = new TextEncoder();

/**
 * The poll group of a cluster, 0 to POLL_GROUPS - 1, from its key alone (FNV-1a of `namespace/name`), so that it never
 * moves. The poller sends a group's clusters together, in name order, and the store keeps their poll digests in one
 * partition per group, sorted by cluster: a `poll-clusters` message then reads its clusters' digests in a Query or
 * two, billed by their size, instead of half a read unit per cluster (docs/architecture.md, "The poll digest"). More
 * than one group spreads the digests' writes over partitions.
 */
export function pollGroupOf(cluster: ObjectKey): number {
  let hash = 0x811c9dc5;
  for (const byte of UTF8.encode(objectKeyString(cluster))) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % POLL_GROUPS;
}

export interface AppRef {
  apiVersion: string;
  kind: AppKind;
  name: string;
}

export interface PipelineTarget {
  /** The GitopsCluster the app runs on. */
  cluster: ObjectKey;
  /** The namespace of the app on that cluster. */
  namespace: string;
  /** Chosen by the environment's targetSelector rather than listed; such targets follow the fleet's labels. */
  selected?: true;
}

/** Extension: targets chosen by GitopsCluster labels (docs/configuration.md, "Targets chosen by cluster labels"). */
export interface TargetSelector {
  clusterSelector: LabelSelector;
  /** The namespace of the app on each selected cluster. */
  namespace: string;
}

export interface PipelineEnvironment {
  name: string;
  /**
   * Extension: the environments this one follows (docs/environment-graphs.md); absent, the one listed before it.
   * Read through lib/pipeline/environment-graph.ts, never directly.
   */
  after?: string[];
  /** The listed targets, in their order, then the selected ones (selectTargets), by cluster. */
  targets: PipelineTarget[];
  targetSelector?: TargetSelector;
  /**
   * The promotion in force for this environment: its own block, else the pipeline's (Weave `GetPromotion`) when that
   * names a strategy. Absent: nothing promotes into it (the decision says `no-strategy`).
   */
  promotion?: Promotion;
  /**
   * Extension: how long every target must have been healthy on the candidate, continuously, before the environment
   * counts as passed and the next one may be promoted from it (`30m`, `1h30m`; docs/soak.md). Kept as written.
   */
  soak?: string;
  /**
   * Extension: the checks (alarms, metrics, HTTP, Flagger Canaries) that must hold, once every target is Ready on the
   * candidate, before anything is promoted from the environment (docs/verification.md).
   */
  verification?: Verification;
  /** Extension: recurring windows when no promotion into the environment starts (docs/freeze.md). */
  freeze?: FreezeWindow[];
  /** Extension: who approves a manual environment, and how many of them (docs/approval-policies.md). */
  approval?: ApprovalPolicy;
  /** Extension: a failed promotion is rolled back by a pull request (docs/rollback.md). */
  rollback?: RollbackPolicy;
}

export interface Pipeline {
  namespace: string;
  name: string;
  appRef: AppRef;
  /** Extension: the Flux object whose status names the newest version; the first environment is promoted to it. */
  source?: SourceObject;
  /** Extension: narrows the installation's notifications to people for this pipeline (docs/notifications.md). */
  notify?: NotifyNarrowing;
  environments: PipelineEnvironment[];
  /** The pipeline-level promotion block, kept because Weave reads the webhook HMAC secret only from there. */
  promotion?: Promotion;
}

/**
 * Identifies one object on one leaf cluster that the controller reads: an app (a target) or a pipeline's source.
 * The unit we read, index and record status for.
 */
export interface AppKey {
  cluster: ObjectKey;
  kind: WatchedKind;
  namespace: string;
  name: string;
}

/** `clusterNs/clusterName/Kind/namespace/name`: the key of observed status and of the apps index. */
export function appKeyString(key: AppKey): string {
  return `${key.cluster.namespace}/${key.cluster.name}/${key.kind}/${key.namespace}/${key.name}`;
}

export function appKeyOf(pipeline: Pipeline, target: PipelineTarget): AppKey {
  return {
    cluster: target.cluster,
    kind: pipeline.appRef.kind,
    namespace: target.namespace,
    name: pipeline.appRef.name,
  };
}

/** A pipeline's source: an ImagePolicy or OCIRepository on one leaf cluster, read and recorded like an app. */
export interface SourceObject extends AppKey {
  kind: SourceKind;
}

/**
 * Whether anything is promoted into the environment: every environment but the first, and the first too when the
 * pipeline has a source (docs/configuration.md, "The first environment is promoted too").
 */
export function isPromotedInto(pipeline: Pick<Pipeline, 'environments' | 'source'>, env: string): boolean {
  return pipeline.source !== undefined || pipeline.environments[0]?.name !== env;
}

/** The objects a pipeline reads: every target's app, each once, then its source (if any). */
export function watchedObjectsOf(pipeline: Pipeline): AppKey[] {
  const apps = pipeline.environments.flatMap((env) => env.targets.map((target) => appKeyOf(pipeline, target)));
  if (pipeline.source) apps.push(pipeline.source);
  return [...new Map(apps.map((app) => [appKeyString(app), app])).values()];
}

export const DEFAULT_NAMESPACE = 'default';

/** The key of a document from its metadata: without a namespace, it is in `default`, as kubectl puts it. */
export function keyOfMetadata(metadata: { name: string; namespace?: string }): ObjectKey {
  return { namespace: metadata.namespace || DEFAULT_NAMESPACE, name: metadata.name };
}

/**
 * What the model is resolved from: a Pipeline document (lib/config/schema.ts validates it), as far as the model reads
 * it. Its identifying fields are here too, so that a document written out in full fits.
 */
export interface PipelineSource {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    appRef: AppRef;
    source?: {
      kind: SourceKind;
      name: string;
      namespace: string;
      clusterRef?: { apiVersion?: string; kind?: string; name: string; namespace?: string };
    };
    notify?: NotifyNarrowing;
    environments: {
      name: string;
      after?: string[];
      targets?: {
        namespace: string;
        clusterRef?: { apiVersion?: string; kind?: string; name: string; namespace?: string };
      }[];
      targetSelector?: TargetSelector;
      promotion?: Promotion;
      soak?: string;
      verification?: WrittenVerification;
      freeze?: FreezeWindow[];
      approval?: ApprovalPolicy;
      rollback?: string;
      rollbackAfter?: string;
    }[];
    promotion?: Promotion;
  };
  status?: unknown;
}

export class UnresolvedClusterError extends Error {}

/**
 * Applies the defaults: a document without a namespace is in `default` (as with kubectl); a clusterRef without a
 * namespace is in the Pipeline's namespace (Weave); a target without clusterRef runs on `defaultCluster`.
 * The config loader reports a missing default cluster as a validation error before this is ever called.
 * Only the listed targets are resolved here: the selected ones depend on the fleet (selectTargets).
 */
export function resolvePipeline(document: PipelineSource, defaultCluster?: ObjectKey): Pipeline {
  const namespace = document.metadata.namespace ?? DEFAULT_NAMESPACE;
  const { spec } = document;
  const clusterOf = (clusterRef: { name: string; namespace?: string } | undefined, what: string): ObjectKey => {
    const cluster = clusterRef
      ? { namespace: clusterRef.namespace ?? namespace, name: clusterRef.name }
      : defaultCluster;
    if (!cluster) {
      throw new UnresolvedClusterError(
        `Pipeline ${namespace}/${document.metadata.name}: ${what} without clusterRef and no default cluster is configured`,
      );
    }
    return cluster;
  };
  const source = spec.source && {
    cluster: clusterOf(spec.source.clusterRef, 'spec.source has no clusterRef'),
    kind: spec.source.kind,
    namespace: spec.source.namespace,
    name: spec.source.name,
  };
  return {
    namespace,
    name: document.metadata.name,
    appRef: { ...spec.appRef },
    ...(source ? { source } : {}),
    ...(spec.notify ? { notify: structuredClone(spec.notify) } : {}),
    promotion: spec.promotion,
    environments: spec.environments.map((environment) => ({
      name: environment.name,
      ...(environment.after ? { after: [...environment.after] } : {}),
      promotion: environment.promotion ?? inheritedPromotion(spec.promotion),
      ...(environment.targetSelector ? { targetSelector: environment.targetSelector } : {}),
      ...(environment.soak !== undefined ? { soak: environment.soak } : {}),
      ...(environment.verification ? { verification: resolveVerification(environment.verification) } : {}),
      ...(environment.freeze ? { freeze: structuredClone(environment.freeze) } : {}),
      ...(environment.approval ? { approval: structuredClone(environment.approval) } : {}),
      ...(environment.rollback === 'pull-request'
        ? { rollback: { strategy: 'pull-request', after: environment.rollbackAfter ?? DEFAULT_ROLLBACK_AFTER } }
        : {}),
      targets: (environment.targets ?? []).map((target) => ({
        cluster: clusterOf(target.clusterRef, `environment ${environment.name} has a target`),
        namespace: target.namespace,
      })),
    })),
  };
}

/**
 * The pipeline's block as an environment's default: only when it names a strategy. A block holding only the webhook
 * key (Weave's shape when each environment has its own strategy) would otherwise pass for a notification strategy.
 */
function inheritedPromotion(promotion: Promotion | undefined): Promotion | undefined {
  return promotion && namesStrategy(promotion) ? promotion : undefined;
}

/** A GitopsCluster as a targetSelector sees it. */
export interface LabelledCluster {
  key: ObjectKey;
  labels?: Labels;
}

/**
 * The pipeline with each selecting environment's targets brought in line with the fleet: its listed targets, then
 * the app in the selector's namespace on every cluster the selector selects (by cluster key, so that the order does
 * not depend on the order clusters were applied in), less those already listed. Selected targets from an earlier
 * fleet are dropped first, so this can be applied again to a stored pipeline whenever a cluster changes.
 */
export function selectTargets(pipeline: Pipeline, clusters: readonly LabelledCluster[]): Pipeline {
  if (!pipeline.environments.some((env) => env.targetSelector)) return pipeline;
  const byKey = [...clusters].sort((a, b) => compareKeys(a.key, b.key));
  return {
    ...pipeline,
    environments: pipeline.environments.map((env) => {
      const listed = env.targets.filter((target) => !target.selected);
      const selector = env.targetSelector;
      if (!selector) return env;
      const present = new Set(listed.map((target) => targetId(target)));
      const selected: PipelineTarget[] = [];
      for (const cluster of byKey) {
        if (!selectsLabels(selector.clusterSelector, cluster.labels)) continue;
        const target: PipelineTarget = { cluster: cluster.key, namespace: selector.namespace, selected: true };
        if (!present.has(targetId(target))) selected.push(target);
      }
      return { ...env, targets: [...listed, ...selected] };
    }),
  };
}

const targetId = (target: PipelineTarget) => `${objectKeyString(target.cluster)}/${target.namespace}`;

function compareKeys(a: ObjectKey, b: ObjectKey): number {
  return a.namespace < b.namespace
    ? -1
    : a.namespace > b.namespace
      ? 1
      : a.name < b.name
        ? -1
        : a.name > b.name
          ? 1
          : 0;
}
