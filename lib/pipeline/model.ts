// The resolved pipeline model: a Pipeline document with every default applied (cluster and namespace of each
// target, the promotion in force for each environment). Everything after the config loader works on this. It
// depends on nothing else of ours: lib/config builds it from the documents.
import { namesStrategy, type Promotion } from './promotion.js';

/** The Flux objects a pipeline can promote. */
export const APP_KINDS = ['HelmRelease', 'Kustomization'] as const;
export type AppKind = (typeof APP_KINDS)[number];

export interface ObjectKey {
  namespace: string;
  name: string;
}

/** `namespace/name`, the usual Kubernetes way to name an object. */
export function objectKeyString(key: ObjectKey): string {
  return `${key.namespace}/${key.name}`;
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
}

export interface PipelineEnvironment {
  name: string;
  targets: PipelineTarget[];
  /**
   * The promotion in force for this environment: its own block, else the pipeline's (Weave `GetPromotion`) when that
   * names a strategy. Absent: nothing promotes into it (the decision says `no-strategy`).
   */
  promotion?: Promotion;
}

export interface Pipeline {
  namespace: string;
  name: string;
  appRef: AppRef;
  environments: PipelineEnvironment[];
  /** The pipeline-level promotion block, kept because Weave reads the webhook HMAC secret only from there. */
  promotion?: Promotion;
}

/** Identifies one app object on one leaf cluster: the unit we read, index and record status for. */
export interface AppKey {
  cluster: ObjectKey;
  kind: AppKind;
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

export const DEFAULT_NAMESPACE = 'default';

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
    environments: {
      name: string;
      targets: {
        namespace: string;
        clusterRef?: { apiVersion?: string; kind?: string; name: string; namespace?: string };
      }[];
      promotion?: Promotion;
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
 */
export function resolvePipeline(document: PipelineSource, defaultCluster?: ObjectKey): Pipeline {
  const namespace = document.metadata.namespace ?? DEFAULT_NAMESPACE;
  const { spec } = document;
  return {
    namespace,
    name: document.metadata.name,
    appRef: { ...spec.appRef },
    promotion: spec.promotion,
    environments: spec.environments.map((environment) => ({
      name: environment.name,
      promotion: environment.promotion ?? inheritedPromotion(spec.promotion),
      targets: environment.targets.map((target) => {
        let cluster: ObjectKey | undefined = defaultCluster;
        if (target.clusterRef) {
          cluster = { namespace: target.clusterRef.namespace ?? namespace, name: target.clusterRef.name };
        }
        if (!cluster) {
          throw new UnresolvedClusterError(
            `Pipeline ${namespace}/${document.metadata.name}: environment ${environment.name} has a target without clusterRef and no default cluster is configured`,
          );
        }
        return { cluster, namespace: target.namespace };
      }),
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
