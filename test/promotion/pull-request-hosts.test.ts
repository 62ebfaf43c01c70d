// The pull-request strategy on every Git host: the same promoter (lib/promotion/pull-request/promoter.ts) with each
// host's adapter, against each host's fake driven by the host's real client. Every host gives GitHub's guarantees:
// the promoter contract, byte-exact marker edits (the same bytes as on GitHub), one pull request under 50
// concurrent identical promotions, retries on 5xx and rate limits by the host's own signals, and failures that say
// what a person must fix without anything pushed. What the pull request says: pull-request-bodies.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PromotionError, type Promoter } from '../../lib/promotion/index.js';
import { setMarkedValues } from '../../lib/promotion/markers.js';
import { PullRequestPromoter, pullRequestBody } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { prRequest } from './github-support.js';
import { promoterContract, type PromoterUnderTest } from './promoter-contract.js';
import { BRANCH, HOSTS, MARKED_FILES, SECRET, subjectOf, type Subject } from './pull-request-subject.js';

const UNMARKED_FILES: Record<string, string> = {
  'apps/prod/kustomization.yaml': 'resources:\n  - helmrelease.yaml\n',
  'apps/prod/helmrelease.yaml': 'spec:\n  chart:\n    spec:\n      version: 6.9.1\n',
};

async function rejection(promise: Promise<unknown>): Promise<PromotionError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PromotionError, `a PromotionError, not ${String(error)}`);
    return error;
  }
  assert.fail('the promotion succeeded');
}

/** The files as GitHub's promotion leaves them on the branch: every host must produce these bytes. */
let githubBranchFiles: Record<string, string> | undefined;

