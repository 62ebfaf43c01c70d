// The GitHub pull-request strategy against the fake GitHub, through real HTTP and the real Octokit: what it writes,
// how it reuses the branch and the pull request, and how little it reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromotionError, type Promoter } from '../../lib/promotion/index.js';
import { ARCHIVE_AFTER_READS, pullRequestBody } from '../../lib/promotion/pull-request/index.js';
import { promoterContract, type PromoterUnderTest } from './promoter-contract.js';
import {
  BRANCH,
  FLEET_FILES,
  HELMRELEASE_PROD,
  OWNER,
  PROD_FILE,
  REPO,
  REPO_URL,
  SECRET,
  prRequest,
  startFixture,
} from './github-support.js';

const WEAVE_BODY = '<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\nfoo/bar/prod\n</details>';
const WRITES = /^(POST|PATCH|PUT|DELETE) /;

promoterContract('GitHub pull requests', async (): Promise<PromoterUnderTest> => {
  // The contract's Pipeline is flux-system/podinfo promoting into prod.
  const fixture = await startFixture({
    'apps/prod/podinfo.yaml':
      'spec:\n  chart:\n    spec:\n      version: 6.9.1 # {"$promotion": "flux-system:podinfo:prod"}\n',
  });
  fixture.secrets.set({ namespace: 'flux-system', name: 'github' }, { token: fixture.fake.token });
  const github = fixture.promoter();
  const promoter: Promoter = {
    promote: (request) =>
      github.promote({
        ...request,
        env: {
          ...request.env,
          promotion: {
            strategy: {
              'pull-request': { type: 'github', url: REPO_URL, baseBranch: 'main', secretRef: { name: 'github' } },
            },
          },
        },
      }),
  };
  return {
    promoter,
    effects: (env, revision) =>
      Promise.resolve(
        fixture.fake
          .pulls(OWNER, REPO)
          .filter(
            (pull) =>
              pull.head === `promotion-flux-system-podinfo-${env}` &&
              pull.title === `Promote flux-system/podinfo in ${env} to ${revision}`,
          ).length,
      ),
    injectFault: (kind) => {
      if (kind === 'transient') fixture.fake.primaryRateLimitNext({ resetInSeconds: 30 });
      else fixture.fake.failNext(404);
    },
    stop: () => fixture.stop(),
  };
});

