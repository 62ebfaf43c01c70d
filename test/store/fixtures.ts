// Pipelines and statuses for the store tests, resolved the way the config loader resolves them.
import {
  CONFIG_SOURCE_API_VERSION,
  type ConfigSourceDocument,
  type ConfigSourceSpec,
  type GitopsClusterDocument,
  type PipelineDocument,
} from '../../lib/config/schema.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import { resolvePipeline, type AppKey, type ObjectKey, type Pipeline } from '../../lib/pipeline/model.js';

export interface PipelineFixture {
  document: PipelineDocument;
  pipeline: Pipeline;
  key: ObjectKey;
}

/** A HelmRelease pipeline `flux-system/<name>` whose environments map env name → target namespaces on `cluster`. */
export function pipelineFixture(
  name: string,
  environments: Record<string, string[]>,
  options: { cluster?: string; app?: string } = {},
): PipelineFixture {
  const cluster = options.cluster ?? 'fleet-eu';
  const document: PipelineDocument = {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: options.app ?? 'podinfo' },
      environments: Object.entries(environments).map(([env, namespaces]) => ({
        name: env,
        targets: namespaces.map((namespace) => ({
          namespace,
          clusterRef: { kind: 'GitopsCluster' as const, name: cluster },
        })),
      })),
      promotion: { strategy: { notification: {} } },
    },
  };
  return { document, pipeline: resolvePipeline(document), key: { namespace: 'flux-system', name } };
}

export function app(namespace: string, options: { cluster?: string; name?: string } = {}): AppKey {
  return {
    cluster: { namespace: 'flux-system', name: options.cluster ?? 'fleet-eu' },
    kind: 'HelmRelease',
    namespace,
    name: options.name ?? 'podinfo',
  };
}

export const healthy = (revision: string): TargetStatus => ({
  phase: 'Ready',
  reason: 'Deployed',
  message: `deployed ${revision} (UpgradeSucceeded)`,
  revision,
});

export const at = (iso: string) => new Date(iso);

export interface ConfigSourceFixture {
  document: ConfigSourceDocument;
  key: ObjectKey;
}

/** A ConfigSource `<namespace>/<name>` reading `pipelines` on main of acme/fleet, with `spec` over that. */
export function configSourceFixture(
  name: string,
  spec: Partial<ConfigSourceSpec> = {},
  namespace = 'flux-system',
): ConfigSourceFixture {
  const document: ConfigSourceDocument = {
    apiVersion: CONFIG_SOURCE_API_VERSION,
    kind: 'ConfigSource',
    metadata: { name, namespace },
    spec: {
      url: 'https://github.com/acme/fleet',
      branch: 'main',
      path: 'pipelines',
      secretRef: { name: 'fleet-config' },
      ...spec,
    },
  };
  return { document, key: { namespace, name } };
}

/** An EKS GitopsCluster `flux-system/<name>`. */
export function clusterFixture(name: string, region = 'eu-west-1'): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name, namespace: 'flux-system' },
    spec: { eks: { clusterName: name, region } },
  };
}

/** A commit of `branch` in Flux's form, `<branch>@sha1:<40 hex>`, from one hex digit repeated. */
export const commit = (digit: string, branch = 'main') => `${branch}@sha1:${digit.repeat(40)}`;
