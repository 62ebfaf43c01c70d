// GitHub API requests for one pull-request promotion in a fleet repository of 500 YAML manifests.
//
// How: the real GitHubPullRequestPromoter (lib/promotion/github), with Octokit and its retry and throttling plugins,
// against FakeGitHub (lib/testing/fake-github.ts), which logs every request with its Octokit route. Writes are not
// spaced (`writeIntervalMs: 0`): that changes when requests go out, not how many. The repository is
// `clusters/<env>/<app>.yaml` for 4 clusters × 125 apps (every manifest a distinct blob), plus a README; the
// Pipeline flux-system/podinfo promotes into prod, whose marker `flux-system:podinfo:prod` is in 3 manifests
// (clusters/prod-eu/podinfo.yaml, clusters/prod-us/podinfo.yaml, clusters/prod-us/podinfo-canary.yaml); dev and
// staging manifests carry their own markers.
//
// Five promotions in sequence, in one process. The promoters keep the marker scan in DynamoDB (dynalite, one item
// per repository: lib/store/dynamodb/marker-scans.ts) as the verifier Lambda and the local mode do, except the
// baseline of 4:
// 1. cold: a new promoter (empty blob cache), nothing stored yet, main as created, no promotion branch yet;
// 2. later, same promoter (a warm Lambda container: lib/runtime/verifier.ts builds the promoter once per container,
//    so its blob cache survives between invocations of one container); before it, the first pull request
//    was merged and 10 other manifests changed on main (other teams' work);
// 3. later, a new promoter (a cold container, or another of the concurrent ones) with the scan stored by 1 and 2,
//    after the same kind of merge and changes;
// 4. later, a new promoter without a stored scan (what every new container paid before the scan was stored), after
//    the same kind of merge and changes;
// 5. later, the promoter of 4 again, while the previous pull request is still open (dev moved on before prod
//    merged): main has not changed since that promoter's last scan.
// Included: every request the promoter sends (reads = GET, writes = everything else), 404s and 422s too, and every
// DynamoDB request it sends. The baseline of 1 is computed, not run: a naive promoter that lists the tree and GETs
// every YAML file through the contents API, then makes the same writes.
//
// Then the writes alone (each costs a second: Octokit spaces them 1 s apart, as GitHub asks), by case, in two small
// repositories of their own: one whose prod marker is in one manifest, and one whose prod markers are in three. In
// each: a first pull request, a newer version while it is open, the same version again, and a newer version after it
// was merged with a merge commit (GitHub's default). The bench fails when a case makes more writes than
// MAX_WRITES says; the baseline is the previous adapter's writes, computed from what it sent (a tree, a commit, the
// ref, then POST /pulls, refused with 422 before a list and a PATCH when one was open; the tree and the refused POST
// again for a repeated call).
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { PipelineDocument } from '../lib/config/schema.js';
import { resolvePipeline } from '../lib/pipeline/model.js';
import { GitHubPullRequestPromoter } from '../lib/testing/github-pull-request-promoter.js';
import { pullRequestTitle, type MarkerScanStore } from '../lib/promotion/pull-request/index.js';
import type { PromotionRequest } from '../lib/promotion/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { dynamoTable, markerScanKey } from '../lib/store/index.js';
import { FakeGitHub, type FakeGitHubRequest } from '../lib/testing/fake-github.js';
import { FAST } from '../test/promotion/github-support.js';
import { startDynalite, type LocalDynamo } from '../test/support/dynalite.js';
import { formatNumber, formatRatio, runIfMain, type Bench, type Measurement } from './report.js';

const OWNER = 'acme';
const REPO = 'fleet';
export const CLUSTERS = ['dev', 'staging', 'prod-eu', 'prod-us'] as const;
const APPS_PER_CLUSTER = 125;
const OTHER_CHANGES_BETWEEN_PROMOTIONS = 10;
const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const SECRET = { namespace: 'flux-system', name: 'github-credentials' };

const ENV_OF_CLUSTER: Record<(typeof CLUSTERS)[number], string> = {
  dev: 'dev',
  staging: 'staging',
  'prod-eu': 'prod',
  'prod-us': 'prod',
};

