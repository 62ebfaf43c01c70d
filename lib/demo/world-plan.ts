// What the demo simulates for a configuration (examples/demo or examples/demo-gitlab by default), decided before
// anything starts: one fake Kubernetes API server per GitopsCluster some target runs on, one fleet repository (the
// one the Pipelines' pull-request strategies name), and in it the files it starts with (examples/demo-fleet: the
// folder its ConfigSource applies the Pipelines from) and one HelmRelease manifest per target,
// `clusters/<cluster>/<app>.yaml` (`clusters/<cluster>/<namespace>/<app>.yaml` when a cluster runs the app in several
// namespaces). The manifests of every environment but the first carry that environment's `$promotion` marker; the
// first environment's are what CI writes.
//
// What the configuration may use: HelmRelease apps, GitopsClusters with a `secretRef` (their kubeconfig Secrets
// are what the world hands back, with the simulated servers' kubeconfigs), pull-request promotions into one
// repository on GitHub or one project on GitLab (its token Secrets likewise), ConfigSources reading the branch `main`
// of that repository (their Secrets likewise). Anything else cannot be simulated and is refused with a reason.
import type { Configuration } from '../config/index.js';
import { markerFor } from '../promotion/markers.js';
import {
  repositoryAddress,
  repositoryTypeOf,
  type GitHubAddress,
  type GitLabAddress,
  type RepositoryAddress,
} from '../pipeline/repository-address.js';
import { objectKeyString, type ObjectKey, type Pipeline, pipelineKeyOf } from '../pipeline/model.js';
import { FLEET_HOST_NAMES, type FleetHostType } from './fleet-repository.js';
import { withSourceDocuments } from './source-documents.js';

/** The repository every promotion of the demo goes to, as the configuration's `pull-request.url` names it. */
export type FleetAddress = GitHubAddress | GitLabAddress;

/** A configuration the demo cannot simulate; the message lists every reason, one per line. */
export class DemoConfigurationError extends Error {
  override name = 'DemoConfigurationError';
}

export interface PlannedTarget {
  pipeline: ObjectKey;
  env: string;
  cluster: ObjectKey;
  namespace: string;
  name: string;
  file: string;
  marker?: string;
}

export interface WorldPlan {
  repository: FleetAddress;
  /** The files the repository starts with besides the manifests (what the ConfigSources apply), by path. */
  repositoryFiles: Record<string, string>;
  clusters: { key: ObjectKey; secret: ObjectKey }[];
  targets: PlannedTarget[];
  sourceFiles: Map<string, string[]>;
  /** The Secrets holding a token of the simulated host: the promotions' and the ConfigSources'. */
  tokenSecrets: ObjectKey[];
  /** Every Pipeline, those the ConfigSources apply included. */
  pipelines: ObjectKey[];
  configSources: ObjectKey[];
}

/**
 * What to simulate for a configuration whose ConfigSources read their folders from `repositoryFiles` (the files the
 * simulated repository starts with, by path), or a DemoConfigurationError listing what cannot be.
 */
