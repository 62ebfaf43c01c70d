// The simulated outside world of `pipelinectl demo`, started from its plan (world-plan.ts): the fake Kubernetes API
// servers, each target's HelmRelease on its cluster, and the fake GitHub holding the fleet repository with one
// manifest per target. Every target starts deployed and healthy at `initialVersion`.
import type { Configuration } from '../config/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { FakeGitHub } from '../testing/fake-github.js';
import { FakeKubeApi } from '../testing/fake-kube-api.js';
import { installedHelmRelease } from '../testing/helm-release.js';
import { fleetManifest, type FleetRepository } from './fleet-manifest.js';
import type { SimulatedTarget } from './flux-simulator.js';
import { planWorld } from './world-plan.js';

export interface DemoTarget extends SimulatedTarget {
  name: string;
  pipeline: ObjectKey;
  env: string;
}

export interface DemoWorld {
  github: FakeGitHub;
  repository: FleetRepository;
  /** The fake API server of each GitopsCluster, by `ns/name`. */
  clusters: Map<string, FakeKubeApi>;
  /** Every target of every Pipeline, in pipeline and environment order. */
  targets: DemoTarget[];
  /** The manifests of each Pipeline's first environment (what CI writes), by `ns/name` of the Pipeline. */
  sourceFiles: Map<string, string[]>;
  /** The kubeconfig and GitHub token Secrets, to layer over the configuration's placeholders. */
  secrets: { key: ObjectKey; values: Record<string, string> }[];
  stop(): Promise<void>;
}

/** Checks that the configuration can be simulated (else a DemoConfigurationError), then starts its world. */
export async function startDemoWorld(configuration: Configuration, initialVersion: string): Promise<DemoWorld> {
  const plan = planWorld(configuration);
  const github = await FakeGitHub.start();
  const clusters = new Map<string, FakeKubeApi>();
  const stop = async () => {
    await Promise.all([...clusters.values()].map((cluster) => cluster.stop()));
    await github.stop();
  };
  try {
    for (const cluster of plan.clusters) clusters.set(objectKeyString(cluster.key), await FakeKubeApi.start());
    const files: Record<string, string> = {};
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
    github.createRepository(plan.repository.owner, plan.repository.name, files, {
      message: 'Fleet at ' + initialVersion,
    });
    const secrets = [
      ...plan.clusters.map((cluster) => {
        const api = clusters.get(objectKeyString(cluster.key));
        return { key: cluster.secret, values: { value: api?.kubeconfig({ name: cluster.key.name }) ?? '' } };
      }),
      ...plan.tokenSecrets.map((key) => ({ key, values: { token: github.token } })),
    ];
    return { github, repository: plan.repository, clusters, targets, sourceFiles: plan.sourceFiles, secrets, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
