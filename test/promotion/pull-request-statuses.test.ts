// Deployments shown on Bitbucket Server and Azure DevOps (docs/deployments.md), which have no deployments of their own
// here: a merged promotion's rollout as a build status on the merge commit (Bitbucket Server) and as a pull request
// status (Azure DevOps), one per environment, through each host's real client against its fake.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DeploymentRequest } from '../../lib/promotion/index.js';
import { PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeAzureDevOps } from '../../lib/testing/fake-azure-devops.js';
import { FakeBitbucketServer } from '../../lib/testing/fake-bitbucket-server.js';
import { azureDevOpsHost } from '../../lib/promotion/azure-devops/index.js';
import { bitbucketServerHost } from '../../lib/promotion/bitbucket-server/index.js';
import * as azure from './azure-devops-support.js';
import * as bitbucket from './bitbucket-server-support.js';
import { prRequest } from './github-support.js';

const SECRET = { namespace: 'foo', name: 'git-credentials' };
const FILES = {
  'apps/prod/podinfo.yaml': 'spec:\n  chart:\n    spec:\n      version: 6.4.0 # {"$promotion": "foo:bar:prod"}\n',
};
const KEY = 'pipeline-controller/foo/bar/prod';

function deploymentRequest(
  type: 'bitbucket-server' | 'azure-devops',
  url: string,
  pullRequestUrl: string,
  state: DeploymentRequest['state'],
  recorded?: DeploymentRequest['recorded'],
): DeploymentRequest {
  const { pipeline, env } = prRequest({ revision: '6.5.0', type, url, secretName: SECRET.name });
  const pullRequest = env.promotion?.strategy['pull-request'];
  assert.ok(pullRequest);
  const withUrl = { ...pullRequest, deployments: true, environmentUrl: 'https://prod.example.com' };
  return {
    pipeline,
    env: { ...env, promotion: { strategy: { 'pull-request': withUrl } } },
    revision: '6.5.0',
    pullRequestUrl,
    state,
    description: state === 'failure' ? 'verification of 6.5.0 failed: check smoke: HTTP 503' : 'rolling out',
    ...(recorded ? { recorded } : {}),
  };
}

describe('Bitbucket Server build statuses of merged promotions', () => {
  let fake: FakeBitbucketServer;
  let promoter: PullRequestPromoter;
  let pullRequestUrl: string;
  let mergeSha: string;
  before(async () => {
    fake = await FakeBitbucketServer.start({ webBaseUrl: bitbucket.WEB_BASE_URL });
    fake.createRepository(bitbucket.PROJECT_KEY, bitbucket.REPOSITORY_SLUG, FILES);
    const secrets = new StaticSecretSource([{ key: SECRET, values: { token: fake.token } }]);
    promoter = new PullRequestPromoter({
      secrets,
      hosts: [bitbucketServerHost(bitbucket.FAST)],
      apiUrls: { 'bitbucket-server': fake.url },
    });
    const promotion = prRequest({
      revision: '6.5.0',
      type: 'bitbucket-server',
      url: bitbucket.REPOSITORY_URL,
      secretName: SECRET.name,
    });
    pullRequestUrl = (await promoter.promote(promotion)).result ?? '';
    const pull = fake
      .pullRequests(bitbucket.PROJECT_KEY, bitbucket.REPOSITORY_SLUG)
      .find((p) => p.url === pullRequestUrl);
    assert.ok(pull);
    mergeSha = fake.merge(bitbucket.PROJECT_KEY, bitbucket.REPOSITORY_SLUG, pull.id);
  });
  after(() => fake.stop());

  const request = (state: DeploymentRequest['state'], recorded?: DeploymentRequest['recorded']) =>
    deploymentRequest('bitbucket-server', bitbucket.REPOSITORY_URL, pullRequestUrl, state, recorded);

  it('posts one build status per environment on the merge commit, each state replacing the one before', async () => {
    const first = await promoter.recordDeployment(request('in_progress'));
    assert.deepEqual(first, { id: KEY, sha: mergeSha, state: 'in_progress' });
    assert.deepEqual(
      fake.buildStatuses(mergeSha).map(({ state, key, name, url }) => ({ state, key, name, url })),
      [{ state: 'INPROGRESS', key: KEY, name: 'foo/bar/prod 6.5.0', url: 'https://prod.example.com' }],
    );
    fake.rateLimitNext({ retryAfterSeconds: 1 });
    await promoter.recordDeployment(request('failure', first));
    assert.deepEqual(
      fake.buildStatuses(mergeSha).map(({ state, key, description }) => ({ state, key, description })),
      [{ state: 'FAILED', key: KEY, description: 'verification of 6.5.0 failed: check smoke: HTTP 503' }],
    );
  });
});

describe('Azure DevOps pull request statuses of merged promotions', () => {
  let fake: FakeAzureDevOps;
  let promoter: PullRequestPromoter;
  let pullRequestUrl: string;
  let pullRequestId: number;
  let mergeSha: string;
  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: azure.ORGANIZATION, webHost: azure.WEB_HOST });
    fake.createRepository(azure.PROJECT, azure.REPOSITORY, FILES);
    const secrets = new StaticSecretSource([{ key: SECRET, values: { token: fake.token } }]);
    promoter = new PullRequestPromoter({
      secrets,
      hosts: [azureDevOpsHost(azure.FAST)],
      apiUrls: { 'azure-devops': fake.url },
    });
    const promotion = prRequest({
      revision: '6.5.0',
      type: 'azure-devops',
      url: azure.REPOSITORY_URL,
      secretName: SECRET.name,
    });
    pullRequestUrl = (await promoter.promote(promotion)).result ?? '';
    const pull = fake.pullRequests(azure.PROJECT, azure.REPOSITORY).find((p) => p.webUrl === pullRequestUrl);
    assert.ok(pull);
    pullRequestId = pull.pullRequestId;
    mergeSha = fake.merge(azure.PROJECT, azure.REPOSITORY, pullRequestId);
  });
  after(() => fake.stop());

  const request = (state: DeploymentRequest['state'], recorded?: DeploymentRequest['recorded']) =>
    deploymentRequest('azure-devops', azure.REPOSITORY_URL, pullRequestUrl, state, recorded);

  it('posts a status of the environment on the completed pull request for each state', async () => {
    const first = await promoter.recordDeployment(request('in_progress'));
    assert.deepEqual(first, { id: KEY, sha: mergeSha, state: 'in_progress' });
    fake.rateLimitNext({ retryAfterSeconds: 1 });
    await promoter.recordDeployment(request('success', first));
    assert.deepEqual(
      fake
        .pullRequestStatuses(azure.PROJECT, azure.REPOSITORY, pullRequestId)
        .map(({ state, context, targetUrl }) => ({ state, context, targetUrl })),
      [
        {
          state: 'pending',
          context: { name: 'foo/bar/prod', genre: 'pipeline-controller' },
          targetUrl: 'https://prod.example.com',
        },
        {
          state: 'succeeded',
          context: { name: 'foo/bar/prod', genre: 'pipeline-controller' },
          targetUrl: 'https://prod.example.com',
        },
      ],
    );
  });
});
