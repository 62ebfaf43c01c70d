// API requests of pull-request promotions on each Git host, in a monorepo of 10,000 YAML manifests, against the
// goals the hosts' rate limits set (GOALS): a figure over its goal fails the run, once every figure is printed.
//
// How: the real promoter (lib/promotion/pull-request) with each host's adapter and that host's real client
// (Octokit, @gitbeaker/rest, the Bitbucket Server client on fetch, azure-devops-node-api), against the host's fake
// (lib/testing), which counts every request it receives (discovery requests, 404s and conflicts included). The
// repository: `clusters/<cluster>/team-<t>/app-<n>.yaml`, 4 clusters × 20 teams × 125 apps (every manifest a distinct
// blob, 85 directories), plus a README; pipeline flux-system/app-<n> promotes into prod, its marker in the two prod
// clusters' manifests of the app. For each host, in one process:
// 1. first: a new promoter, no promotion branch yet, nothing known of the repository;
// 2. repeat: the same promoter, after the first pull request was merged and 10 other manifests changed on main;
// 3. still open: the same promoter again at once, for a newer version, while the previous pull request is open;
// 4. a fleet in one process: 300 pipelines each promote once on one base commit through one new promoter (one verifier
//    container: its marker cache and its listing learn the tree once), the first alone, the others 8 at a time;
// 5. a fleet in new processes: promotions on the next base commit, each through a new promoter (a new container each,
//    the worst case) sharing a stored scan (lib/promotion/pull-request/scan-store.ts) that nothing had stored
//    before. Every promotion after the first costs the same, so 30 are run (300 would take long on a shared machine)
//    and the figure is given per promotion.
// A promotion's writes (its branch, commit and pull request: 2 requests on GitLab and Azure DevOps, 4 on GitHub and
// Bitbucket Server) are its own, whatever is cached, so 300 pull requests cost 600 to 1,200 requests by themselves:
// the fleet's goal applies to what a cache can save, the requests that read (the base, the tree, the files, the pull
// requests), and the total is reported.
import { resolvePipeline } from '../lib/pipeline/model.js';
import type { PromotionRequest } from '../lib/promotion/index.js';
import { InMemoryMarkerScanStore, PullRequestPromoter } from '../lib/promotion/pull-request/index.js';
import type { MarkerScanStore } from '../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { startAzureDevOpsUnderTest } from '../test/promotion/azure-devops-support.js';
import { startBitbucketServerUnderTest } from '../test/promotion/bitbucket-server-support.js';
import type { FakeHostUnderTest } from '../test/promotion/git-host-under-test.js';
import { startGitHubUnderTest } from '../test/promotion/github-support.js';
import { startGitLabUnderTest } from '../test/promotion/gitlab-support.js';
import { CLUSTERS, helmRelease } from './github-promotion.js';
import { mapLimit } from '../lib/util/map-limit.js';
import { formatNumber, runIfMain, type Bench, type Measurement } from './report.js';

const HOSTS: [string, () => Promise<FakeHostUnderTest>][] = [
  ['GitHub', startGitHubUnderTest],
  ['GitLab', startGitLabUnderTest],
  ['Bitbucket Server', startBitbucketServerUnderTest],
  ['Azure DevOps', startAzureDevOpsUnderTest],
];
const SECRET = { namespace: 'flux-system', name: 'git-credentials' };
const TEAMS = 20;
const APPS_PER_TEAM = 125;
const FILES = CLUSTERS.length * TEAMS * APPS_PER_TEAM;
const PIPELINES = 300;
const NEW_PROCESS_PROMOTIONS = 30;
/** Promotions of the one-process fleet in flight at once, as a verifier's concurrent invocations. */
const CONCURRENCY = 8;
const OTHER_CHANGES = 10;

/**
 * What each figure may be at most, on every host. A repeat promotion: what it cost before the archive read, in a
 * repository of 500 files (GitHub 23, GitLab 23, Bitbucket Server 25, Azure DevOps 20): the most of them.
 */
export const GOALS = { first: 20, repeat: 25, fleetReads: 1_000 } as const;

