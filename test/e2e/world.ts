// A small world for the end-to-end suite, driven as a user drives it: leaf clusters that are fake Kubernetes API
// servers (HTTPS), a fleet repository on a fake GitHub, a configuration directory (GitopsClusters with kubeconfig
// Secrets, the GitHub token Secret, the test's Pipelines), and `pipelinectl serve` as a child process on a data
// directory. Flux's part is played by the test: it changes what a cluster runs and posts signed events; a user's part
// is `pipelinectl approve`, `pipelinectl status -o json` and Weave's `/approval` route.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { readStatus, type StatusJson } from '../../lib/cli/operations/status.js';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { loadOrCreateMasterKeys } from '../../lib/local/data-dir.js';
import type { Store } from '../../lib/store/port.js';
import { clusterWithKubeconfigYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe, type Exited, type ServeProcess } from '../local/serve-process.js';

/** Every GitopsCluster of the world is in this namespace, and so are the Pipelines and their Secrets. */
export const NAMESPACE = 'flux-system';
export const OWNER = 'acme';
export const REPOSITORY = 'fleet';
export const REPOSITORY_URL = `https://github.com/${OWNER}/${REPOSITORY}`;
/** The Secret with the GitHub token, for `pull-request.secretRef`. */
export const GITHUB_SECRET = 'github';

export interface WorldOptions {
  /** The leaf clusters, GitopsClusters `flux-system/<name>`. */
  clusters: readonly string[];
  /** The fleet repository's files on `main`. */
  repository: Record<string, string>;
  /** The Pipelines (and any other Secrets they name), YAML as a user writes it. */
  pipelines: string;
  /** How often serve polls every (cluster, kind). */
  pollInterval: '1s' | '2s' | '5s' | '1h';
  /** Leaf clusters that run but are not registered yet: `register` applies their GitopsCluster later. */
  unregistered?: readonly string[];
  /** More flags for `serve` (e.g. the notification Secrets), after the world's own. */
  serveArgs?: readonly string[];
  /** Variables of serve's own environment (e.g. where the AWS SDK finds CloudWatch, and its credentials). */
  serveEnv?: Record<string, string>;
}

export interface World {
  /** The data directory serve and the CLI use. */
  dataDir: string;
  cluster(name: string): FakeKubeApi;
  github: FakeGitHub;
  /** The running serve (after `startServe`). */
  serve(): ServeProcess;
  startServe(): Promise<ServeProcess>;
  /** Posts a Flux event about an object of `cluster`, signed with the cluster's key; returns the HTTP status. */
  sendEvent(
    cluster: string,
    body: string,
    component: 'helm-controller' | 'kustomize-controller' | 'image-reflector-controller' | 'source-controller',
  ): Promise<number>;
  /** Weave's `POST /approval/{ns}/{name}/{env}/{revision}`, signed over the empty body; returns the HTTP status. */
  approveThroughWeave(pipeline: string, env: string, revision: string, hmacKey: string): Promise<number>;
  /** `pipelinectl apply` of a cluster of `unregistered` (GitopsCluster with `labels`, and its kubeconfig Secret). */
  register(cluster: string, labels: Record<string, string>): Promise<void>;
  /** `pipelinectl apply -f` of this YAML (written to a file of the world); fails the test when it is refused. */
  apply(yaml: string): Promise<void>;
  /** `pipelinectl <args> --data-dir <dataDir>`, to its end. */
  pipelinectl(...args: string[]): Promise<Exited>;
  /** `pipelinectl status -o json`, parsed; fails the test on a non-zero exit. */
  statusCli(): Promise<StatusJson>;
  /** The same JSON, computed in this process from the data directory (cheap enough to poll in a wait). */
  statusNow(): Promise<StatusJson>;
  /** Runs `read` against the data directory's store (through the running serve, or opened directly). */
  readStore<T>(read: (store: Store) => Promise<T>): Promise<T>;
}