export function helmRelease(cluster: string, app: string, version: string, marker?: string): string {
  const comment = marker ? ` # {"$promotion": "${marker}"}` : '';
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${app}
  namespace: ${app}
  labels:
    cluster: ${cluster}
spec:
  interval: 10m
  releaseName: ${app}
  chart:
    spec:
      chart: ${app}
      version: "${version}"${comment}
      sourceRef:
        kind: HelmRepository
        name: charts
        namespace: flux-system
  values:
    replicaCount: ${cluster.startsWith('prod') ? 3 : 1}
    ingress:
      enabled: true
      hosts:
        - host: ${app}.${cluster}.example.com
`;
}

/** The app names of a cluster: podinfo first, then app-001 …; prod-us also runs podinfo-canary. */
function appsOf(cluster: string): string[] {
  const apps = ['podinfo'];
  if (cluster === 'prod-us') apps.push('podinfo-canary');
  for (let i = 1; apps.length < APPS_PER_CLUSTER; i++) apps.push(`app-${String(i).padStart(3, '0')}`);
  return apps;
}

export function fleetFiles(version: string): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# fleet\n\nOne HelmRelease per app and cluster.\n' };
  for (const cluster of CLUSTERS) {
    for (const app of appsOf(cluster)) {
      const marker = app.startsWith('podinfo') ? `flux-system:podinfo:${ENV_OF_CLUSTER[cluster]}` : undefined;
      files[`clusters/${cluster}/${app}.yaml`] = helmRelease(cluster, app, marker ? version : '1.0.0', marker);
    }
  }
  return files;
}

const pipelineDocument = (repository: string): PipelineDocument => ({
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: PIPELINE,
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
      { name: 'prod', targets: [{ namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'prod-eu' } }] },
    ],
    promotion: {
      strategy: {
        'pull-request': {
          type: 'github',
          url: `https://github.com/${OWNER}/${repository}`,
          baseBranch: 'main',
          secretRef: { name: SECRET.name },
        },
      },
    },
  },
});

function promotionRequest(revision: string, repository = REPO): PromotionRequest {
  const pipeline = resolvePipeline(pipelineDocument(repository), undefined);
  const env = pipeline.environments[1];
  if (!env) throw new Error('no prod environment');
  return { pipeline, env, revision, attempt: 1 };
}

interface RequestCount {
  reads: number;
  writes: number;
  total: number;
  blobReads: number;
  /** `route × n`, most frequent first. */
  byRoute: string;
  /** DynamoDB requests, e.g. `GetItem ×1, PutItem ×1`; empty: none. */
  dynamo: string;
}

function countRequests(requests: readonly FakeGitHubRequest[], dynamo: LocalDynamo): RequestCount {
  const byRoute = new Map<string, number>();
  let reads = 0;
  for (const request of requests) {
    const route = request.route ?? `${request.method} ${request.path}`;
    byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
    if (request.method === 'GET') reads++;
  }
  const short = (route: string) => route.replace('/repos/{owner}/{repo}', '');
  return {
    reads,
    writes: requests.length - reads,
    total: requests.length,
    blobReads: byRoute.get('GET /repos/{owner}/{repo}/git/blobs/{file_sha}') ?? 0,
    byRoute: [...byRoute]
      .sort((a, b) => b[1] - a[1])
      .map(([route, count]) => `${short(route)} ×${count}`)
      .join(', '),
    dynamo: [...dynamo.operations].map(([operation, count]) => `${operation} ×${count}`).join(', '),
  };
}