for (const [type, start] of HOSTS) {
  promoterContract(`${type} pull requests`, async (): Promise<PromoterUnderTest> => {
    const fake = await start();
    fake.createRepository({
      'apps/prod/podinfo.yaml':
        'spec:\n  chart:\n    spec:\n      version: 6.9.1 # {"$promotion": "flux-system:podinfo:prod"}\n',
    });
    const secrets = new StaticSecretSource([
      { key: { namespace: 'flux-system', name: 'git' }, values: fake.secretValues },
    ]);
    let faulty: 'transient' | 'permanent' | undefined;
    const pullRequests = new PullRequestPromoter({
      secrets,
      // No retries inside a call: one injected 5xx fails the call (the verifier retries it later).
      hosts: [fake.host({ retries: 0 })],
      apiUrls: { [type]: fake.apiUrl },
    });
    const promoter: Promoter = {
      promote: async (request) => {
        const fault = faulty;
        faulty = undefined;
        if (fault === 'transient') fake.failNext(503, 1);
        if (fault === 'permanent') secrets.set({ namespace: 'flux-system', name: 'git' }, { token: 'revoked' });
        try {
          return await pullRequests.promote({
            ...request,
            env: {
              ...request.env,
              promotion: {
                strategy: {
                  'pull-request': { type, url: fake.repositoryUrl, baseBranch: 'main', secretRef: { name: 'git' } },
                },
              },
            },
          });
        } finally {
          if (fault === 'permanent') secrets.set({ namespace: 'flux-system', name: 'git' }, fake.secretValues);
        }
      },
    };
    return {
      promoter,
      effects: (env, revision) =>
        Promise.resolve(
          fake.pullRequests().filter((pull) => pull.title === `Promote flux-system/podinfo in ${env} to ${revision}`)
            .length,
        ),
      rollbackEffects: (env, from) =>
        Promise.resolve(
          fake.pullRequests().filter((pull) => pull.title.startsWith(`Roll back ${env} from ${from} to `)).length,
        ),
      injectFault: (kind) => {
        faulty = kind;
      },
      stop: () => fake.stop(),
    };
  });

  describe(`${type} pull requests`, () => {
    let subject: Subject;
    before(async () => {
      subject = subjectOf(await start());
      subject.fake.createRepository(MARKED_FILES);
    });
    after(() => subject.fake.stop());

    it('edits every marked file byte for byte as on GitHub, in one branch with one pull request', async () => {
      const url = await subject.promote('6.9.2');
      const { fake } = subject;
      const branch = fake.files(BRANCH);
      for (const [path, text] of Object.entries(MARKED_FILES)) {
        const expected = path.endsWith('.md') ? text : setMarkedValues(text, 'foo:bar:prod', '6.9.2').text;
        assert.equal(branch[path], expected, path);
      }
      assert.notEqual(branch['apps/prod/values.yml'], MARKED_FILES['apps/prod/values.yml'], 'CRLF file edited');
      assert.equal(branch['apps/staging/helmrelease.yaml'], MARKED_FILES['apps/staging/helmrelease.yaml']);
      if (type === 'github') githubBranchFiles = branch;
      else if (githubBranchFiles) assert.deepEqual(branch, githubBranchFiles, 'the same bytes as on GitHub');
      assert.deepEqual(fake.files('main'), MARKED_FILES, 'the base branch is untouched');

      const pulls = fake.pullRequests();
      assert.equal(pulls.length, 1);
      assert.deepEqual(
        { ...pulls[0], url: undefined },
        {
          title: 'Promote foo/bar in prod to 6.9.2',
          body: pullRequestBody('foo', 'bar', 'prod'),
          state: 'open',
          source: BRANCH,
          target: 'main',
          url: undefined,
        },
      );
      assert.equal(pulls[0]?.url, url);
      assert.equal(fake.commitsAhead(BRANCH), type === 'bitbucket-server' ? 4 : 1, 'the changed files committed');
    });

    it('leaves the branch alone when called again, and moves it onto the base for a new version', async () => {
      const { fake } = subject;
      const head = fake.branchHead(BRANCH);
      const url = await subject.promote('6.9.2');
      assert.equal(fake.branchHead(BRANCH), head, 'no new commit for the same version');
      assert.equal(url, fake.pullRequests()[0]?.url);

      fake.commitFiles('main', { 'docs/new.md': 'a change on main\n' });
      const next = await subject.promote('6.9.3');
      assert.equal(next, url, 'the open pull request is reused');
      const pulls = fake.pullRequests();
      assert.equal(pulls.length, 1, 'never a second pull request for the branch');
      assert.equal(pulls[0]?.title, 'Promote foo/bar in prod to 6.9.3');
      const files = fake.files(BRANCH);
      assert.equal(files['docs/new.md'], 'a change on main\n', 'the branch starts from the current base');
      assert.match(files['apps/prod/helmrelease.yaml'] ?? '', /version: "6.9.3"/);
    });

    it('tells where its pull request stands in one request: open, then merged; none other from the branch', async () => {
      const { fake } = subject;
      const url = fake.pullRequests()[0]?.url ?? assert.fail('no pull request');
      const { pipeline, env } = prRequest({
        revision: '6.9.3',
        type,
        url: fake.repositoryUrl,
        secretName: SECRET.name,
      });
      const promoter = subject.promoter();
      // A new client's first call may discover the API (Azure DevOps' resource locations), once per process.
      await promoter.pullRequestState({ pipeline, env, url });
      const stateOf = async (at: string) => {
        fake.resetRequests();
        const state = await promoter.pullRequestState({ pipeline, env, url: at });
        assert.equal(fake.requestCount(), 1, 'one request to the host');
        return state;
      };
      assert.equal(await stateOf(url), 'open');
      assert.equal(await stateOf(`${url}0`), undefined, 'a URL the branch has no pull request at');
      fake.merge(url);
      assert.equal(await stateOf(url), 'merged');
    });

    it('gives the merged pull request as the result once the base holds the version', async () => {
      const { fake } = subject;
      const url = fake.pullRequests()[0]?.url ?? assert.fail('no pull request');
      if (fake.pullRequests()[0]?.state === 'open') fake.merge(url);
      assert.match(fake.files('main')['apps/prod/helmrelease.yaml'] ?? '', /version: "6.9.3"/);
      fake.resetRequests();
      assert.equal(await subject.promote('6.9.3'), url);
      assert.equal(fake.pullRequests().length, 1, 'nothing new opened');
    });

    it('makes one pull request from 50 concurrent identical promotions', async () => {
      const { fake } = subject;
      const promoter = subject.promoter();
      const results = await Promise.all(Array.from({ length: 50 }, () => subject.promote('7.0.0', promoter)));
      const open = fake.pullRequests().filter((pull) => pull.state === 'open');
      assert.equal(open.length, 1);
      assert.equal(open[0]?.title, 'Promote foo/bar in prod to 7.0.0');
      assert.deepEqual(new Set(results), new Set([open[0]?.url]));
      assert.match(fake.files(BRANCH)['apps/prod/helmrelease.yaml'] ?? '', /version: "7.0.0"/);
    });

    it('retries 5xx answers inside the call', async () => {
      const { fake } = subject;
      fake.failNext(502, 2);
      const url = await subject.promote('7.0.1');
      assert.equal(fake.pullRequests().filter((pull) => pull.state === 'open').length, 1);
      assert.equal(url, fake.pullRequests().find((pull) => pull.state === 'open')?.url);
    });

    it('names why a call failed: each error status the host answers as its kind, retried or not', async () => {
      const { fake } = subject;
      const rows = [
        [401, 'Unauthorized', false],
        [403, 'Forbidden', false],
        [404, 'NotFound', false],
        [409, 'Conflict', false],
        [422, 'Conflict', false],
        [500, 'HostUnavailable', true],
        [503, 'HostUnavailable', true],
      ] as const;
      for (const [status, kind, retried] of rows) {
        fake.failNext(status, 1);
        const error = await rejection(subject.promote('7.0.9', subject.promoter({ retries: 0 })));
        assert.deepEqual([error.kind, error.retryable], [kind, retried], `HTTP ${status}: ${error.message}`);
      }
    });

    it('ends a call on a long rate limit with the wait the host asked for, and succeeds once it lifts', async () => {
      const { fake } = subject;
      fake.rateLimitNext(120);
      const error = await rejection(subject.promote('7.0.2', subject.promoter({ retryAfterUnitMs: 1000 })));
      assert.equal(error.kind, 'RateLimited');
      assert.equal(error.retryable, true);
      assert.ok(
        error.retryAfterMs !== undefined && error.retryAfterMs >= 110_000 && error.retryAfterMs <= 125_000,
        `retry after ${String(error.retryAfterMs)} ms`,
      );
      await subject.promote('7.0.2');
      assert.equal(
        fake.pullRequests().find((pull) => pull.state === 'open')?.title,
        'Promote foo/bar in prod to 7.0.2',
      );
    });

    if (type !== 'github') {
      // GitHub's primary rate limit lasts until its reset (up to an hour) and is never waited out inside a call.
      it('waits out a short rate limit inside the call', async () => {
        const { fake } = subject;
        fake.rateLimitNext(2);
        fake.resetRequests();
        await subject.promote('7.0.3', subject.promoter({ retryAfterUnitMs: 5, maxRateLimitWaitMs: 1000 }));
        assert.equal(
          fake.pullRequests().find((pull) => pull.state === 'open')?.title,
          'Promote foo/bar in prod to 7.0.3',
        );
      });
    }

    it('fails for good on rejected credentials, naming the Secret and never the token', async () => {
      const { fake, secrets } = subject;
      const head = fake.branchHead(BRANCH);
      const token = 'not-a-valid-token-4711';
      secrets.set(SECRET, Object.fromEntries(Object.keys(fake.secretValues).map((key) => [key, token])));
      try {
        const error = await rejection(subject.promote('8.0.0'));
        assert.equal(error.kind, 'Unauthorized');
        assert.equal(error.retryable, false);
        assert.match(error.message, /Secret foo\/git-credentials/);
        assert.doesNotMatch(error.message, new RegExp(token));
      } finally {
        secrets.set(SECRET, fake.secretValues);
      }
      assert.equal(fake.branchHead(BRANCH), head, 'nothing pushed');
    });

    it('fails for good, naming the keys, when the Secret holds no credentials', async () => {
      const { secrets, fake } = subject;
      secrets.set(SECRET, { unrelated: 'x' });
      try {
        const error = await rejection(subject.promote('8.0.0'));
        assert.equal(error.kind, 'Invalid');
        assert.equal(error.retryable, false);
        assert.match(error.message, /Secret foo\/git-credentials/);
        assert.match(error.message, /"token"/);
      } finally {
        secrets.set(SECRET, fake.secretValues);
      }
    });
  });

  describe(`${type} pull requests: a repository without the marker`, () => {
    it('fails for good and pushes nothing', async () => {
      const fake = await start();
      try {
        fake.createRepository(UNMARKED_FILES);
        const subject = subjectOf(fake);
        const error = await rejection(subject.promote('6.9.2'));
        assert.equal(error.kind, 'NoMarkers');
        assert.equal(error.retryable, false);
        assert.match(error.message, /no \{"\$promotion": "foo:bar:prod"\} marker found in https:\/\/\S+ at main/);
        assert.equal(fake.branchHead(BRANCH), undefined);
        assert.equal(fake.pullRequests().length, 0);
      } finally {
        await fake.stop();
      }
    });

    it('fails for good naming the base branch when it does not exist', async () => {
      const fake = await start();
      try {
        fake.createRepository(MARKED_FILES);
        const secrets = new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]);
        const promoter = new PullRequestPromoter({ secrets, hosts: [fake.host()], apiUrls: { [type]: fake.apiUrl } });
        const error = await rejection(
          promoter.promote(
            prRequest({
              revision: '1.0.0',
              type,
              url: fake.repositoryUrl,
              secretName: SECRET.name,
              baseBranch: 'nope',
            }),
          ),
        );
        assert.equal(error.kind, 'NotFound');
        assert.equal(error.retryable, false);
        assert.match(error.message, /the base branch nope does not exist/);
        assert.equal(fake.pullRequests().length, 0);
      } finally {
        await fake.stop();
      }
    });
  });
}
