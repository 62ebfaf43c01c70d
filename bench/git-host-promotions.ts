// API requests for one pull-request promotion on each Git host, in the same 500-manifest fleet repository as
// github-promotion.ts, so the hosts can be compared with each other and with GitHub's detailed figures.
//
// How: the real promoter (lib/promotion/pull-request) with each host's adapter and that host's real client
// (Octokit, @gitbeaker/rest, the Bitbucket Server client on fetch, azure-devops-node-api), against the host's fake
// (lib/testing), which counts every request it receives. No marker scan is stored (a promoter in one process), so
// the figures are what a cold and a warm Lambda container pay. For each host, in one process:
// 1. first: a new promoter, no promotion branch yet;
// 2. repeat: the same promoter, after the first pull request was merged and 10 other manifests changed on main;
// 3. still open: the same promoter again at once, for a newer version, while the previous pull request is open and
//    main has not moved.
// Included: every request the adapter sends (discovery requests, 404s and conflicts too).
import { resolvePipeline } from '../lib/pipeline/model.js';
import type { PromotionRequest } from '../lib/promotion/index.js';
import { PullRequestPromoter } from '../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { startAzureDevOpsUnderTest } from '../test/promotion/azure-devops-support.js';
import { startBitbucketServerUnderTest } from '../test/promotion/bitbucket-server-support.js';
import type { FakeHostUnderTest } from '../test/promotion/git-host-under-test.js';
import { startGitHubUnderTest } from '../test/promotion/github-support.js';
import { startGitLabUnderTest } from '../test/promotion/gitlab-support.js';
import { CLUSTERS, fleetFiles, helmRelease } from './github-promotion.js';
import type { Bench, Measurement } from './report.js';

const HOSTS: [string, () => Promise<FakeHostUnderTest>][] = [
  ['GitHub', startGitHubUnderTest],
  ['GitLab', startGitLabUnderTest],
  ['Bitbucket Server', startBitbucketServerUnderTest],
  ['Azure DevOps', startAzureDevOpsUnderTest],
];
const SECRET = { namespace: 'flux-system', name: 'git-credentials' };
const OTHER_CHANGES = 10;

function request(fake: FakeHostUnderTest, revision: string): PromotionRequest {
  const pipeline = resolvePipeline(
    {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { namespace: 'flux-system', name: 'podinfo' },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
        environments: [
          { name: 'dev', targets: [{ namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
          { name: 'prod', targets: [{ namespace: 'podinfo', clusterRef: { kind: 'GitopsCluster', name: 'prod-eu' } }] },
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

async function measureHost(name: string, start: () => Promise<FakeHostUnderTest>): Promise<Measurement> {
  const fake = await start();
  try {
    fake.createRepository(fleetFiles('6.9.1'));
    const secrets = new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]);
    const promoter = new PullRequestPromoter({
      secrets,
      hosts: [fake.host({ retries: 0 })],
      apiUrls: { [fake.type]: fake.apiUrl },
    });
    const promote = async (revision: string) => {
      fake.resetRequests();
      await promoter.promote(request(fake, revision));
      const count = fake.requestCount();
      const open = fake.pullRequests().filter((pull) => pull.state === 'open');
      if (open.length !== 1 || !open[0]?.title.endsWith(` to ${revision}`)) {
        throw new Error(`${name}: after promoting ${revision} the open pull request does not propose it`);
      }
      if (!fake.files('promotion-flux-system-podinfo-prod')['clusters/prod-eu/podinfo.yaml']?.includes(revision)) {
        throw new Error(`${name}: ${revision} was not written`);
      }
      return count;
    };
    const first = await promote('6.9.2');
    const open = fake.pullRequests().find((pull) => pull.state === 'open');
    if (!open) throw new Error(`${name}: no pull request to merge`);
    fake.merge(open.url);
    const changes: Record<string, string> = {};
    for (let i = 0; i < OTHER_CHANGES; i++) {
      const cluster = CLUSTERS[i % CLUSTERS.length] ?? 'dev';
      const app = `app-${String(20 + i).padStart(3, '0')}`;
      changes[`clusters/${cluster}/${app}.yaml`] = helmRelease(cluster, app, '1.1.0');
    }
    fake.commitFiles('main', changes);
    const repeat = await promote('6.9.3');
    const stillOpen = await promote('6.9.4');
    return {
      name,
      value: `first ${first}, repeat ${repeat}, PR still open ${stillOpen} requests`,
      note: `500 YAML manifests (3 marked for prod); repeat after a merge and ${OTHER_CHANGES} other changes on main; same promoter`,
    };
  } finally {
    await fake.stop();
  }
}

export const benchGitHostPromotions: Bench = async () => {
  const measurements: Measurement[] = [];
  for (const [name, start] of HOSTS) measurements.push(await measureHost(name, start));
  return { title: 'pull-request promotion per Git host: API requests', measurements };
};