const appName = (n: number) => `app-${String(n).padStart(4, '0')}`;

/** The manifests; the apps below PIPELINES carry their pipeline's marker in both prod clusters. */
function monorepoFiles(): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# fleet\n\nOne HelmRelease per app and cluster.\n' };
  for (const cluster of CLUSTERS) {
    for (let n = 0; n < TEAMS * APPS_PER_TEAM; n++) {
      const app = appName(n);
      const marked = n < PIPELINES && cluster.startsWith('prod');
      const marker = marked ? `flux-system:${app}:prod` : undefined;
      files[pathOf(cluster, n)] = helmRelease(cluster, app, '1.0.0', marker);
    }
  }
  return files;
}

const pathOf = (cluster: string, n: number) =>
  `clusters/${cluster}/team-${String(n % TEAMS).padStart(2, '0')}/${appName(n)}.yaml`;

function request(fake: FakeHostUnderTest, app: string, revision: string): PromotionRequest {
  const pipeline = resolvePipeline(
    {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { namespace: 'flux-system', name: app },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: app },
        environments: [
          { name: 'dev', targets: [{ namespace: app, clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
          { name: 'prod', targets: [{ namespace: app, clusterRef: { kind: 'GitopsCluster', name: 'prod-eu' } }] },
        ],
        promotion: {
          strategy: {
            'pull-request': {
              type: fake.type,
              url: fake.repositoryUrl,
              baseBranch: 'main',
              secretRef: { name: SECRET.name },
            },
          },
        },
      },
    },
    undefined,
  );
  const env = pipeline.environments[1];
  if (!env) throw new Error('no prod environment');
  return { pipeline, env, revision, attempt: 1 };
}

interface HostFigures {
  first: number;
  repeat: number;
  stillOpen: number;
  fleet: { requests: number; writes: number };
  /** Requests per promotion of a new process with the stored scan. */
  newProcess: number;
}

async function measureHost(name: string, start: () => Promise<FakeHostUnderTest>): Promise<HostFigures> {
  const fake = await start();
  try {
    fake.createRepository(monorepoFiles());
    const secrets = new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]);
    const newPromoter = (markerScans?: MarkerScanStore) =>
      new PullRequestPromoter({
        secrets,
        hosts: [fake.host({ retries: 0, requestTimeoutMs: 120_000 })],
        apiUrls: { [fake.type]: fake.apiUrl },
        ...(markerScans ? { markerScans } : {}),
      });
    const written = (app: string, revision: string) => {
      const branch = fake.files(`promotion-flux-system-${app}-prod`);
      const n = Number(app.slice('app-'.length));
      const prod = CLUSTERS.filter((cluster) => cluster.startsWith('prod'));
      if (!prod.every((cluster) => branch[pathOf(cluster, n)]?.includes(revision)))
        throw new Error(`${name}: ${app} ${revision} was not written to both prod manifests`);
    };
    const promote = async (promoter: PullRequestPromoter, app: string, revision: string) => {
      fake.resetRequests();
      await promoter.promote(request(fake, app, revision));
      const count = fake.requestCount();
      written(app, revision);
      return count;
    };

    const promoter = newPromoter();
    const first = await promote(promoter, appName(0), '2.0.0');
    const open = fake.pullRequests().find((pull) => pull.state === 'open');
    if (!open) throw new Error(`${name}: no pull request to merge`);
    fake.merge(open.url);
    const changes: Record<string, string> = {};
    for (let i = 0; i < OTHER_CHANGES; i++) {
      const cluster = CLUSTERS[i % CLUSTERS.length] ?? 'dev';
      changes[pathOf(cluster, 1000 + i)] = helmRelease(cluster, appName(1000 + i), '1.1.0');
    }
    fake.commitFiles('main', changes);
    const repeat = await promote(promoter, appName(0), '2.0.1');
    const stillOpen = await promote(promoter, appName(0), '2.0.2');

    // The fleet: requests counted over all its promotions, which run concurrently; checked at the end.
    const base = fake.branchHead('main');
    const fleetPromoter = newPromoter();
    fake.resetRequests();
    await fleetPromoter.promote(request(fake, appName(0), '3.0.0'));
    await mapLimit(
      Array.from({ length: PIPELINES - 1 }, (_, i) => appName(i + 1)),
      CONCURRENCY,
      (app) => fleetPromoter.promote(request(fake, app, '3.0.0')),
    );
    const fleet = { requests: fake.requestCount(), writes: fake.writeCount() };
    if (fake.branchHead('main') !== base) throw new Error(`${name}: main moved during the fleet's promotions`);
    const proposed = new Set(
      fake
        .pullRequests()
        .filter((pull) => pull.state === 'open')
        .map((pull) => pull.title),
    );
    const missing = Array.from({ length: PIPELINES }, (_, n) => appName(n)).filter(
      (app) => !proposed.has(`Promote flux-system/${app} in prod to 3.0.0`),
    );
    if (missing.length > 0) throw new Error(`${name}: no pull request proposes 3.0.0 for ${missing.join(', ')}`);
    for (const n of [1, PIPELINES - 1]) written(appName(n), '3.0.0');

    fake.commitFiles('main', { 'README.md': '# fleet\n\nThe next base commit.\n' });
    const stored = new InMemoryMarkerScanStore();
    await promote(newPromoter(stored), appName(0), '3.0.1');
    let newProcesses = 0;
    for (let n = 1; n <= NEW_PROCESS_PROMOTIONS; n++)
      newProcesses += await promote(newPromoter(stored), appName(n), '3.0.1');
    return { first, repeat, stillOpen, fleet, newProcess: newProcesses / NEW_PROCESS_PROMOTIONS };
  } finally {
    await fake.stop();
  }
}