describe('GitHub pull-request promotion', () => {
  it("commits the new version on the promotion branch and opens Weave's pull request", async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    try {
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(outcome, { result: `https://github.com/${OWNER}/${REPO}/pull/1` });

      const pulls = fake.pulls(OWNER, REPO);
      assert.equal(pulls.length, 1);
      const pull = pulls[0];
      assert.equal(pull?.title, 'Promote foo/bar in prod to 5.0.1');
      assert.equal(pull?.body, WEAVE_BODY);
      assert.equal(pullRequestBody('foo', 'bar', 'prod'), WEAVE_BODY);
      assert.equal(pull?.head, BRANCH);
      assert.equal(pull?.base, 'main');
      assert.equal(pull?.state, 'open');

      // Only the marked scalar changed, byte for byte; every other file is the same blob.
      const files = fake.files(OWNER, REPO, BRANCH);
      assert.equal(files[PROD_FILE], HELMRELEASE_PROD.replace('version: "5.0.0"', 'version: "5.0.1"'));
      assert.equal(files[PROD_FILE], fake.readFile(OWNER, REPO, BRANCH, PROD_FILE));
      const before = fake.blobShas(OWNER, REPO, 'main');
      const after = fake.blobShas(OWNER, REPO, BRANCH);
      assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
      for (const path of Object.keys(before)) {
        if (path !== PROD_FILE) assert.equal(after[path], before[path], `${path} untouched`);
      }
      assert.notEqual(after[PROD_FILE], before[PROD_FILE]);

      // One commit on top of main, with Weave's message; main itself is untouched.
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      const commit = fake.commit(OWNER, REPO, head);
      assert.equal(commit?.message, 'promoting version');
      assert.deepEqual(commit?.parents, [mainSha]);
      assert.equal(fake.ref(OWNER, REPO, 'main'), mainSha);
    } finally {
      await fixture.stop();
    }
  });

  it('moves the same branch and retitles the same pull request for a newer version', async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    try {
      const promoter = fixture.promoter();
      const first = await promoter.promote(prRequest({ revision: '5.0.1' }));
      const second = await promoter.promote(prRequest({ revision: '5.0.2' }));
      assert.equal(second.result, first.result);
      const pulls = fake.pulls(OWNER, REPO);
      assert.equal(pulls.length, 1, 'one pull request in total');
      assert.equal(pulls[0]?.title, 'Promote foo/bar in prod to 5.0.2');
      assert.equal(pulls[0]?.body, WEAVE_BODY, 'the body is left as it was');
      assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.2" # \{"\$promotion"/);
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      assert.deepEqual(fake.commit(OWNER, REPO, head)?.parents, [mainSha], 'rebuilt on main, not stacked');
      assert.equal(fake.count('PATCH /repos/{owner}/{repo}/pulls/{pull_number}'), 1);
      const patch = fake.requests.find((r) => r.route === 'PATCH /repos/{owner}/{repo}/git/refs/{ref}');
      assert.equal(patch?.path, `/repos/${OWNER}/${REPO}/git/refs/heads/${BRANCH}`);
    } finally {
      await fixture.stop();
    }
  });

  it('is idempotent: a repeated or resumed attempt reuses the commit, the branch and the pull request', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      const promoter = fixture.promoter();
      const first = await promoter.promote(prRequest({ revision: '5.0.1' }));
      const head = fake.ref(OWNER, REPO, BRANCH);
      // A crash after the pull request was opened and before the record was updated: the attempt is resumed,
      // possibly by another (cold) process.
      fake.resetRequests();
      const resumed = await fixture.promoter().promote(prRequest({ revision: '5.0.1', attempt: 2 }));
      const again = await promoter.promote(prRequest({ revision: '5.0.1', attempt: 3 }));
      assert.deepEqual(resumed, first);
      assert.deepEqual(again, first);
      assert.equal(fake.pulls(OWNER, REPO).length, 1);
      assert.equal(fake.ref(OWNER, REPO, BRANCH), head, 'the branch did not move');
      assert.deepEqual(
        fake.requests.filter((r) => WRITES.test(`${r.method} `)).map((r) => r.route),
        [],
        'nothing written: no tree, no commit, no ref, and the title is already right',
      );

      // Resumed after the pull request was merged: nothing left to change, the same result.
      const pull = fake.pulls(OWNER, REPO)[0] ?? assert.fail('no pull request');
      fake.merge(OWNER, REPO, pull.number);
      const refs = fake.refs(OWNER, REPO);
      fake.resetRequests();
      const afterMerge = await promoter.promote(prRequest({ revision: '5.0.1', attempt: 4 }));
      assert.deepEqual(afterMerge, first);
      assert.equal(fake.count(WRITES), 0, 'nothing written');
      assert.deepEqual(fake.refs(OWNER, REPO), refs);
      assert.equal(fake.pulls(OWNER, REPO).length, 1);
    } finally {
      await fixture.stop();
    }
  });

  it('ends 50 concurrent identical promotions with one pull request', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      // Separate promoters, as separate Lambda invocations would be (no shared client or cache).
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fixture.promoter().promote(prRequest({ revision: '5.0.1', attempt: i + 1 })),
        ),
      );
      assert.equal(new Set(outcomes.map((outcome) => outcome.result)).size, 1);
      assert.equal(outcomes[0]?.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      const pulls = fake.pulls(OWNER, REPO);
      assert.equal(pulls.length, 1);
      assert.equal(pulls[0]?.title, 'Promote foo/bar in prod to 5.0.1');
      assert.equal(
        fake.readFile(OWNER, REPO, BRANCH, PROD_FILE),
        HELMRELEASE_PROD.replace('version: "5.0.0"', 'version: "5.0.1"'),
      );
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      assert.deepEqual(fake.commit(OWNER, REPO, head)?.parents, [fixture.mainSha], 'one commit on main');
      assert.equal(pulls[0]?.state, 'open');
    } finally {
      await fixture.stop();
    }
  });

  it('fails for good, writing nothing, when no file is marked for the environment', async () => {
    const { [PROD_FILE]: _prod, ...withoutProd } = FLEET_FILES;
    const fixture = await startFixture(withoutProd);
    const { fake } = fixture;
    try {
      const refs = fake.refs(OWNER, REPO);
      const objects = fake.objectCounts(OWNER, REPO);
      await assert.rejects(fixture.promoter().promote(prRequest({ revision: '5.0.1' })), (error: unknown) => {
        assert.ok(error instanceof PromotionError);
        assert.equal(error.retryable, false);
        assert.equal(
          error.message,
          `no {"$promotion": "foo:bar:prod"} marker found in https://github.com/${OWNER}/${REPO} at main`,
        );
        return true;
      });
      assert.equal(fake.count(WRITES), 0, 'no blob, tree, commit, ref or pull request created');
      assert.deepEqual(fake.refs(OWNER, REPO), refs);
      assert.deepEqual(fake.objectCounts(OWNER, REPO), objects);
      assert.equal(fake.pulls(OWNER, REPO).length, 0);
    } finally {
      await fixture.stop();
    }
  });

  it('promotes a value whose only marker is a head comment (as kyaml reads it): the pull request changes that line', async () => {
    const headMarked = HELMRELEASE_PROD.replace(
      '      version: "5.0.0" # {"$promotion": "foo:bar:prod"}\n',
      '      # {"$promotion": "foo:bar:prod"}\n      version: "5.0.0"\n',
    );
    assert.notEqual(headMarked, HELMRELEASE_PROD);
    const fixture = await startFixture({ ...FLEET_FILES, [PROD_FILE]: headMarked });
    const { fake } = fixture;
    try {
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(outcome, { result: `https://github.com/${OWNER}/${REPO}/pull/1` });
      assert.equal(fake.pulls(OWNER, REPO)[0]?.title, 'Promote foo/bar in prod to 5.0.1');
      assert.equal(
        fake.readFile(OWNER, REPO, BRANCH, PROD_FILE),
        headMarked.replace('      version: "5.0.0"\n', '      version: "5.0.1"\n'),
      );
      const before = fake.blobShas(OWNER, REPO, 'main');
      const after = fake.blobShas(OWNER, REPO, BRANCH);
      for (const path of Object.keys(before)) {
        if (path !== PROD_FILE) assert.equal(after[path], before[path], `${path} untouched`);
      }
    } finally {
      await fixture.stop();
    }
  });

  it('succeeds without a pull request when the base branch already has the version', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.0' }));
      assert.deepEqual(outcome, { result: `already at 5.0.0 on main in https://github.com/${OWNER}/${REPO}` });
      assert.equal(fake.count(WRITES), 0);
      assert.equal(fake.ref(OWNER, REPO, BRANCH), undefined);
      assert.equal(fake.pulls(OWNER, REPO).length, 0);
    } finally {
      await fixture.stop();
    }
  });

  it('reads a blob only once per content: the first promotion from an archive, a later one just the blobs that changed', async () => {
    const files: Record<string, string> = { ...FLEET_FILES };
    for (let i = 0; i < 20; i++) files[`apps/other/app-${i}.yaml`] = `kind: ConfigMap\ndata:\n  n: "${i}"\n`;
    const fixture = await startFixture(files);
    const { fake } = fixture;
    const blobReads = () => fake.count('GET /repos/{owner}/{repo}/git/blobs/{file_sha}');
    const yamlFiles = Object.keys(files).filter((path) => /\.ya?ml$/.test(path)).length;
    try {
      const promoter = fixture.promoter();
      await promoter.promote(prRequest({ revision: '5.0.1' }));
      // More files than ARCHIVE_AFTER_READS: the first scan reads them all from one archive of the commit.
      assert.ok(yamlFiles > ARCHIVE_AFTER_READS);
      assert.equal(blobReads(), 0, 'the first promotion reads no file on its own');
      assert.equal(fake.count('GET /repos/{owner}/{repo}/tarball/{ref}'), 1, 'one archive of the commit');
      assert.ok(!fake.requests.some((r) => r.route === 'GET /repos/{owner}/{repo}/contents/{path}'));

      // Merge it and change one unrelated manifest: the next promotion reads the two new blobs only.
      fake.merge(OWNER, REPO, 1);
      fake.commitFiles(OWNER, REPO, 'main', { 'apps/other/app-3.yaml': 'kind: ConfigMap\ndata:\n  n: "three"\n' });
      fake.resetRequests();
      await promoter.promote(prRequest({ revision: '5.0.2' }));
      assert.equal(blobReads(), 2);
      assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /"5\.0\.2"/);
      assert.equal(fake.pulls(OWNER, REPO).length, 2, 'the first pull request was merged, so a new one is opened');

      // The same base again (a retry): nothing to read at all, not even the tree, and nothing written.
      fake.resetRequests();
      await promoter.promote(prRequest({ revision: '5.0.2', attempt: 2 }));
      assert.equal(blobReads(), 0);
      assert.equal(fake.count('GET /repos/{owner}/{repo}/git/trees/{tree_sha}'), 0, 'the listing of the base is known');
      assert.equal(fake.count(WRITES), 0);
    } finally {
      await fixture.stop();
    }
  });

  it('fails for good on a tree too large to list in one response', async () => {
    const fixture = await startFixture(FLEET_FILES, { maxTreeEntries: 3 });
    try {
      await assert.rejects(fixture.promoter().promote(prRequest({ revision: '5.0.1' })), (error: unknown) => {
        assert.ok(error instanceof PromotionError);
        assert.equal(error.retryable, false);
        assert.match(error.message, /truncated/);
        return true;
      });
      assert.equal(fixture.fake.count(WRITES), 0);
    } finally {
      await fixture.stop();
    }
  });

  it('names the Secret and its keys, never its values, when credentials are missing', async () => {
    const fixture = await startFixture();
    try {
      const promoter = fixture.promoter();
      const reject = async (values: Record<string, string> | undefined, pattern: RegExp) => {
        if (values) fixture.secrets.set(SECRET, values);
        await assert.rejects(
          promoter.promote(prRequest({ revision: '5.0.1', secretName: values ? SECRET.name : 'missing' })),
          (error: unknown) => {
            assert.ok(error instanceof PromotionError);
            assert.equal(error.retryable, false);
            assert.match(error.message, pattern);
            assert.doesNotMatch(error.message, /s3cr3t|BEGIN/);
            return true;
          },
        );
      };
      await reject(undefined, /^Secret foo\/missing not found: .*"token".*"githubAppID", "githubAppInstallationID"/);
      await reject({ token: '' }, /Secret foo\/github-credentials has no GitHub credentials \("token" is empty\)/);
      await reject(
        { githubAppID: '12', githubAppPrivateKey: 's3cr3t' },
        /Secret foo\/github-credentials has "githubAppID", "githubAppPrivateKey" but lacks "githubAppInstallationID"/,
      );
      await reject(
        { githubAppID: '12', githubAppInstallationID: '34', githubAppPrivateKey: 's3cr3t' },
        /"githubAppPrivateKey" is not a PEM private key/,
      );
      assert.equal(fixture.fake.requests.length, 0, 'nothing was sent');
    } finally {
      await fixture.stop();
    }
  });
});
