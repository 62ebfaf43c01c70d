// Deployments shown on GitHub (docs/deployments.md): a merged promotion's rollout recorded as a GitHub Deployment on
// the merge commit, with its statuses, through the real Octokit against the fake GitHub.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PromotionError, type DeploymentRequest } from '../../lib/promotion/index.js';
import { OWNER, REPO, prRequest, startFixture, type GitHubFixture } from './github-support.js';

const STATUSES_ROUTE = 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses';

describe('GitHub deployments of merged promotions', () => {
  let fixture: GitHubFixture;
  let pullRequestUrl: string;
  let mergeSha: string;

  before(async () => {
    fixture = await startFixture();
    const promoted = await fixture.promoter().promote(prRequest({ revision: '6.5.0' }));
    pullRequestUrl = promoted.result ?? '';
    const pull = fixture.fake.pulls(OWNER, REPO).find((candidate) => candidate.htmlUrl === pullRequestUrl);
    assert.ok(pull, 'the promotion opened a pull request');
    mergeSha = fixture.fake.merge(OWNER, REPO, pull.number, { mergeCommit: true });
  });
  after(() => fixture.stop());

  const request = (state: DeploymentRequest['state'], recorded?: DeploymentRequest['recorded']): DeploymentRequest => {
    const { pipeline, env } = prRequest({ revision: '6.5.0' });
    const pullRequest = env.promotion?.strategy['pull-request'];
    assert.ok(pullRequest);
    const withUrl = { ...pullRequest, deployments: true, environmentUrl: 'https://prod.example.com' };
    return {
      pipeline,
      env: { ...env, promotion: { strategy: { 'pull-request': withUrl } } },
      revision: '6.5.0',
      pullRequestUrl,
      state,
      description: state === 'failure' ? 'check error-rate failed: 0.2 > 0.05' : 'rolling out 6.5.0',
      ...(recorded ? { recorded } : {}),
    };
  };

  it('makes one deployment on the merge commit and records each state on it', async () => {
    const promoter = fixture.promoter();
    const first = await promoter.recordDeployment(request('in_progress'));
    assert.deepEqual(first, { id: first.id, sha: mergeSha, state: 'in_progress' });
    const second = await promoter.recordDeployment(request('success', first));
    assert.equal(second.id, first.id);

    const deployments = fixture.fake.deployments(OWNER, REPO);
    assert.equal(deployments.length, 1);
    const [deployment] = deployments;
    assert.equal(deployment?.sha, mergeSha);
    assert.equal(deployment?.environment, 'foo/bar/prod');
    assert.deepEqual(deployment?.payload, { revision: '6.5.0', pullRequest: pullRequestUrl });
    assert.deepEqual(
      deployment?.statuses.map((status) => [status.state, status.description, status.environmentUrl, status.logUrl]),
      [
        ['success', 'rolling out 6.5.0', 'https://prod.example.com', pullRequestUrl],
        ['in_progress', 'rolling out 6.5.0', 'https://prod.example.com', pullRequestUrl],
      ],
    );
  });

  it('finds the deployment it made when what it recorded was lost, rather than making a second', async () => {
    const again = await fixture.promoter().recordDeployment(request('failure'));
    const deployments = fixture.fake.deployments(OWNER, REPO);
    assert.equal(deployments.length, 1);
    assert.equal(again.id, String(deployments[0]?.id));
    assert.equal(deployments[0]?.statuses[0]?.state, 'failure');
    assert.equal(deployments[0]?.statuses[0]?.description, 'check error-rate failed: 0.2 > 0.05');
  });

  it('waits out a short secondary rate limit, and fails retryably on the primary one', async () => {
    const recorded = {
      id: String(fixture.fake.deployments(OWNER, REPO)[0]?.id),
      sha: mergeSha,
      state: 'failure' as const,
    };
    fixture.fake.secondaryRateLimitNext({ route: STATUSES_ROUTE, retryAfterSeconds: 1 });
    await fixture.promoter().recordDeployment(request('success', recorded));
    assert.equal(fixture.fake.deployments(OWNER, REPO)[0]?.statuses[0]?.state, 'success');

    fixture.fake.primaryRateLimitNext({ route: STATUSES_ROUTE, resetInSeconds: 600 });
    const error = await fixture
      .promoter()
      .recordDeployment(request('success', recorded))
      .then(
        () => assert.fail('recorded through a rate limit'),
        (thrown: unknown) => thrown,
      );
    assert.ok(error instanceof PromotionError);
    assert.equal(error.retryable, true);
  });

  it('says a token that may not write deployments is refused, not retried', async () => {
    // A token's value is registered for redaction for the whole process: a word such as `read-only` would be redacted
    // from other files' messages that share it.
    fixture.fake.addToken('token-without-write-access', { readOnly: true });
    fixture.secrets.set({ namespace: 'foo', name: 'github-credentials' }, { token: 'token-without-write-access' });
    try {
      const error = await fixture
        .promoter()
        .recordDeployment(request('in_progress'))
        .then(
          () => assert.fail('recorded with a read-only token'),
          (thrown: unknown) => thrown,
        );
      assert.ok(error instanceof PromotionError);
      assert.equal(error.retryable, false);
      assert.equal(fixture.fake.deployments(OWNER, REPO).length, 1);
    } finally {
      fixture.secrets.set({ namespace: 'foo', name: 'github-credentials' }, { token: fixture.fake.token });
    }
  });
});
