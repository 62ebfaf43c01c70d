// The simulated outside world of `pipelinectl demo`, started from its plan (world-plan.ts): the fake Kubernetes API
// servers, each target's HelmRelease on its cluster, and the fake GitHub or GitLab holding the fleet repository
// with the files it starts with (the ConfigSources' folders) and one manifest per target. Every target starts
// deployed and healthy at `initialVersion`.
import type { Configuration } from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { FakeKubeApi } from '../testing/fake-kube-api.js';
import { installedHelmRelease } from '../testing/helm-release.js';
import { fleetManifest } from './fleet-manifest.js';
import type { FleetRepository } from './fleet-repository.js';
import type { SimulatedTarget } from './flux-simulator.js';
import { GitHubFleetRepository } from './github-fleet-repository.js';
import { GitLabFleetRepository } from './gitlab-fleet-repository.js';
import { planWorld, type FleetAddress, type WorldPlan } from './world-plan.js';

export interface DemoTarget extends SimulatedTarget {
  name: string;
  pipeline: ObjectKey;
  env: string;
}

export interface DemoWorld {
  /** The fleet repository on its simulated host. */
  repository: FleetRepository;
  /**
   * The local mode's API base for the simulated host (LocalModeOptions): every pull request of the configuration
   * goes to it, whatever API its URL implies.
   */
  hostApi: { githubApiUrl: string } | { gitlabApiUrl: string };
  /** The fake API server of each GitopsCluster, by `ns/name`. */
  clusters: Map<string, FakeKubeApi>;
  /** Every target of every Pipeline, in pipeline and environment order. */
  targets: DemoTarget[];
  /** The manifests of each Pipeline's first environment (what CI writes), by `ns/name` of the Pipeline. */
  sourceFiles: Map<string, string[]>;
  /**
   * The kubeconfig and Git host token Secrets (the promotions' and the ConfigSources'), to layer over the
   * configuration's placeholders.
   */
  secrets: { key: ObjectKey; values: Record<string, string> }[];
  stop(): Promise<void>;
}

/**
 * Checks that the configuration can be simulated with the repository starting with `repositoryFiles` (else a
 * DemoConfigurationError), then starts its world.
 */
export async function startDemoWorld(
  configuration: Configuration,
  initialVersion: string,
  repositoryFiles: Readonly<Record<string, string>> = {},
): Promise<DemoWorld> {
  return startPlannedWorld(planWorld(configuration, repositoryFiles), initialVersion);
}

/** Starts the world a plan describes. */
export async function startPlannedWorld(plan: WorldPlan, initialVersion: string): Promise<DemoWorld> {
  const clusters = new Map<string, FakeKubeApi>();
  let repository: FleetRepository | undefined;
  const stop = async () => {
    await Promise.all([...clusters.values()].map((cluster) => cluster.stop()));
    await repository?.stop();
  };
  try {
    for (const cluster of plan.clusters) clusters.set(objectKeyString(cluster.key), await FakeKubeApi.start());
    const files: Record<string, string> = { ...plan.repositoryFiles };
    const targets: DemoTarget[] = plan.targets.map((target) => {
      const api = clusters.get(objectKeyString(target.cluster));
      if (!api) throw new Error(`no simulated cluster ${objectKeyString(target.cluster)}`);
      files[target.file] = fleetManifest({
        namespace: target.namespace,
        name: target.name,
        version: initialVersion,
        ...(target.marker === undefined ? {} : { marker: target.marker }),
        comment: `${target.name} on the ${target.cluster.name} cluster (${target.env}), as Flux there applies it.`,
      });
      api.put(installedHelmRelease({ namespace: target.namespace, name: target.name }, initialVersion));
      return {
        pipeline: target.pipeline,
        env: target.env,
        cluster: target.cluster,
        api,
        namespace: target.namespace,
        name: target.name,
        file: target.file,
      };
    });
    repository = await startFleetRepository(plan.repository, files, 'Fleet at ' + initialVersion);
    const token = repository.token;
    const secrets = [
      ...plan.clusters.map((cluster) => {
        const api = clusters.get(objectKeyString(cluster.key));
        return { key: cluster.secret, values: { value: api?.kubeconfig({ name: cluster.key.name }) ?? '' } };
      }),
      // `token` is the key both hosts' promoters read.
      ...plan.tokenSecrets.map((key) => ({ key, values: { token } })),
    ];
    const { apiUrl } = repository;
    const hostApi = repository.type === 'github' ? { githubApiUrl: apiUrl } : { gitlabApiUrl: apiUrl };
    return { repository, hostApi, clusters, targets, sourceFiles: plan.sourceFiles, secrets, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A fake of the address's host holding the repository, with `files` in one commit on `main`. */
function startFleetRepository(
  address: FleetAddress,
  files: Record<string, string>,
  message: string,
): Promise<FleetRepository> {
  return address.type === 'github'
    ? GitHubFleetRepository.start(address, files, message)
    : GitLabFleetRepository.start(address, files, message);
}
