// The verifier's recording of merged promotions' rollouts on the Git host (lib/verifier/host-deployments.ts), with
// the real GitHub adapter against the fake GitHub and the in-memory store: each state is written once, from what the
// decision says, and a host that refuses never fails the decision; it is tried again once the claim has expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Decision, EnvironmentExplanation } from '../../lib/decision/index.js';
import { appKeyOf, appKeyString } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { recordHostDeployments } from '../../lib/verifier/host-deployments.js';
import { OWNER, REPO, prRequest, startFixture, type GitHubFixture } from '../promotion/github-support.js';

const REVISION = '6.5.0';
const T0 = new Date('2026-11-01T10:00:00.000Z');
const DEPLOYMENTS = 'POST /repos/{owner}/{repo}/deployments';

describe('recording merged promotions on the Git host', () => {
  let fixture: GitHubFixture;
  let store: MemoryStore;
  let now = T0;
  const warnings: string[] = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => void warnings.push(message),
    error: () => undefined,
  };
  const { pipeline: plain } = prRequest({ revision: REVISION });
  const pipeline = {
    ...plain,
    environments: plain.environments.map((env) => {
      const pullRequest = env.promotion?.strategy['pull-request'];
      return pullRequest
        ? { ...env, promotion: { strategy: { 'pull-request': { ...pullRequest, deployments: true } } } }
        : env;
    }),
  };
  const decided = (state: EnvironmentExplanation['state'], reason: EnvironmentExplanation['reason']): Decision => ({
    candidate: REVISION,
    actions: [],
    environments: [
      { env: 'dev', state: 'source', reason: 'CandidateFound', message: `dev runs ${REVISION}` },
      { env: 'prod', state, reason, message: `prod: ${state}` },
    ],
  });
  const record = async (decision: Decision) => {
    const promotions = await store.listPromotions(pipeline);
    await recordHostDeployments(pipeline, decision, promotions, new Map(), {
      store,
      promoter: fixture.promoter(),
      logger,
      now: () => now,
    });
  };
  const stored = async () => (await store.getPromotion(pipeline, 'prod', REVISION))?.hostDeployment;

  before(async () => {
    fixture = await startFixture();
    store = new MemoryStore();
    const url = (await fixture.promoter().promote(prRequest({ revision: REVISION }))).result ?? '';
    const pull = fixture.fake.pulls(OWNER, REPO).find((candidate) => candidate.htmlUrl === url);
    assert.ok(pull);
    fixture.fake.merge(OWNER, REPO, pull.number);
    await store.createPromotion(pipeline, 'prod', REVISION, T0);
    const claimed = await store.claimPromotion(pipeline, 'prod', REVISION, 'worker', 60_000, T0);
    assert.ok(claimed && (await store.completePromotion(claimed, url, T0)));
    const completed = await store.getPromotion(pipeline, 'prod', REVISION);
    assert.ok(completed && (await store.recordPullRequestState(completed, 'merged', T0)));
  });
  after(() => fixture.stop());

  it('a host that refuses fails nothing, and is tried again once the claim has expired', async () => {
    fixture.fake.primaryRateLimitNext({ route: DEPLOYMENTS, resetInSeconds: 600 });
    await record(decided('promoted', 'PullRequestMerged'));
    assert.deepEqual(warnings, [
      'cannot record the deployment on the Git host; tried again once its claim has expired',
    ]);
    assert.equal(await stored(), undefined);
    assert.deepEqual(fixture.fake.deployments(OWNER, REPO), []);

    // Within the claim, nothing is asked of the host.
    fixture.fake.resetRequests();
    await record(decided('promoted', 'PullRequestMerged'));
    assert.equal(fixture.fake.requests.length, 0);

    now = new Date(T0.getTime() + 61_000);
    await record(decided('promoted', 'PullRequestMerged'));
    assert.equal((await stored())?.state, 'in_progress');
    assert.deepEqual(
      fixture.fake.deployments(OWNER, REPO)[0]?.statuses.map((status) => status.state),
      ['in_progress'],
    );
  });

  it('writes each state once: the same decision again asks nothing of the host', async () => {
    fixture.fake.resetRequests();
    await record(decided('verifying', 'VerificationHolding'));
    assert.equal(fixture.fake.requests.length, 0, 'still in progress: nothing to record');
    await record(decided('passed', 'VerificationPassed'));
    await record(decided('passed', 'VerificationPassed'));
    const [deployment] = fixture.fake.deployments(OWNER, REPO);
    assert.deepEqual(
      deployment?.statuses.map((status) => status.state),
      ['success', 'in_progress'],
    );
    assert.equal((await stored())?.state, 'success');
    assert.equal(fixture.fake.deployments(OWNER, REPO).length, 1);
  });

  it('a target Flux reports Failed on the revision fails the rollout, with what Flux says', async () => {
    const prod = pipeline.environments[1];
    assert.ok(prod);
    const failing = new Map(
      prod.targets.map((target) => [
        appKeyString(appKeyOf(pipeline, target)),
        {
          status: {
            phase: 'Failed' as const,
            reason: 'ReleaseFailed' as const,
            message: 'Helm upgrade failed: context deadline exceeded',
            revision: REVISION,
          },
          observedAt: now.toISOString(),
          changedAt: now.toISOString(),
        },
      ]),
    );
    await recordHostDeployments(
      pipeline,
      decided('in-progress', 'RollingOut'),
      await store.listPromotions(pipeline),
      failing,
      {
        store,
        promoter: fixture.promoter(),
        logger,
        now: () => now,
      },
    );
    const [latest] = fixture.fake.deployments(OWNER, REPO)[0]?.statuses ?? [];
    assert.equal(latest?.state, 'failure');
    assert.equal(
      latest?.description,
      'a target of prod failed on 6.5.0: Helm upgrade failed: context deadline exceeded',
    );
  });
});
