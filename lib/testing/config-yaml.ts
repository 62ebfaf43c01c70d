// The configuration documents of a `pipelinectl serve` configuration directory as YAML text, as a user writes them:
// GitopsClusters, Secrets and Pipelines (Weave's CRDs), and a HelmRelease manifest of a fleet repository with a
// promotion marker. For the tests, the demo and the benchmarks, which write a configuration to a temporary directory.
// Names (of objects, namespaces, keys) are written as they are; values that may hold anything (a kubeconfig, a
// token, a URL) are JSON-quoted, which is valid YAML.

/** Where a document is when no namespace is given: Flux's and Weave's usual one. */
export const DEFAULT_NAMESPACE = 'flux-system';

/** YAML documents in one stream, `---` between them (each document ends with a newline). */
export function yamlDocuments(...documents: readonly string[]): string {
  return documents.join('---\n');
}

/** A GitopsCluster whose kubeconfig is in a Secret: `spec.secretRef`, by default `<name>-kubeconfig`. */
export function gitopsClusterYaml(
  name: string,
  options: { namespace?: string; secretName?: string; labels?: Record<string, string> } = {},
): string {
  const { namespace = DEFAULT_NAMESPACE, secretName = `${name}-kubeconfig` } = options;
  const labels = options.labels ? `, labels: ${JSON.stringify(options.labels)}` : '';
  return `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: ${namespace}${labels}}
spec:
  secretRef: {name: ${secretName}}
`;
}

/** A Secret with `stringData`, each value JSON-quoted. */
export function secretYaml(name: string, stringData: Record<string, string>, namespace = DEFAULT_NAMESPACE): string {
  const entries = Object.entries(stringData).map(([key, value]) => `  ${key}: ${JSON.stringify(value)}\n`);
  return `apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: ${namespace}}
stringData:
${entries.join('')}`;
}

/** A GitopsCluster and the Secret `<name>-kubeconfig` holding its kubeconfig (under `value`). */
export function clusterWithKubeconfigYaml(
  name: string,
  kubeconfig: string,
  namespace = DEFAULT_NAMESPACE,
  labels?: Record<string, string>,
): string {
  return yamlDocuments(
    gitopsClusterYaml(name, { namespace, ...(labels ? { labels } : {}) }),
    secretYaml(`${name}-kubeconfig`, { value: kubeconfig }, namespace),
  );
}

/** A GitHub pull-request strategy: pull requests on `url` against `baseBranch`, with the token of a Secret. */
export interface PullRequestStrategy {
  /** The repository, e.g. `https://github.com/acme/fleet`. */
  url: string;
  /** Default `main`. */
  baseBranch?: string;
  /** The Secret with the GitHub token (`secretRef`), in the Pipeline's namespace; default `github`. */
  tokenSecret?: string;
}

/** How an environment is promoted: by pull request, or by a notification (the default strategy of Weave). */
export type Strategy = PullRequestStrategy | 'notification';

export interface EnvironmentOptions {
  name: string;
  /** `after`: the environments this one follows (default: the one listed before it). */
  after?: readonly string[];
  /** Each target: a namespace on a GitopsCluster of the Pipeline's namespace. */
  targets: readonly { namespace: string; cluster: string }[];
  /** `targetSelector`: the app in `namespace` on every GitopsCluster with these labels. */
  selector?: { matchLabels: Record<string, string>; namespace: string };
  /** Waits for an approval; promoted by `strategy`, else by the Pipeline's strategy (without its `secretRef`). */
  manual?: boolean;
  /** The environment's own strategy, in place of the Pipeline's. */
  strategy?: Strategy;
  /** `approval`, as a YAML flow mapping: `{required: 2, approvers: {users: [alice, bob]}}`. */
  approval?: string;
  /** `verification`, as a YAML flow mapping (JSON is one): `{for: 5m, checks: [{name: smoke, http: {url: …}}]}`. */
  verification?: string;
}

export interface PipelineOptions {
  name: string;
  /** Default `flux-system`. */
  namespace?: string;
  /** The app's kind (HelmRelease by default); the app has the Pipeline's name, in each target's namespace. */
  kind?: 'HelmRelease' | 'Kustomization';
  environments: readonly EnvironmentOptions[];
  /** The Pipeline's strategy (`spec.promotion.strategy`). */
  strategy: Strategy;
  /** The Secret with the HMAC key of Weave's approval route (`spec.promotion.strategy.secretRef`), if any. */
  hmacSecret?: string;
  /** `spec.source`: where new versions come from (an object on a GitopsCluster of the Pipeline's namespace). */
  source?: { kind: 'ImagePolicy' | 'OCIRepository'; name: string; namespace: string; cluster: string };
}