export async function startWorld(t: TestContext, options: WorldOptions): Promise<World> {
  const clusters = new Map<string, FakeKubeApi>();
  const unregistered = new Map<string, FakeKubeApi>();
  for (const name of [...options.clusters, ...(options.unregistered ?? [])]) {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    (options.clusters.includes(name) ? clusters : unregistered).set(name, kube);
  }
  const github = await new FakeGitHub().start();
  t.after(() => github.stop());
  github.createRepository(OWNER, REPOSITORY, options.repository);

  const root = await tempFiles(t, {
    'config/clusters.yaml': clustersYaml(clusters),
    'config/github.yaml': secretYaml(GITHUB_SECRET, { token: github.token }, NAMESPACE),
    'config/pipelines.yaml': options.pipelines,
  });
  const dataDir = join(root, 'data');
  const serveArgs = ['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0'];
  serveArgs.push('--poll-interval', options.pollInterval, '--github-api-url', github.url, ...(options.serveArgs ?? []));

  let running: ServeProcess | undefined;
  const serve = () => {
    if (!running) throw new Error('serve is not started');
    return running;
  };
  const withBackend = async <T>(use: (backend: Backend) => Promise<T>): Promise<T> => {
    const backend = await openLocalBackend(dataDir);
    try {
      return await use(backend);
    } finally {
      await backend.close();
    }
  };
  const post = async (path: string, body: string, headers: Record<string, string>) => {
    const response = await fetch(`${serve().receiverUrl}${path}`, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return response.status;
  };
  const pipelinectl = (...args: string[]) => runPipelinectl([...args, '--data-dir', dataDir]);
  let applied = 0;

  return {
    dataDir,
    cluster: (name) => {
      const kube = clusters.get(name) ?? unregistered.get(name);
      if (!kube) throw new Error(`no cluster ${name} in this world`);
      return kube;
    },
    github,
    serve,
    startServe: async () =>
      (running = await startServe(t, serveArgs, options.serveEnv ? { env: options.serveEnv } : {})),
    sendEvent: async (cluster, body, component) => {
      const masterKey = (await loadOrCreateMasterKeys(dataDir)).current;
      const key = deriveClusterKey(masterKey, { namespace: NAMESPACE, name: cluster });
      return post(`/v1/events/${NAMESPACE}/${cluster}`, body, {
        'content-type': 'application/json',
        'gotk-component': component,
        'x-signature': signatureHeader(body, key),
      });
    },
    approveThroughWeave: (pipeline, env, revision, hmacKey) => {
      const path = [NAMESPACE, pipeline, env, revision].map(encodeURIComponent).join('/');
      return post(`/approval/${path}`, '', { 'x-signature': signatureHeader('', hmacKey) });
    },
    register: async (cluster, labels) => {
      const kube = unregistered.get(cluster);
      if (!kube) throw new Error(`no unregistered cluster ${cluster} in this world`);
      const file = join(root, `register-${cluster}.yaml`);
      await writeFile(file, clusterWithKubeconfigYaml(cluster, kube.kubeconfig(), NAMESPACE, labels));
      const applied = await pipelinectl('apply', '-f', file);
      if (applied.code !== 0) throw new Error(`pipelinectl apply of ${cluster} failed: ${applied.stderr}`);
    },
    apply: async (yaml) => {
      const file = join(root, `apply-${(applied += 1)}.yaml`);
      await writeFile(file, yaml);
      const result = await pipelinectl('apply', '-f', file);
      if (result.code !== 0) throw new Error(`pipelinectl apply failed: ${result.stderr}`);
    },
    pipelinectl,
    statusCli: async () => {
      const result = await pipelinectl('status', '-o', 'json');
      if (result.code !== 0) throw new Error(`pipelinectl status failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout) as StatusJson;
    },
    statusNow: () => withBackend(async (backend) => (await readStatus(backend, undefined, new Date())).json),
    readStore: (read) => withBackend((backend) => read(backend.store)),
  };
}

function clustersYaml(clusters: ReadonlyMap<string, FakeKubeApi>): string {
  return yamlDocuments(
    ...[...clusters].map(([name, kube]) => clusterWithKubeconfigYaml(name, kube.kubeconfig(), NAMESPACE)),
  );
}

/** The one environment `env` of pipeline `name` in a status, or a clear failure. */
export function environmentOf(status: StatusJson, name: string, env: string) {
  const pipeline = status.pipelines.find((candidate) => candidate.name === name);
  const environment = pipeline?.environments.find((candidate) => candidate.name === env);
  if (!environment) throw new Error(`no environment ${env} of pipeline ${name} in the status`);
  return environment;
}

/** Every target of every pipeline is healthy on the revision `expected` gives for it. */
export function allTargetsRun(status: StatusJson, expected: (pipeline: string, env: string) => string): boolean {
  return status.pipelines.every((pipeline) =>
    pipeline.environments.every((env) =>
      env.targets.every((target) => target.phase === 'Ready' && target.revision === expected(pipeline.name, env.name)),
    ),
  );
}