/** The figures over their goals, for a person: empty when every goal is met. */
function brokenGoals(name: string, figures: HostFigures): string[] {
  const broken: string[] = [];
  if (figures.first > GOALS.first) broken.push(`${name}: first promotion ${figures.first} > ${GOALS.first}`);
  if (figures.repeat > GOALS.repeat) broken.push(`${name}: repeat promotion ${figures.repeat} > ${GOALS.repeat}`);
  const reads = figures.fleet.requests - figures.fleet.writes;
  if (reads > GOALS.fleetReads) {
    broken.push(`${name}: ${PIPELINES} promotions in one process read with ${reads} requests > ${GOALS.fleetReads}`);
  }
  return broken;
}

export const benchGitHostPromotions: Bench = async () => {
  const measurements: Measurement[] = [];
  const broken: string[] = [];
  for (const [name, start] of HOSTS) {
    const figures = await measureHost(name, start);
    console.error(`git-host-promotions: ${name} ${JSON.stringify(figures)}`);
    broken.push(...brokenGoals(name, figures));
    const { requests, writes } = figures.fleet;
    measurements.push(
      {
        name: `${name}: one pipeline`,
        value:
          `first ${figures.first}, repeat ${figures.repeat}, PR still open ${figures.stillOpen} requests ` +
          `(goals: first ≤ ${GOALS.first}, repeat ≤ ${GOALS.repeat})`,
        note:
          `${formatNumber(FILES)} YAML manifests in 85 directories (2 marked per pipeline); repeat after a merge ` +
          `and ${OTHER_CHANGES} other changes on main; same promoter`,
      },
      {
        name: `${name}: ${PIPELINES} pipelines, one base commit`,
        value:
          `${formatNumber(requests)} requests in one process (${formatNumber(requests - writes)} reads, goal ≤ ` +
          `${formatNumber(GOALS.fleetReads)}; ${formatNumber(writes)} writes); ${figures.newProcess.toFixed(1)} per ` +
          'promotion in a new process each, with the stored scan',
        note: `each pipeline promotes once: its own branch, commit and pull request; ${CONCURRENCY} at a time`,
      },
    );
  }
  return { title: 'pull-request promotions per Git host: API requests', measurements, unmet: broken };
};

await runIfMain(import.meta.url, benchGitHostPromotions);