const APP_API_VERSIONS = {
  HelmRelease: 'helm.toolkit.fluxcd.io/v2',
  Kustomization: 'kustomize.toolkit.fluxcd.io/v1',
} as const;

/** The strategy's own line: `pull-request: {…}` or `notification: {}`. */
function strategyLine(strategy: Strategy): string {
  if (strategy === 'notification') return 'notification: {}';
  const { url, baseBranch = 'main', tokenSecret = 'github' } = strategy;
  return `pull-request: {type: github, url: ${JSON.stringify(url)}, baseBranch: ${baseBranch}, secretRef: {name: ${tokenSecret}}}`;
}

function environmentYaml(env: EnvironmentOptions, pipelineStrategy: Strategy): string {
  const targets = env.targets.map(
    ({ namespace, cluster }) => `{namespace: ${namespace}, clusterRef: {kind: GitopsCluster, name: ${cluster}}}`,
  );
  let text = `    - name: ${env.name}\n      targets: [${targets.join(', ')}]\n`;
  if (env.after) text += `      after: [${env.after.join(', ')}]\n`;
  if (env.selector) {
    const { matchLabels, namespace } = env.selector;
    text += `      targetSelector: {clusterSelector: {matchLabels: ${JSON.stringify(matchLabels)}}, namespace: ${namespace}}\n`;
  }
  if (env.approval !== undefined) text += `      approval: ${env.approval}\n`;
  if (env.verification !== undefined) text += `      verification: ${env.verification}\n`;
  if (env.manual || env.strategy) {
    text += '      promotion:\n';
    if (env.manual) text += '        manual: true\n';
    text += `        strategy:\n          ${strategyLine(env.strategy ?? pipelineStrategy)}\n`;
  }
  return text;
}

/** A Pipeline (pipelines.weave.works/v1alpha1) with its environments in order. */
export function pipelineYaml(options: PipelineOptions): string {
  const { name, namespace = DEFAULT_NAMESPACE, kind = 'HelmRelease', strategy, hmacSecret, source } = options;
  const environments = options.environments.map((env) => environmentYaml(env, strategy));
  const sourceLine = source
    ? `  source: {kind: ${source.kind}, name: ${source.name}, namespace: ${source.namespace}, ` +
      `clusterRef: {kind: GitopsCluster, name: ${source.cluster}}}\n`
    : '';
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  appRef: {apiVersion: ${APP_API_VERSIONS[kind]}, kind: ${kind}, name: ${name}}
${sourceLine}  environments:
${environments.join('')}  promotion:
    strategy:
      ${strategyLine(strategy)}
${hmacSecret === undefined ? '' : `      secretRef: {name: ${hmacSecret}}\n`}`;
}

/**
 * The configuration of the serve tests and the latency benchmark: GitopsCluster `flux-system/fleet` (its kubeconfig
 * in Secret `fleet-kubeconfig`) and Pipeline `flux-system/podinfo`, a HelmRelease podinfo promoted dev → prod (the
 * namespaces `dev` and `prod` of fleet) by pull request on acme/fleet's `main`, with the token of Secret
 * `flux-system/github` (which this leaves out: see `podinfoServeFiles`).
 */
export function podinfoOnOneClusterYaml(kubeconfig: string): string {
  return yamlDocuments(
    clusterWithKubeconfigYaml('fleet', kubeconfig),
    pipelineYaml({
      name: 'podinfo',
      environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: env, cluster: 'fleet' }] })),
      strategy: { url: 'https://github.com/acme/fleet' },
    }),
  );
}

/** A configuration directory `config/` with `podinfoOnOneClusterYaml` and the GitHub token Secret. */
export function podinfoServeFiles(kubeconfig: string, githubToken: string): Record<string, string> {
  return {
    'config/fleet.yaml': podinfoOnOneClusterYaml(kubeconfig),
    'config/github.yaml': secretYaml('github', { token: githubToken }),
  };
}

/**
 * A manifest of the fleet repository: HelmRelease podinfo in `namespace`, its chart version `version` marked for
 * environment `env` of Pipeline flux-system/podinfo.
 */
export function podinfoReleaseYaml(namespace: string, env: string, version: string): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: ${namespace}
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
`;
}
