// What a ConfigSource's sync costs in Git requests, DynamoDB requests and time (docs/config-sources.md, "How a sync
// runs"): the promise is that a poll whose sources saw no new commit costs one Git request per source and no store
// write, that a folder is read once per commit, not once per poll, and that a folder of many files is read from one
// archive of the commit, not one request per file.
//
// How: the real poller (`enqueuePolls`) into a recording queue, and each `sync-config-source` message handed to the
// real verifier (`createVerifier`, as the Lambda and `serve` run it) with the GitHub adapter and its Octokit client,
// against FakeGitHub (lib/testing/fake-github.ts), which logs every request. The store is the DynamoDB adapter on
// dynalite (bench/dynamo.ts), every request counted by operation. One repository, acme/fleet on main:
// - 20 sources, `teams/team-NN` each holding one Pipeline; all 20 applied once (the first poll), then one poll more
//   with no new commit is measured: the poller's reads, and each source's sync;
// - one source of 500 files, `fleet/app-NNN.yaml` each holding one Pipeline: its first sync, then 10 polls with no
//   new commit, then one commit that changes one file, each sync sent as the poll sends it. Each commit of it is read
//   from GitHub's tarball (a redirect and its download), no file on its own.
// All pipelines target the GitopsCluster `dev`, applied with the CLI before (a source's pipeline may refer to it).
// Wall times include dynalite (a single-process stand-in, far slower than DynamoDB): upper bounds.
import { applyConfiguration, type ApplyPorts } from '../lib/apply/index.js';
import { enqueuePolls } from '../lib/poller/poller.js';
import { gitHubHost } from '../lib/promotion/github/index.js';
import type { QueueMessage } from '../lib/queue/messages.js';
import { secretKeyNames, StaticSecretSource } from '../lib/secrets/port.js';
import { FakeGitHub } from '../lib/testing/fake-github.js';
import { RecordingPromoter } from '../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../lib/testing/scripted-clusters.js';
import { createVerifier } from '../lib/verifier/index.js';
import { READ_OPERATIONS, startBenchDynamo, WRITE_OPERATIONS, type BenchDynamo } from './dynamo.js';
import { formatMs, formatNumber, formatRatio, runIfMain, type Bench, type Measurement } from './report.js';
import { silentLogger } from '../lib/logging/logger.js';

const OWNER = 'acme';
const REPO = 'fleet';
const NS = 'flux-system';
const SOURCES = 20;
const LARGE_FILES = 500;
const QUIET_POLLS = 10;
const LARGE_SOURCE = { namespace: NS, name: 'fleet' };

