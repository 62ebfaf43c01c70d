// Deployments shown on GitLab (docs/deployments.md): a merged promotion's rollout recorded as a GitLab deployment of
// the merge commit on the environment, `running`, then `success` or `failed`, through gitbeaker against the fake
// GitLab.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PromotionError, type DeploymentRequest } from '../../lib/promotion/index.js';
import { gitLabHost } from '../../lib/promotion/gitlab/index.js';
import { PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';
import { prRequest } from './github-support.js';
import { FAST, PROJECT_PATH, PROJECT_URL, WEB_HOST } from './gitlab-support.js';

const SECRET = { namespace: 'foo', name: 'gitlab-credentials' };
const FILES = {
  'apps/prod/podinfo.yaml': 'spec:\n  chart:\n    spec:\n      version: 6.4.0 # {"$promotion": "foo:bar:prod"}\n',
};

describe('GitLab deployments of merged promotions', () => {
  let fake: FakeGitLab;
  let secrets: StaticSecretSource;
  let pullRequestUrl: string;
  let mergeSha: string;
  const promoter = () => new PullRequestPromoter({ secrets, hosts: [gitLabHost(FAST)], apiUrls: { gitlab: fake.url } });
  const promotion = () => prRequest({ revision: '6.5.0', type: 'gitlab', url: PROJECT_URL, secretName: SECRET.name });

  before(async () => {
    fake = await FakeGitLab.start({ webHost: WEB_HOST });
    fake.createRepository(PROJECT_PATH, FILES);
    secrets = new StaticSecretSource([{ key: SECRET, values: { token: fake.token } }]);
    pullRequestUrl = (await promoter().promote(promotion())).result ?? '';
    const mr = fake.mergeRequests(PROJECT_PATH).find((candidate) => candidate.webUrl === pullRequestUrl);
    assert.ok(mr, 'the promotion opened a merge request');
    mergeSha = fake.merge(PROJECT_PATH, mr.iid);
  });
  after(() => fake.stop());

  const request = (state: DeploymentRequest['state'], recorded?: DeploymentRequest['recorded']): DeploymentRequest => {
    const { pipeline, env } = promotion();
    return {
      pipeline,
      env,
      revision: '6.5.0',
      pullRequestUrl,
      state,
      description: 'rolling out',
      ...(recorded ? { recorded } : {}),
    };
  };

  it('makes one running deployment of the merge commit on the environment, then sets its status', async () => {
    const first = await promoter().recordDeployment(request('in_progress'));
    assert.deepEqual(first, { id: first.id, sha: mergeSha, state: 'in_progress' });
    await promoter().recordDeployment(request('success', first));
    const deployments = fake.deployments(PROJECT_PATH);
    assert.equal(deployments.length, 1);
    assert.deepEqual(
      deployments.map(({ environment, sha, ref, tag, history }) => ({ environment, sha, ref, tag, history })),
      [{ environment: 'foo/bar/prod', sha: mergeSha, ref: 'main', tag: false, history: ['running', 'success'] }],
    );
  });

  it('finds the deployment it made when what it recorded was lost, and survives a rate limit', async () => {
    fake.rateLimitNext({ resetInSeconds: 1 });
    const again = await promoter().recordDeployment(request('failure'));
    const deployments = fake.deployments(PROJECT_PATH);
    assert.equal(deployments.length, 1);
    assert.equal(again.id, String(deployments[0]?.id));
    assert.deepEqual(deployments[0]?.history, ['running', 'success', 'failed']);
  });

  it('says a reporter, who may not deploy, is refused and not retried', async () => {
    fake.addToken('reporter-token', { role: 'reporter' });
    secrets.set(SECRET, { token: 'reporter-token' });
    try {
      const error = await promoter()
        .recordDeployment(request('in_progress'))
        .then(
          () => assert.fail('recorded by a reporter'),
          (thrown: unknown) => thrown,
        );
      assert.ok(error instanceof PromotionError);
      assert.equal(error.retryable, false);
    } finally {
      secrets.set(SECRET, { token: fake.token });
    }
  });
});