export function planWorld(loaded: Configuration, repositoryFiles: Readonly<Record<string, string>> = {}): WorldPlan {
  const sourced = withSourceDocuments(loaded, repositoryFiles);
  const { configuration } = sourced;
  const problems: string[] = [...sourced.problems];
  const repositories = new Map<string, FleetAddress>();
  const tokenSecrets = new Map<string, ObjectKey>();
  const clusters = new Map<string, { key: ObjectKey; secret: ObjectKey }>();
  const targets: PlannedTarget[] = [];
  const sourceFiles = new Map<string, string[]>();

  for (const located of configuration.clusters) {
    const secretRef = located.document.spec.secretRef;
    if (!secretRef) {
      problems.push(`GitopsCluster ${objectKeyString(located.key)}: only clusters with a secretRef can be simulated`);
      continue;
    }
    clusters.set(objectKeyString(located.key), {
      key: located.key,
      secret: { namespace: located.key.namespace, name: secretRef.name },
    });
  }

  for (const pipeline of configuration.pipelines) {
    const key = pipelineKeyOf(pipeline);
    const where = `Pipeline ${objectKeyString(key)}`;
    if (pipeline.appRef.kind !== 'HelmRelease') {
      problems.push(`${where}: only HelmRelease apps can be simulated`);
      continue;
    }
    for (const [index, env] of pipeline.environments.entries()) {
      const pullRequest = env.promotion?.strategy['pull-request'];
      if (index > 0 && !isFleetHostType(pullRequest?.type)) {
        problems.push(
          `${where}: environment ${env.name} must be promoted by a GitHub pull request or a GitLab merge request ` +
            'to be simulated',
        );
      } else if (index > 0 && pullRequest) {
        const located = repositoryAddress(pullRequest.type, pullRequest.url);
        const address = located.ok ? fleetAddress(located.address) : undefined;
        if (address) {
          repositories.set(`${address.type} ${fleetPath(address).toLowerCase()}`, address);
        } else {
          problems.push(`${where}: environment ${env.name}: the pull-request url ${located.ok ? '' : located.problem}`);
        }
        const secret = { namespace: pipeline.namespace, name: pullRequest.secretRef.name };
        tokenSecrets.set(objectKeyString(secret), secret);
      }
    }
    const planned = plannedTargets(pipeline, key);
    targets.push(...planned);
    const source = pipeline.environments[0]?.name;
    sourceFiles.set(
      objectKeyString(key),
      planned.filter((target) => target.env === source).map((target) => target.file),
    );
  }
  for (const target of targets) {
    if (!clusters.has(objectKeyString(target.cluster))) {
      problems.push(
        `Pipeline ${objectKeyString(target.pipeline)}: GitopsCluster ${objectKeyString(target.cluster)} is not simulated`,
      );
    }
  }
  const [repository, ...others] = repositories.values();
  // Without the Pipelines a source failed to give, this says nothing more.
  if (!repository && sourced.problems.length === 0) {
    problems.push('no environment is promoted by a GitHub pull request or a GitLab merge request: nothing would flow');
  }
  if (others.length > 0) {
    const named = [...repositories.values()].map(
      (address) => `${fleetPath(address)} on ${FLEET_HOST_NAMES[address.type]}`,
    );
    problems.push(`the promotions go to several repositories (${named.join(', ')}); the demo simulates one`);
  }
  for (const source of configuration.configSources) {
    const { spec } = source.document;
    const where = `ConfigSource ${objectKeyString(source.key)}`;
    const type = repositoryTypeOf(spec.url, spec.type);
    const located = type && repositoryAddress(type, spec.url);
    const address = located?.ok ? fleetAddress(located.address) : undefined;
    if (repository && !(address && sameRepository(address, repository))) {
      problems.push(`${where}: reads ${spec.url}, but the demo simulates only ${fleetPath(repository)}`);
    }
    if (spec.branch !== 'main') problems.push(`${where}: reads branch ${spec.branch}; the demo simulates main only`);
    const secret = { namespace: source.key.namespace, name: spec.secretRef.name };
    tokenSecrets.set(objectKeyString(secret), secret);
  }
  for (const target of targets) {
    if (repositoryFiles[target.file] !== undefined) {
      problems.push(`the repository's file ${target.file} is ${target.name}'s manifest, which the demo writes`);
    }
  }
  if (problems.length > 0 || !repository) throw new DemoConfigurationError(problems.join('\n'));
  // Only the clusters some target runs on are simulated.
  const used = [...clusters.values()].filter((c) =>
    targets.some((t) => objectKeyString(t.cluster) === objectKeyString(c.key)),
  );
  return {
    repository,
    repositoryFiles: { ...repositoryFiles },
    clusters: used,
    targets,
    sourceFiles,
    tokenSecrets: [...tokenSecrets.values()],
    pipelines: configuration.pipelines.map((pipeline) => pipelineKeyOf(pipeline)),
    configSources: configuration.configSources.map((source) => source.key),
  };
}

function plannedTargets(pipeline: Pipeline, key: ObjectKey): PlannedTarget[] {
  const name = pipeline.appRef.name;
  const all = pipeline.environments.flatMap((env, index) =>
    env.targets.map((target) => ({
      pipeline: key,
      env: env.name,
      cluster: target.cluster,
      namespace: target.namespace,
      name,
      ...(index === 0 ? {} : { marker: markerFor(key.namespace, key.name, env.name) }),
    })),
  );
  return all.map((target) => {
    const shared = all.filter((other) => objectKeyString(other.cluster) === objectKeyString(target.cluster));
    const file =
      shared.length > 1
        ? `clusters/${target.cluster.name}/${target.namespace}/${name}.yaml`
        : `clusters/${target.cluster.name}/${name}.yaml`;
    return { ...target, file };
  });
}

function isFleetHostType(type: string | undefined): type is FleetHostType {
  return type === 'github' || type === 'gitlab';
}

function fleetAddress(address: RepositoryAddress): FleetAddress | undefined {
  return address.type === 'github' || address.type === 'gitlab' ? address : undefined;
}

function sameRepository(a: FleetAddress, b: FleetAddress): boolean {
  return a.type === b.type && fleetPath(a).toLowerCase() === fleetPath(b).toLowerCase();
}

/** The repository as its host names it: `acme/fleet` on GitHub, the project's full path on GitLab. */
export function fleetPath(address: FleetAddress): string {
  return address.type === 'github' ? `${address.owner}/${address.repo}` : address.projectPath;
}
