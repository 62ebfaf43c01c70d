// What the demo simulates for a configuration (examples/demo by default), decided before anything starts: one fake
// Kubernetes API server per GitopsCluster some target runs on, one fleet repository (the one the Pipelines'
// pull-request strategies name), and in it one HelmRelease manifest per target, `clusters/<cluster>/<app>.yaml`
// (`clusters/<cluster>/<namespace>/<app>.yaml` when a cluster runs the app in several namespaces). The manifests of
// every environment but the first carry that environment's `$promotion` marker; the first environment's are what
// CI writes.
//
// What the configuration may use: HelmRelease apps, GitopsClusters with a `secretRef` (their kubeconfig Secrets
// are what the world hands back, with the simulated servers' kubeconfigs), GitHub pull-request promotions into
// one repository (its token Secrets likewise). Anything else cannot be simulated and is refused with a reason.
import type { Configuration } from '../config/index.js';
import { markerFor } from '../promotion/markers.js';
import { repositoryAddress } from '../pipeline/repository-address.js';
import { objectKeyString, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import type { FleetRepository } from './fleet-manifest.js';

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
  repository: FleetRepository;
  clusters: { key: ObjectKey; secret: ObjectKey }[];
  targets: PlannedTarget[];
  sourceFiles: Map<string, string[]>;
  tokenSecrets: ObjectKey[];
}

/** What to simulate for a configuration, or a DemoConfigurationError listing what cannot be. */
export function planWorld(configuration: Configuration): WorldPlan {
  const problems: string[] = [];
  const repositories = new Map<string, FleetRepository>();
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
    const key = { namespace: pipeline.namespace, name: pipeline.name };
    const where = `Pipeline ${objectKeyString(key)}`;
    if (pipeline.appRef.kind !== 'HelmRelease') {
      problems.push(`${where}: only HelmRelease apps can be simulated`);
      continue;
    }
    for (const [index, env] of pipeline.environments.entries()) {
      const pullRequest = env.promotion?.strategy['pull-request'];
      if (index > 0 && pullRequest?.type !== 'github') {
        problems.push(`${where}: environment ${env.name} must be promoted by a GitHub pull request to be simulated`);
      } else if (index > 0 && pullRequest) {
        const located = repositoryAddress('github', pullRequest.url);
        if (located.ok && located.address.type === 'github') {
          const { owner, repo } = located.address;
          repositories.set(`${owner}/${repo}`.toLowerCase(), { owner, name: repo });
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
  if (!repository) problems.push('no environment is promoted by a GitHub pull request: nothing would flow');
  if (others.length > 0) problems.push('the pull requests name several repositories; the demo simulates one');
  if (problems.length > 0 || !repository) throw new DemoConfigurationError(problems.join('\n'));
  // Only the clusters some target runs on are simulated.
  const used = [...clusters.values()].filter((c) =>
    targets.some((t) => objectKeyString(t.cluster) === objectKeyString(c.key)),
  );
  return { repository, clusters: used, targets, sourceFiles, tokenSecrets: [...tokenSecrets.values()] };
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