const pipeline = (name: string, replicas = 1) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata:
  name: ${name}
  namespace: ${NS}
  labels: { replicas: "${replicas}" }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name} }
  environments:
    - name: dev
      targets: [{ namespace: ${name}, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod
      targets: [{ namespace: ${name}-prod, clusterRef: { kind: GitopsCluster, name: dev } }]
`;

const configSource = (name: string, path: string) => `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: { name: ${name}, namespace: ${NS} }
spec:
  url: https://github.com/${OWNER}/${REPO}
  branch: main
  path: ${path}
  secretRef: { name: ${name}-git }
`;

const team = (index: number) => `team-${String(index + 1).padStart(2, '0')}`;
const app = (index: number) => `app-${String(index + 1).padStart(3, '0')}`;

interface Counted {
  gitRequests: number;
  /** GET /repos/{owner}/{repo}/git/blobs/{file_sha}: one per file read on its own. */
  fileReads: number;
  /** GET /repos/{owner}/{repo}/tarball/{ref}: one per commit read from its archive. */
  archiveReads: number;
  dynamoReads: number;
  dynamoWrites: number;
  /** `GetItem ×20, …` */
  dynamoByOperation: string;
  /** `GET /git/ref/{ref} ×1, …` */
  gitByRoute: string;
  ms: number;
  /** CPU time of the process (the fake, dynalite and the sync share it), beside the wall time. */
  cpuMs: number;
}

function counter(github: FakeGitHub, dynamo: BenchDynamo) {
  return async (run: () => Promise<void>): Promise<Counted> => {
    github.resetRequests();
    dynamo.resetCounts();
    const started = performance.now();
    const cpu = process.cpuUsage();
    await run();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const byRoute = new Map<string, number>();
    for (const { route } of github.requests) byRoute.set(route ?? '?', (byRoute.get(route ?? '?') ?? 0) + 1);
    let dynamoReads = 0;
    let dynamoWrites = 0;
    for (const [operation, count] of dynamo.operations) {
      if (READ_OPERATIONS.has(operation)) dynamoReads += count;
      else if (WRITE_OPERATIONS.has(operation)) dynamoWrites += count;
    }
    return {
      gitRequests: github.requests.length,
      fileReads: github.requests.filter((request) => request.route === 'GET /repos/{owner}/{repo}/git/blobs/{file_sha}')
        .length,
      archiveReads: github.requests.filter((request) => request.route === 'GET /repos/{owner}/{repo}/tarball/{ref}')
        .length,
      dynamoReads,
      dynamoWrites,
      dynamoByOperation:
        [...dynamo.operations].map(([operation, count]) => `${operation} ×${count}`).join(', ') || 'none',
      gitByRoute: [...byRoute]
        .sort((a, b) => b[1] - a[1])
        .map(([route, count]) => `${route.replace('/repos/{owner}/{repo}', '')} ×${count}`)
        .join(', '),
      ms,
      cpuMs: (used.user + used.system) / 1000,
    };
  };
}

const describe = (counted: Counted): string =>
  `${formatNumber(counted.gitRequests)} Git requests (${formatNumber(counted.fileReads)} file reads, ` +
  `${formatNumber(counted.archiveReads)} archive${counted.archiveReads === 1 ? '' : 's'}); DynamoDB ` +
  `${formatNumber(counted.dynamoReads)} reads, ${formatNumber(counted.dynamoWrites)} writes; ${formatMs(counted.ms)} ` +
  `(${formatMs(counted.cpuMs)} of CPU)`;

/** Fails the bench when a premise of the figures breaks. */
function expect(what: string, measured: number, wanted: number): void {
  if (measured !== wanted) throw new Error(`${what}: ${measured}, expected ${wanted}`);
}

export const benchConfigSources: Bench = async () => {
  const github = await FakeGitHub.start();
  const dynamo = await startBenchDynamo();
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < SOURCES; i++) files[`teams/${team(i)}/pipeline.yaml`] = pipeline(team(i));
    for (let i = 0; i < LARGE_FILES; i++) files[`fleet/${app(i)}.yaml`] = pipeline(app(i));
    github.createRepository(OWNER, REPO, files, { defaultBranch: 'main' });

    const secrets = new StaticSecretSource([
      { key: { namespace: NS, name: 'dev-kubeconfig' }, values: { value: 'apiVersion: v1\nkind: Config\n' } },
    ]);
    for (let i = 0; i < SOURCES; i++) secrets.set({ namespace: NS, name: `${team(i)}-git` }, { token: github.token });
    secrets.set({ namespace: NS, name: `${LARGE_SOURCE.name}-git` }, { token: github.token });
    const { store } = dynamo;
    const queue = new RecordingQueue();
    const ports: ApplyPorts = {
      description: 'the bench table',
      store,
      putSecret: () => Promise.resolve(),
      secretKeys: (key) => secretKeyNames(secrets, key),
      enqueue: async (message) => {
        await queue.send(message);
        return true;
      },
      identity: () => Promise.resolve('local:bench'),
    };
    const cliApply = async (text: string) => {
      const applied = await applyConfiguration(ports, { source: { text, file: 'bench.yaml' } });
      if (!applied.ok) throw new Error(`apply refused: ${applied.problems.join('; ')}`);
    };
    await cliApply(`apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: dev, namespace: ${NS} }
spec: { secretRef: { name: dev-kubeconfig } }
`);

    const verifier = createVerifier({
      store,
      queue,
      clusters: new ScriptedClusters(),
      promoter: new RecordingPromoter(),
      logger: silentLogger,
      now: () => new Date(),
      workerId: 'bench-verifier',
      // As the Lambda builds it: the adapter's defaults (no writes here, so no write spacing either).
      configSources: { git: { hosts: [gitHubHost()], secrets, apiUrls: { github: github.url } } },
    });
    let messageId = 0;
    const deliver = async (message: QueueMessage) => {
      await verifier(message, { messageId: String(++messageId), receiveCount: 1 });
    };
    /** The poller, then each `sync-config-source` it sent handed to the verifier (the rest is not this bench's). */
    const poll = async () => {
      await enqueuePolls({ store, queue });
      for (const { message } of queue.take()) if (message.type === 'sync-config-source') await deliver(message);
    };
    const syncLarge = () => deliver({ type: 'sync-config-source', source: LARGE_SOURCE, cause: 'poll' });
    const count = counter(github, dynamo);
    const ready = async (name: string) => {
      const stored = await store.getConfigSource({ namespace: NS, name });
      const condition = stored?.status.conditions.find((each) => each.type === 'Ready');
      if (condition?.status !== 'True') throw new Error(`source ${name} is not ready: ${condition?.message}`);
      return stored?.status;
    };

    // (a) 20 sources: the first poll applies each, the next one finds no new commit.
    await cliApply(Array.from({ length: SOURCES }, (_, i) => configSource(team(i), `teams/${team(i)}`)).join('---\n'));
    queue.take();
    const firstPoll = await count(poll);
    for (let i = 0; i < SOURCES; i++) await ready(team(i));
    // What the first poll applied moved the configuration generation on, so the next poll lists the pairs to poll
    // again and stores that plan: one write, once per change of the configuration (docs/architecture.md, "The poll
    // digest"). The polls after it write nothing.
    const replanPoll = await count(poll);
    expect('Git requests of the poll after the sources applied their objects', replanPoll.gitRequests, SOURCES);
    expect(
      'DynamoDB writes of the poll after the sources applied their objects (the poll plan)',
      replanPoll.dynamoWrites,
      1,
    );
    const quietPoll = await count(poll);
    expect('Git requests of a poll with no new commit', quietPoll.gitRequests, SOURCES);
    expect('DynamoDB writes of a poll with no new commit', quietPoll.dynamoWrites, 0);

    // (b) one source of 500 files: first sync, quiet polls, one changed file.
    await cliApply(configSource(LARGE_SOURCE.name, 'fleet'));
    queue.take();
    const first = await count(syncLarge);
    expect('objects applied by the first sync of 500 files', (await ready(LARGE_SOURCE.name))?.applied ?? 0, 500);
    expect('archives read by the first sync', first.archiveReads, 1);
    expect('files read on their own by the first sync', first.fileReads, 0);
    const quiet = await count(async () => {
      for (let i = 0; i < QUIET_POLLS; i++) await syncLarge();
    });
    expect(`Git requests of ${QUIET_POLLS} polls with no new commit`, quiet.gitRequests, QUIET_POLLS);
    expect(`DynamoDB writes of ${QUIET_POLLS} polls with no new commit`, quiet.dynamoWrites, 0);
    github.commitFiles(OWNER, REPO, 'main', { [`fleet/${app(0)}.yaml`]: pipeline(app(0), 2) }, 'bench');
    const changed = await count(syncLarge);
    expect('archives read by the sync of a one-file change', changed.archiveReads, 1);
    expect('files read on their own by the sync of a one-file change', changed.fileReads, 0);
    const status = await ready(LARGE_SOURCE.name);
    if (!status?.lastAppliedRevision?.endsWith(github.ref(OWNER, REPO, 'main') ?? '?')) {
      throw new Error('the changed commit was not applied');
    }
    queue.take();

    const measurements: Measurement[] = [
      {
        name: `poll of ${SOURCES} sources, no new commit`,
        value: describe(quietPoll),
        baseline: `first poll, each source applied (1 Pipeline each): ${describe(firstPoll)}`,
        note:
          `poller and verifier; DynamoDB: ${quietPoll.dynamoByOperation} (the poller lists the sources, each ` +
          'sync reads its source); Git: one branch read per source',
      },
      {
        name: `source of ${LARGE_FILES} files (1 Pipeline each): first sync`,
        value: describe(first),
        note: `Git: ${first.gitByRoute}; DynamoDB: ${first.dynamoByOperation}`,
      },
      {
        name: `the same source: ${QUIET_POLLS} polls with no new commit`,
        value: describe(quiet),
        baseline: `reading the folder on every poll: ${formatNumber(QUIET_POLLS * first.gitRequests)} Git requests`,
        ratio: `${formatRatio(QUIET_POLLS * first.gitRequests, quiet.gitRequests)} fewer`,
        note: `per poll: ${formatMs(quiet.ms / QUIET_POLLS)}; DynamoDB: ${quiet.dynamoByOperation}`,
      },
      {
        name: 'the same source: one commit changing one file',
        value: describe(changed),
        baseline: `first sync: ${formatNumber(first.gitRequests)} Git requests, ${formatMs(first.ms)}`,
        note:
          `the new commit's folder read again from its archive; 1 Pipeline configured; Git: ${changed.gitByRoute}; ` +
          `DynamoDB: ${changed.dynamoByOperation}`,
      },
    ];
    return { title: 'ConfigSource sync (GitHub, dynalite)', measurements };
  } finally {
    await github.stop();
    await dynamo.stop();
  }
};

await runIfMain(import.meta.url, benchConfigSources);
