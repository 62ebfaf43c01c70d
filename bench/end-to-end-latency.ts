// Latency from a signed Flux event POSTed to the receiver until the promotion pull request is open on GitHub, in
// the local mode (`pipelinectl serve`), against a fake leaf cluster and a fake GitHub.
//
// How: a configuration directory in a temporary directory (a GitopsCluster `fleet` with its kubeconfig Secret for a
// FakeKubeApi; the Pipeline flux-system/podinfo, dev → prod, pull-request strategy on acme/fleet; the GitHub token
// Secret), a FakeGitHub whose repository holds clusters/{dev,prod}/podinfo.yaml with their markers. For each of N
// successive revisions (6.9.2, 6.9.3, …): the dev HelmRelease is set to the revision (deployed and healthy), the
// signed event is POSTed over HTTP, and the clock stops when FakeGitHub lists an open pull request titled for that
// revision (checked every 2 ms). Then the pull request is merged as GitHub's merge button does by default (a merge
// commit, never a fast-forward) and the promotion record is awaited (untimed), so every revision opens a new pull
// request from the branch the previous one left. The fake GitHub's per-request hook timestamps every request, so each
// latency is also split at the first GitHub request (controller side before it, GitHub side after).
//
// Rows:
// 1. the local mode as a user runs it: `startLocalMode` (lib/local/mode.ts) with its defaults. Its GitHub client
//    keeps Octokit's throttling plugin defaults, which space writes 1 s apart and pull-request creation 3 s apart;
//    a promotion of one file makes 3 writes (the branch reset onto the base, the file's commit through the contents
//    API, the pull request: lib/promotion/github/branch-write.ts), so the throttle alone is 2 s of it. The bench
//    fails when a promotion makes more writes. Revisions are 1 s apart after the previous pull request, so each
//    promotion starts with idle limiters (the pull-request limiter too: its last use is over 3 s back), as with a
//    release cadence of minutes.
// 2. the same local mode with `githubWriteIntervalMs: 0`: GitHub writes not spaced, so the rest of the path is timed;
// 3. the baseline, poll only: no event; the scheduled poll (every 2 s here; `serve` defaults to 5 min) finds the
//    new revision; the local mode as in 2, latency measured from the HelmRelease change, which is made at evenly spread
//    points of the poll interval (after the previous promotion, waits of 0, 1/5, … 4/5 of the interval).
// Excluded: Flux's own delay before it sends the event, and the fake GitHub's absence of network latency (GitHub's
// API answers in tens to hundreds of ms, so each of the ~9 sequential requests adds that on the real service).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveClusterKey, signatureHeader } from '../lib/http/index.js';
import { startLocalMode } from '../lib/local/mode.js';
import type { AppKey } from '../lib/pipeline/model.js';
import { pullRequestTitle } from '../lib/promotion/pull-request/index.js';
import { silentLogger } from '../lib/logging/logger.js';
import type { Store } from '../lib/store/index.js';
import { podinfoReleaseYaml, podinfoServeFiles } from '../lib/testing/config-yaml.js';
import { FakeGitHub } from '../lib/testing/fake-github.js';
import { FakeKubeApi } from '../lib/testing/fake-kube-api.js';
import { deployed, upgradeEvent } from '../test/loop/harness.js';
import { writeFiles } from '../test/support/temp-files.js';
import { waitFor as waitForCondition } from '../lib/testing/wait-for.js';
import { formatMs, formatRatio, percentile, runIfMain, type Bench, type Measurement } from './report.js';

const REVISIONS_THROTTLED = 6;
const REVISIONS_UNTHROTTLED = 15;
const REVISIONS_POLL_ONLY = 5;
const POLL_INTERVAL_MS = 2000;
/** `pipelinectl serve --poll-interval` default. */
const SERVE_POLL_INTERVAL_MS = 5 * 60_000;
/** After a pull request, before the next revision: lets the throttling plugin's 1 s write limiter go idle. */
const GAP_AFTER_PROMOTION_MS = 1100;
/**
 * GitHub writes (POST, PATCH, PUT, DELETE) from the event to the open pull request, at most: the branch onto the base,
 * the file's commit, the pull request. Was 4 (tree, commit, ref, pull request) before the contents API was used.
 */
