// The writes a GitHub promotion makes, case by case. Each write is a second of a promotion's latency (Octokit spaces
// them 1 s apart, as GitHub asks), so the adapter makes as few as GitHub allows, and none when nothing is left to do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Octokit } from '@octokit/rest';
import { PromotionError } from '../../lib/promotion/index.js';
import { createGitHubClient } from '../../lib/promotion/github/client.js';
import { openOrUpdateGitHubPullRequest } from '../../lib/promotion/github/pull-request-write.js';
import type { FakeGitHub } from '../../lib/testing/fake-github.js';
import {
  BRANCH,
  FLEET_FILES,
  HELMRELEASE_PROD,
  OWNER,
  PROD_FILE,
  REPO,
  SECRET,
  prRequest,
  startFixture,
} from './github-support.js';

const PROD_EU_FILE = 'apps/prod-eu/podinfo.yaml';
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The routes of the writes received since the last reset, in order. */
function writes(fake: FakeGitHub): (string | undefined)[] {
  return fake.requests.filter((request) => request.method !== 'GET').map((request) => request.route);
}

const R = {
  createRef: 'POST /repos/{owner}/{repo}/git/refs',
  moveRef: 'PATCH /repos/{owner}/{repo}/git/refs/{ref}',
  putFile: 'PUT /repos/{owner}/{repo}/contents/{path}',
  createTree: 'POST /repos/{owner}/{repo}/git/trees',
  createCommit: 'POST /repos/{owner}/{repo}/git/commits',
  openPull: 'POST /repos/{owner}/{repo}/pulls',
  updatePull: 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
} as const;

const prodAt = (version: string) => HELMRELEASE_PROD.replace('version: "5.0.0"', `version: "${version}"`);

/** Every file of `branch` is main's, but those in `changed`. */
function assertOnlyChanged(fake: FakeGitHub, branch: string, changed: Record<string, string>): void {
  const expected = { ...fake.files(OWNER, REPO, 'main'), ...changed };
  assert.deepEqual(fake.files(OWNER, REPO, branch), expected);
}