/** The stored item's size as DynamoDB counts it (attribute names and values; numbers at their maximum). */
function itemBytes(item: Record<string, AttributeValue>): number {
  const valueBytes = (value: AttributeValue): number => {
    if (value.S !== undefined) return Buffer.byteLength(value.S);
    if (value.N !== undefined) return 21;
    if (value.B !== undefined) return value.B.length;
    if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
    if (value.M !== undefined) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
    return 1;
  };
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

type WriteCase = 'first' | 'open' | 'repeated' | 'afterMerge';
type WritesByCase = Record<WriteCase, number>;

/** The most writes a promotion may make, by case (the bench fails above them): what the fleet-scale work reached. */
export const MAX_WRITES: { oneFile: WritesByCase; threeFiles: WritesByCase } = {
  oneFile: { first: 3, open: 4, repeated: 0, afterMerge: 3 },
  threeFiles: { first: 4, open: 4, repeated: 0, afterMerge: 4 },
};
/** The previous adapter's writes, computed from what it sent (see the header), one file or several alike. */
const PREVIOUS_WRITES: WritesByCase = { first: 4, open: 5, repeated: 2, afterMerge: 4 };

const sumOf = (writes: WritesByCase) => writes.first + writes.open + writes.repeated + writes.afterMerge;
const casesText = (writes: WritesByCase) =>
  `first ${writes.first}, newer while open ${writes.open}, same again ${writes.repeated}, ` +
  `newer after merge ${writes.afterMerge}`;

/** Fails the bench when a promotion wrote more than `limit` allows. */
function assertWrites(what: string, measured: number, limit: number): void {
  if (measured > limit) throw new Error(`${what}: ${measured} GitHub writes, more than the ${limit} reached`);
}

/**
 * The writes of each case in a repository of its own whose prod marker is in the podinfo manifest of each of `prodClusters` (1 or 3): a first
 * pull request, a newer version while it is open, the same again, a newer version after a merge commit.
 */
async function writesByCase(
  github: FakeGitHub,
  secrets: StaticSecretSource,
  repository: string,
  prodClusters: readonly string[],
): Promise<WritesByCase> {
  const files: Record<string, string> = {
    'clusters/dev/podinfo.yaml': helmRelease('dev', 'podinfo', '6.9.1', 'flux-system:podinfo:dev'),
  };
  for (const cluster of prodClusters) {
    files[`clusters/${cluster}/podinfo.yaml`] = helmRelease(cluster, 'podinfo', '6.9.1', 'flux-system:podinfo:prod');
  }
  github.createRepository(OWNER, repository, files, { defaultBranch: 'main' });
  const promoter = new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, ...FAST, writeIntervalMs: 0 });
  const writesOf = async (revision: string) => {
    github.resetRequests();
    await promoter.promote(promotionRequest(revision, repository));
    const writes = github.count((request) => request.method !== 'GET');
    const title = pullRequestTitle(PIPELINE.namespace, PIPELINE.name, 'prod', revision);
    const open = github.pulls(OWNER, repository).filter((pull) => pull.state === 'open');
    if (open.length !== 1 || open[0]?.title !== title) {
      throw new Error(`${repository}: after promoting ${revision} the open pull request is not "${title}"`);
    }
    for (const cluster of prodClusters) {
      const written = github.readFile(OWNER, repository, open[0].head, `clusters/${cluster}/podinfo.yaml`) ?? '';
      if (!written.includes(`version: "${revision}"`)) throw new Error(`${repository}: ${revision} was not written`);
    }
    return writes;
  };
  const first = await writesOf('6.9.2');
  const open = await writesOf('6.9.3');
  const repeated = await writesOf('6.9.3');
  const pull = github.pulls(OWNER, repository).find((candidate) => candidate.state === 'open');
  if (!pull) throw new Error(`${repository}: no pull request to merge`);
  github.merge(OWNER, repository, pull.number, { mergeCommit: true });
  const afterMerge = await writesOf('6.9.4');
  return { first, open, repeated, afterMerge };
}

const describe = (count: RequestCount): string =>
  `${count.total} requests (${count.reads} reads, of which ${count.blobReads} blobs; ${count.writes} writes)` +
  `; DynamoDB: ${count.dynamo || 'none'}`;