export const MAX_WRITES_PER_PROMOTION = 3;

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const CLUSTER = { namespace: 'flux-system', name: 'fleet' };
const app = (namespace: string): AppKey => ({ cluster: CLUSTER, kind: 'HelmRelease', namespace, name: 'podinfo' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const manifest = (env: string, version: string) => podinfoReleaseYaml(env, env, version);

/** What a scenario runs against: the controller's receiver URL, its store and master key. */
interface Controller {
  receiverUrl: string;
  store: Store;
  masterKey: string;
  stop(): Promise<void>;
}

interface World {
  kube: FakeKubeApi;
  github: FakeGitHub;
  /** When each GitHub request arrived (performance.now()), through the fake's per-request latency hook. */
  githubRequestTimes: number[];
  configDir: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function startWorld(): Promise<World> {
  const kube = await new FakeKubeApi().start();
  kube.put(deployed('6.9.1', 'dev'));
  kube.put(deployed('6.9.1', 'prod'));
  const githubRequestTimes: number[] = [];
  const github = await FakeGitHub.start({
    latencyMs: () => {
      githubRequestTimes.push(performance.now());
      return 0;
    },
  });
  github.createRepository('acme', 'fleet', {
    'clusters/dev/podinfo.yaml': manifest('dev', '6.9.1'),
    'clusters/prod/podinfo.yaml': manifest('prod', '6.9.1'),
  });
  const root = await mkdtemp(join(tmpdir(), 'bench-latency-'));
  await writeFiles(root, podinfoServeFiles(kube.kubeconfig(), github.token));
  return {
    kube,
    github,
    githubRequestTimes,
    configDir: join(root, 'config'),
    dataDir: join(root, 'data'),
    stop: async () => {
      await github.stop();
      await kube.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * The local mode as `pipelinectl serve` starts it; with `githubWriteIntervalMs: 0` its GitHub client does not space
 * its writes, which leaves the rest of the path to be timed.
 */
async function startLocalModeOn(
  world: World,
  pollIntervalMs: number,
  githubWriteIntervalMs?: number,
): Promise<Controller> {
  const mode = await startLocalMode({
    configDir: world.configDir,
    dataDir: world.dataDir,
    port: 0,
    pollIntervalMs,
    githubApiUrl: world.github.url,
    githubWriteIntervalMs,
    logger: silentLogger,
  });
  return {
    receiverUrl: mode.receiverUrl,
    store: mode.store,
    masterKey: mode.masterKeys.current,
    stop: () => mode.stop(),
  };
}

/** Polls every 2 ms: the wait is part of the latency measured. */
const waitFor = <T>(what: string, check: () => Promise<T> | T) =>
  waitForCondition(what, check, { timeoutMs: 20_000, intervalMs: 2 });

interface Scenario {
  start(world: World): Promise<Controller>;
  revisions: number;
  /** POST the signed event (else the poll has to find the revision). */
  sendEvents: boolean;
  gapMs: number;
  /** A wait before revision `i` is deployed, so the poll-only revisions land at spread-out points of the interval. */
  phaseMs?: (i: number) => number;
}

interface Latencies {
  /** Event (or HelmRelease change) → pull request open, ms. */
  total: number[];
  /** Of that, until the first GitHub request: receiver, queue, leaf cluster read, store, decision. */
  beforeGitHub: number[];
  /** GitHub writes of each promotion, up to its pull request. */
  writes: number[];
}

/** Latencies of `revisions` successive promotions, 6.9.2 onwards. */
async function measure(scenario: Scenario): Promise<Latencies> {
  const world = await startWorld();
  let controller: Controller | undefined;
  try {
    controller = await scenario.start(world);
    const { store } = controller;
    await waitFor('the first poll to record both targets', async () => {
      const statuses = await store.getTargetStatuses([app('dev'), app('prod')]);
      return [...statuses.values()].filter((observed) => observed.status.revision === '6.9.1').length === 2;
    });
    const key = deriveClusterKey(controller.masterKey, CLUSTER);
    const latencies: Latencies = { total: [], beforeGitHub: [], writes: [] };
    for (let i = 0; i < scenario.revisions; i++) {
      const revision = `6.9.${i + 2}`;
      const title = pullRequestTitle(PIPELINE.namespace, PIPELINE.name, 'prod', revision);
      await sleep(scenario.phaseMs?.(i) ?? 0);
      world.kube.put(deployed(revision, 'dev'));
      const requestsBefore = world.github.requests.length;
      const started = performance.now();
      if (scenario.sendEvents) {
        const body = upgradeEvent(revision, 'dev');
        const response = await fetch(`${controller.receiverUrl}/v1/events/flux-system/fleet`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'gotk-component': 'helm-controller',
            'x-signature': signatureHeader(body, key),
          },
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 202) throw new Error(`the receiver answered ${response.status}`);
      }
      const pull = await waitFor(`the pull request for ${revision}`, () =>
        world.github
          .pulls('acme', 'fleet')
          .find((candidate) => candidate.state === 'open' && candidate.title === title),
      );
      latencies.total.push(performance.now() - started);
      const firstRequest = world.githubRequestTimes.find((at) => at >= started);
      if (firstRequest === undefined) throw new Error('no GitHub request was logged');
      latencies.beforeGitHub.push(firstRequest - started);
      const writes = world.github.requests.slice(requestsBefore).filter((request) => request.method !== 'GET');
      if (writes.length > MAX_WRITES_PER_PROMOTION) {
        const routes = writes.map((request) => request.route ?? request.path).join(', ');
        throw new Error(
          `promoting ${revision} made ${writes.length} GitHub writes, over ${MAX_WRITES_PER_PROMOTION}: ${routes}`,
        );
      }
      latencies.writes.push(writes.length);
      world.github.merge('acme', 'fleet', pull.number, { mergeCommit: true });
      await waitFor(`the succeeded record of ${revision}`, async () => {
        const record = await store.getPromotion(PIPELINE, 'prod', revision);
        return record?.state === 'succeeded';
      });
      await sleep(scenario.gapMs);
    }
    return latencies;
  } finally {
    await controller?.stop();
    await world.stop();
  }
}

const summary = (samples: readonly number[]): string =>
  `p50 ${formatMs(percentile(samples, 50))}, p99 ${formatMs(percentile(samples, 99))} ` +
  `(min ${formatMs(Math.min(...samples))}, max ${formatMs(Math.max(...samples))})`;

export const benchEndToEndLatency: Bench = async () => {
  const throttled = await measure({
    start: (world) => startLocalModeOn(world, SERVE_POLL_INTERVAL_MS),
    revisions: REVISIONS_THROTTLED,
    sendEvents: true,
    gapMs: GAP_AFTER_PROMOTION_MS,
  });
  const unthrottled = await measure({
    start: (world) => startLocalModeOn(world, SERVE_POLL_INTERVAL_MS, 0),
    revisions: REVISIONS_UNTHROTTLED,
    sendEvents: true,
    gapMs: 0,
  });
  const pollOnly = await measure({
    start: (world) => startLocalModeOn(world, POLL_INTERVAL_MS, 0),
    revisions: REVISIONS_POLL_ONLY,
    sendEvents: false,
    gapMs: 0,
    phaseMs: (i) => (i / REVISIONS_POLL_ONLY) * POLL_INTERVAL_MS,
  });
  const p50 = (samples: readonly number[]) => percentile(samples, 50);
  const unthrottledP50 = p50(unthrottled.total);
  const beforeGitHub = (latencies: Latencies) =>
    `first GitHub request after p50 ${formatMs(p50(latencies.beforeGitHub))} (receiver, queue, leaf cluster, store, decision)`;
  const writes = (latencies: Latencies) => `${Math.max(...latencies.writes)} GitHub writes per promotion`;
  const measurements: Measurement[] = [
    {
      name: `signed event → PR open, local mode defaults (${REVISIONS_THROTTLED} revisions)`,
      value: summary(throttled.total),
      baseline: `writes not spaced: p50 ${formatMs(unthrottledP50)}`,
      ratio: `${formatRatio(p50(throttled.total), unthrottledP50)} slower`,
      note:
        "startLocalMode as `pipelinectl serve` runs it: what a user sees; its GitHub client keeps Octokit's " +
        `throttling defaults, which space writes 1 s apart: ${writes(throttled)} (branch onto the base, the file's ` +
        'commit through the contents API, the pull request; 4 before), so the throttle is 2 s of it; ' +
        `${beforeGitHub(throttled)}`,
    },
    {
      name: `signed event → PR open, writes not spaced (${REVISIONS_UNTHROTTLED} revisions)`,
      value: summary(unthrottled.total),
      note:
        'startLocalMode with githubWriteIntervalMs 0 (GitHub writes not spaced); ' +
        `fake GitHub and leaf cluster on loopback; ${beforeGitHub(unthrottled)}`,
    },
    {
      name: `baseline: poll only, no event, poll every ${POLL_INTERVAL_MS / 1000} s (${REVISIONS_POLL_ONLY} revisions)`,
      value: summary(pollOnly.total),
      baseline: `event: p50 ${formatMs(unthrottledP50)}`,
      ratio: `${formatRatio(p50(pollOnly.total), unthrottledP50)} slower`,
      note:
        'writes not spaced; measured from the HelmRelease change, made at evenly spread points of the interval; ' +
        `with serve's default --poll-interval 5m a revision waits ${SERVE_POLL_INTERVAL_MS / 120_000} min on ` +
        `average, ${SERVE_POLL_INTERVAL_MS / 60_000} min at worst (computed)`,
    },
  ];
  return { title: 'End-to-end latency, event → pull request (local mode)', measurements };
};

await runIfMain(import.meta.url, benchEndToEndLatency);