describe('GitHub promotion writes', () => {
  it('opens the first pull request of one file in 3 writes: the branch on main, the commit, the pull request', async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    try {
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      assert.deepEqual(writes(fake), [R.createRef, R.putFile, R.openPull]);
      assert.ok(!fake.requests.some((request) => request.status === 422), 'no request refused');

      // The same commit the git API made: one on main, Weave's message, the configured author as committer too.
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      const commit = fake.commit(OWNER, REPO, head) ?? assert.fail('no commit');
      assert.deepEqual(commit.parents, [mainSha]);
      assert.equal(commit.message, 'promoting version');
      assert.deepEqual(
        [commit.author.name, commit.author.email],
        ['Promotion Server', 'promotion-server@pipeline-controller.invalid'],
      );
      assert.deepEqual([commit.committer.name, commit.committer.email], [commit.author.name, commit.author.email]);
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.1') });
    } finally {
      await fixture.stop();
    }
  });

  it('updates the open pull request for a newer version in 4 writes, without a POST GitHub would refuse', async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    try {
      const promoter = fixture.promoter();
      const first = await promoter.promote(prRequest({ revision: '5.0.1' }));
      fake.resetRequests();
      const second = await promoter.promote(prRequest({ revision: '5.0.2' }));
      assert.equal(second.result, first.result);
      // Never reset onto main under the open pull request (the fake, as GitHub, would close it): a tree instead.
      assert.deepEqual(writes(fake), [R.createTree, R.createCommit, R.moveRef, R.updatePull]);
      assert.ok(!fake.requests.some((request) => request.status === 422), 'no request refused');
      const pulls = fake.pulls(OWNER, REPO);
      assert.deepEqual(
        pulls.map((pull) => [pull.state, pull.title]),
        [['open', 'Promote foo/bar in prod to 5.0.2']],
      );
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      assert.deepEqual(fake.commit(OWNER, REPO, head)?.parents, [mainSha], 'rebuilt on main, not stacked');
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.2') });
    } finally {
      await fixture.stop();
    }
  });

  it('after a merge, resets the branch onto the new main for the next version: 3 writes', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      const promoter = fixture.promoter();
      await promoter.promote(prRequest({ revision: '5.0.1' }));
      // As GitHub's merge button does by default: a merge commit, so the branch is not main's head.
      const merged = fake.merge(OWNER, REPO, 1, { mergeCommit: true });
      assert.notEqual(merged, fake.ref(OWNER, REPO, BRANCH));
      fake.resetRequests();
      const outcome = await promoter.promote(prRequest({ revision: '5.0.2' }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/2`);
      assert.deepEqual(writes(fake), [R.moveRef, R.putFile, R.openPull]);
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      assert.deepEqual(fake.commit(OWNER, REPO, head)?.parents, [merged]);
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.2') });
      assert.deepEqual(
        fake.pulls(OWNER, REPO).map((pull) => [pull.number, pull.state, pull.merged]),
        [
          [1, 'closed', true],
          [2, 'open', false],
        ],
      );
    } finally {
      await fixture.stop();
    }
  });

  it('writes several files as a tree with their content inline: 4 writes, one commit, no blob written alone', async () => {
    const fixture = await startFixture({ ...FLEET_FILES, [PROD_EU_FILE]: HELMRELEASE_PROD });
    const { fake, mainSha } = fixture;
    try {
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(writes(fake), [R.createTree, R.createCommit, R.createRef, R.openPull]);
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      assert.deepEqual(fake.commit(OWNER, REPO, head)?.parents, [mainSha]);
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.1'), [PROD_EU_FILE]: prodAt('5.0.1') });
    } finally {
      await fixture.stop();
    }
  });

  it('keeps an executable manifest executable: written through a tree, which says its mode', async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    const gh = new Octokit({ auth: fake.token, baseUrl: fake.url, log: quiet });
    const repo = { owner: OWNER, repo: REPO };
    try {
      const baseTree = fake.commit(OWNER, REPO, mainSha)?.tree ?? assert.fail('no tree');
      const { data: tree } = await gh.git.createTree({
        ...repo,
        base_tree: baseTree,
        tree: [{ path: PROD_FILE, mode: '100755', type: 'blob', content: HELMRELEASE_PROD }],
      });
      const { data: commit } = await gh.git.createCommit({
        ...repo,
        message: 'chmod',
        tree: tree.sha,
        parents: [mainSha],
      });
      await gh.git.updateRef({ ...repo, ref: 'heads/main', sha: commit.sha });
      fake.resetRequests();

      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(writes(fake), [R.createTree, R.createCommit, R.createRef, R.openPull]);
      const { data: listed } = await gh.git.getTree({ ...repo, tree_sha: BRANCH, recursive: 'true' });
      assert.equal(listed.tree.find((entry) => entry.path === PROD_FILE)?.mode, '100755');
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.1') });
    } finally {
      await fixture.stop();
    }
  });

  it('resumes a promotion stopped after the branch was put on main: the commit and the pull request only', async () => {
    const fixture = await startFixture();
    const { fake, mainSha } = fixture;
    const gh = new Octokit({ auth: fake.token, baseUrl: fake.url, log: quiet });
    try {
      await gh.git.createRef({ owner: OWNER, repo: REPO, ref: `refs/heads/${BRANCH}`, sha: mainSha });
      fake.resetRequests();
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(writes(fake), [R.putFile, R.openPull]);
      assertOnlyChanged(fake, BRANCH, { [PROD_FILE]: prodAt('5.0.1') });
    } finally {
      await fixture.stop();
    }
  });

  it('resumes a promotion stopped after the commit: the pull request only', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      fake.failNext(502, { route: R.openPull, times: 3 }); // the first try and both retries
      await assert.rejects(fixture.promoter().promote(prRequest({ revision: '5.0.1' })), (error: unknown) => {
        assert.ok(error instanceof PromotionError);
        assert.equal(error.retryable, true);
        return true;
      });
      const head = fake.ref(OWNER, REPO, BRANCH);
      fake.resetRequests();
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1', attempt: 2 }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      assert.deepEqual(writes(fake), [R.openPull]);
      assert.equal(fake.ref(OWNER, REPO, BRANCH), head, 'the branch did not move');
    } finally {
      await fixture.stop();
    }
  });
});

describe('GitHub pull request known open, then merged before it was updated', () => {
  const write = (version: string) => ({
    branch: BRANCH,
    base: 'main',
    title: `Promote foo/bar in prod to ${version}`,
    body: 'body',
  });

  it('is the result when it merged the branch as it is now', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      const [pull] = fake.pulls(OWNER, REPO);
      assert.ok(pull);
      const known = [{ number: pull.number, url: pull.htmlUrl, title: pull.title, body: pull.body, base: 'main' }];
      fake.merge(OWNER, REPO, pull.number, { mergeCommit: true });
      const client = createGitHubClient(fake.url, { kind: 'token', token: fake.token }, { writeIntervalMs: 0 });
      const access = { client, repo: { owner: OWNER, repo: REPO }, secret: SECRET };
      const url = await openOrUpdateGitHubPullRequest(access, write('5.0.1'), known);
      assert.equal(url, pull.htmlUrl);
      assert.equal(fake.pulls(OWNER, REPO).length, 1, 'no second pull request');
    } finally {
      await fixture.stop();
    }
  });

  it('opens a new one when the branch moved on after that merge', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      const [pull] = fake.pulls(OWNER, REPO);
      assert.ok(pull);
      const known = [{ number: pull.number, url: pull.htmlUrl, title: pull.title, body: pull.body, base: 'main' }];
      fake.merge(OWNER, REPO, pull.number, { mergeCommit: true });
      fake.commitFiles(OWNER, REPO, BRANCH, { [PROD_FILE]: prodAt('5.0.2') });
      const client = createGitHubClient(fake.url, { kind: 'token', token: fake.token }, { writeIntervalMs: 0 });
      const access = { client, repo: { owner: OWNER, repo: REPO }, secret: SECRET };
      const url = await openOrUpdateGitHubPullRequest(access, write('5.0.2'), known);
      assert.equal(url, `https://github.com/${OWNER}/${REPO}/pull/2`);
      assert.deepEqual(
        fake.pulls(OWNER, REPO).map((candidate) => [candidate.number, candidate.state]),
        [
          [1, 'closed'],
          [2, 'open'],
        ],
      );
    } finally {
      await fixture.stop();
    }
  });
});