export const benchGitHubPromotion: Bench = async () => {
  const github = await FakeGitHub.start();
  const dynamo = await startDynalite();
  try {
    github.createRepository(OWNER, REPO, fleetFiles('6.9.1'), { defaultBranch: 'main' });
    const yamlFiles = Object.keys(github.files(OWNER, REPO, 'main')).filter((path) => path.endsWith('.yaml')).length;
    if (yamlFiles !== CLUSTERS.length * APPS_PER_CLUSTER) throw new Error(`the repository has ${yamlFiles} YAML files`);
    const secrets = new StaticSecretSource([{ key: SECRET, values: { token: github.token } }]);
    const markerScans = dynamoTable({ client: dynamo.client, tableName: dynamo.tableName }).markerScans();
    const newPromoter = (scans?: MarkerScanStore) =>
      new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, ...FAST, writeIntervalMs: 0, markerScans: scans });

    /** Promotes `revision` and checks that the open pull request now proposes it. */
    const promote = async (promoter: GitHubPullRequestPromoter, revision: string): Promise<RequestCount> => {
      github.resetRequests();
      dynamo.resetCounts();
      await promoter.promote(promotionRequest(revision));
      const counted = countRequests(github.requests, dynamo);
      const title = pullRequestTitle(PIPELINE.namespace, PIPELINE.name, 'prod', revision);
      const open = github.pulls(OWNER, REPO).filter((pull) => pull.state === 'open');
      if (open.length !== 1 || open[0]?.title !== title) {
        throw new Error(`after promoting ${revision} the open pull request is not "${title}"`);
      }
      const branchFile = github.readFile(OWNER, REPO, open[0].head, 'clusters/prod-us/podinfo-canary.yaml') ?? '';
      if (!branchFile.includes(`version: "${revision}"`)) throw new Error(`${revision} was not written`);
      return counted;
    };

    /** The open pull request is merged, and other teams change some other manifests on main. */
    let round = 0;
    const mergeAndMoveOn = () => {
      const open = github.pulls(OWNER, REPO).find((pull) => pull.state === 'open');
      if (!open) throw new Error('no open pull request to merge');
      github.merge(OWNER, REPO, open.number);
      round++;
      const changes: Record<string, string> = {};
      for (let i = 0; i < OTHER_CHANGES_BETWEEN_PROMOTIONS; i++) {
        const app = `app-${String(10 + round * OTHER_CHANGES_BETWEEN_PROMOTIONS + i).padStart(3, '0')}`;
        const cluster = CLUSTERS[i % CLUSTERS.length] ?? 'dev';
        changes[`clusters/${cluster}/${app}.yaml`] = helmRelease(cluster, app, `1.${round}.0`);
      }
      github.commitFiles(OWNER, REPO, 'main', changes, 'other teams');
    };

    const warmPromoter = newPromoter(markerScans);
    const cold = await promote(warmPromoter, '6.9.2');
    mergeAndMoveOn();
    const warm = await promote(warmPromoter, '6.9.3');
    mergeAndMoveOn();
    const stored = await promote(newPromoter(markerScans), '6.9.4');
    const newBlobs = 3 + OTHER_CHANGES_BETWEEN_PROMOTIONS;
    if (stored.blobReads !== newBlobs) throw new Error(`${stored.blobReads} blobs read with the stored scan`);
    mergeAndMoveOn();
    const unstoredPromoter = newPromoter();
    const unstored = await promote(unstoredPromoter, '6.9.5');
    // Without a stored scan every YAML file is read again, now from one archive of the commit, none on its own.
    if (unstored.blobReads !== 0) throw new Error(`${unstored.blobReads} blobs read one by one without a stored scan`);
    const warmOpen = await promote(unstoredPromoter, '6.9.6');
    if (warmOpen.blobReads !== 0) throw new Error(`${warmOpen.blobReads} blobs read again on an unchanged base`);
    // Three manifests carry the prod marker here.
    assertWrites('first promotion', cold.writes, MAX_WRITES.threeFiles.first);
    for (const [what, count] of [
      ['later promotion, warm', warm],
      ['later promotion, stored scan', stored],
      ['later promotion, no stored scan', unstored],
    ] as const) {
      assertWrites(what, count.writes, MAX_WRITES.threeFiles.afterMerge);
    }
    assertWrites('promotion while the pull request is open', warmOpen.writes, MAX_WRITES.threeFiles.open);

    const oneFile = await writesByCase(github, secrets, 'one-file', ['prod-eu']);
    const threeFiles = await writesByCase(github, secrets, 'three-files', ['prod-eu', 'prod-us', 'prod-ap']);
    for (const [label, measured, limits] of [
      ['one file', oneFile, MAX_WRITES.oneFile],
      ['three files', threeFiles, MAX_WRITES.threeFiles],
    ] as const) {
      for (const key of Object.keys(limits) as WriteCase[])
        assertWrites(`${label}, ${key}`, measured[key], limits[key]);
    }

    const key = markerScanKey(`${github.url.replace(/\/+$/, '')} ${OWNER}/${REPO}`.toLowerCase());
    const { Item: item } = await dynamo.client.send(
      new GetItemCommand({ TableName: dynamo.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }),
    );
    if (!item) throw new Error('no marker scan stored');
    const kb = itemBytes(item) / 1024;
    const itemCost =
      `the item holds ${item.blobCount?.N ?? '?'} blobs in ${kb.toFixed(1)} KB: a PutItem costs ${Math.ceil(kb)} ` +
      `write units, the eventually consistent GetItem ${Math.ceil(kb / 4) / 2} read units`;

    const naive = (writes: number) => 1 + yamlFiles + writes;
    const naiveText = (writes: number) =>
      `naive (computed): ${naive(writes)} = tree listing 1 + contents GET ×${yamlFiles} + the same ${writes} writes`;
    const measurements: Measurement[] = [
      {
        name: 'first promotion, cold promoter (every YAML file read, from one archive of the commit)',
        value: describe(cold),
        baseline: naiveText(cold.writes),
        ratio: `${formatRatio(naive(cold.writes), cold.total)} (naive ÷ measured)`,
        note:
          `${cold.byRoute}; about a tenth of a token's 5,000 requests per hour ` +
          '(https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api); DynamoDB: nothing ' +
          'stored yet (GetItem), then the scan is stored (PutItem)',
      },
      {
        name: `later promotion, same promoter (warm container; PR merged, ${OTHER_CHANGES_BETWEEN_PROMOTIONS} other manifests changed)`,
        value: describe(warm),
        baseline: `first promotion: ${formatNumber(cold.total)} requests`,
        ratio: `${formatRatio(cold.total, warm.total)} fewer`,
        note: `${warm.byRoute}; only the blobs new since the last scan are read (3 merged + ${OTHER_CHANGES_BETWEEN_PROMOTIONS} changed)`,
      },
      {
        name: 'later promotion, new promoter with the stored scan (another Lambda container, a restarted serve)',
        value: describe(stored),
        baseline: `new promoter without a stored scan (next row): ${formatNumber(unstored.total)} requests`,
        ratio: `${formatRatio(unstored.total, stored.total)} fewer`,
        note:
          `${stored.byRoute}; the stored facts (markers by blob id, no text) are loaded once per repository and ` +
          `process, and saved after a scan that read new blobs; ${itemCost}`,
      },
      {
        name: 'later promotion, new promoter without a stored scan (the baseline: each container scanned alone)',
        value: describe(unstored),
        baseline: `first promotion: ${formatNumber(cold.total)} requests`,
        ratio: `${formatRatio(cold.total, unstored.total)} (first ÷ this)`,
        note:
          `${unstored.byRoute}; the blob cache of a promoter alone lives as long as its process (a Lambda ` +
          'container, one serve)',
      },
      {
        name: 'later promotion, same promoter as the previous one, its PR still open (base unchanged)',
        value: describe(warmOpen),
        baseline: `first promotion: ${formatNumber(cold.total)} requests`,
        ratio: `${formatRatio(cold.total, warmOpen.total)} fewer`,
        note:
          `${warmOpen.byRoute}; the branch is moved and the pull request retitled: the open one is found by a read ` +
          '(GET /pulls?head=) before any write and PATCHed, never refused a second one (422) first',
      },
      {
        name: 'GitHub writes per promotion, by case (each one a second: Octokit spaces them 1 s apart)',
        value: `one file: ${casesText(oneFile)}; three files: ${casesText(threeFiles)}`,
        baseline: `previous adapter (computed), one file or three: ${casesText(PREVIOUS_WRITES)}`,
        ratio: `${formatRatio(sumOf(PREVIOUS_WRITES), sumOf(oneFile))} fewer (one file), ${formatRatio(sumOf(PREVIOUS_WRITES), sumOf(threeFiles))} fewer (three files), over the four cases`,
        note:
          'one file and no pull request open: the branch created on, or reset onto, the base, then the file ' +
          'committed through the contents API (PUT /contents/{path}: blob, tree, commit and ref in one write); ' +
          'otherwise a tree with the content inline, a commit, the ref; an open pull request PATCHed where its ' +
          "title or body differ; a repeated call compares the tree computed from the base's listing with the " +
          "branch's and writes nothing; the bench fails above these counts",
      },
    ];
    return { title: 'GitHub requests per promotion (500 YAML files)', measurements };
  } finally {
    await github.stop();
    await dynamo.stop();
  }
};

await runIfMain(import.meta.url, benchGitHubPromotion);
