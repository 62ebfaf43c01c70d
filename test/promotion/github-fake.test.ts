// The fake GitHub itself: git's object ids, the git data API, refs and pull requests, driven by the real Octokit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Octokit } from '@octokit/rest';
import { FakeGitHub, gitBlobSha, gitCommitSha, gitTreeSha } from '../../lib/testing/fake-github.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('fake GitHub: git object ids', () => {
  it('computes blob, tree and commit ids exactly as git does', () => {
    assert.equal(gitBlobSha(''), 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
    assert.equal(gitBlobSha('version 1\n'), '83baae61804e65cc73a7201a7252750c76066a30');
    assert.equal(gitTreeSha([]), '4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    assert.equal(
      gitTreeSha([{ name: 'test.txt', mode: '100644', type: 'blob', sha: '83baae61804e65cc73a7201a7252750c76066a30' }]),
      'd8329fc1cc938780ffdd9f94e0d364e0ea74f579',
    );
    // `git write-tree` of a.txt, a-b, a/b/c.yaml and an executable run.sh: "a" sorts after "a.txt" as "a/".
    const inner = gitTreeSha([{ name: 'c.yaml', mode: '100644', type: 'blob', sha: gitBlobSha('x: 1\n') }]);
    assert.equal(inner, 'd0cc37d1d2a2ec91eabb245f749706aff152b30e');
    const a = gitTreeSha([{ name: 'b', mode: '040000', type: 'tree', sha: inner }]);
    assert.equal(a, '6feb1344072aa6d4a52f263bd5270e6f799a2dd3');
    const root = gitTreeSha([
      { name: 'run.sh', mode: '100755', type: 'blob', sha: gitBlobSha('#!/bin/sh\n') },
      { name: 'a', mode: '040000', type: 'tree', sha: a },
      { name: 'a.txt', mode: '100644', type: 'blob', sha: gitBlobSha('hello\n') },
      { name: 'a-b', mode: '100644', type: 'blob', sha: gitBlobSha('y\n') },
    ]);
    assert.equal(root, '3488dc0f01d7ec71ab37bacebc9f2a1c3e9ff850');
    const signature = { name: 'Promotion Server', email: 'promotion@example.com', date: '2023-11-14T22:13:20Z' };
    assert.equal(
      gitCommitSha({
        tree: 'd8329fc1cc938780ffdd9f94e0d364e0ea74f579',
        parents: ['83baae61804e65cc73a7201a7252750c76066a30'],
        author: signature,
        committer: signature,
        message: 'promoting version',
      }),
      '442b59e6b412d1c8d4f7bb6ff5169aff31b22769',
    );
  });
});

describe('fake GitHub: REST API through Octokit', () => {
  let fake: FakeGitHub;
  let gh: Octokit;
  const repo = { owner: 'acme', repo: 'fleet' };

  before(async () => {
    fake = await FakeGitHub.start();
    fake.createRepository('acme', 'fleet', {
      'a.txt': 'hello\n',
      'a-b': 'y\n',
      'a/b/c.yaml': 'x: 1\n',
      'deploy/app.yaml': 'image: app:1\n',
    });
    gh = new Octokit({ auth: fake.token, baseUrl: fake.url, log: quiet });
  });
  after(() => fake.stop());

  it('serves refs (URL-encoded), commits, recursive trees, blobs and contents', async () => {
    const { data: repository } = await gh.repos.get(repo);
    assert.equal(repository.default_branch, 'main');
    const { data: ref } = await gh.git.getRef({ ...repo, ref: 'heads/main' });
    assert.equal(ref.ref, 'refs/heads/main');
    assert.equal(fake.requests.at(-1)?.path, '/repos/acme/fleet/git/ref/heads/main');
    const { data: commit } = await gh.git.getCommit({ ...repo, commit_sha: ref.object.sha });
    assert.equal(commit.message, 'Initial commit');
    const { data: tree } = await gh.git.getTree({ ...repo, tree_sha: commit.tree.sha, recursive: 'true' });
    assert.equal(tree.truncated, false);
    assert.deepEqual(
      tree.tree.map((entry) => `${entry.type} ${entry.path}`),
      ['blob a-b', 'blob a.txt', 'tree a', 'tree a/b', 'blob a/b/c.yaml', 'tree deploy', 'blob deploy/app.yaml'],
    );
    const yaml = tree.tree.find((entry) => entry.path === 'a/b/c.yaml');
    assert.equal(yaml?.sha, gitBlobSha('x: 1\n'));
    const { data: blob } = await gh.git.getBlob({ ...repo, file_sha: yaml?.sha ?? '' });
    assert.equal(Buffer.from(blob.content, 'base64').toString(), 'x: 1\n');
    const { data: content } = await gh.repos.getContent({ ...repo, path: 'deploy/app.yaml', ref: 'main' });
    assert.ok(!Array.isArray(content) && content.type === 'file');
    assert.equal(Buffer.from(content.content, 'base64').toString(), 'image: app:1\n');
    assert.equal(fake.requests.at(-1)?.path, '/repos/acme/fleet/contents/deploy/app.yaml');
    await assert.rejects(gh.git.getRef({ ...repo, ref: 'heads/nope' }), { status: 404 });
  });

  it('builds trees on a base tree (content, sha, nested paths, deletion) and commits, refs and moves', async () => {
    const main = fake.ref('acme', 'fleet', 'main') ?? '';
    const baseTree = fake.commit('acme', 'fleet', main)?.tree ?? '';
    const { data: blob } = await gh.git.createBlob({ ...repo, content: 'image: app:2\n', encoding: 'utf-8' });
    assert.equal(blob.sha, gitBlobSha('image: app:2\n'));
    const { data: tree } = await gh.git.createTree({
      ...repo,
      base_tree: baseTree,
      tree: [
        { path: 'deploy/app.yaml', mode: '100644', type: 'blob', sha: blob.sha },
        { path: 'new/deep/file.yaml', mode: '100644', type: 'blob', content: 'k: v\n' },
        { path: 'a.txt', mode: '100644', type: 'blob', sha: null },
      ],
    });
    const { data: commit } = await gh.git.createCommit({ ...repo, message: 'change', tree: tree.sha, parents: [main] });
    await gh.git.createRef({ ...repo, ref: 'refs/heads/feature', sha: commit.sha });
    await assert.rejects(gh.git.createRef({ ...repo, ref: 'refs/heads/feature', sha: commit.sha }), {
      status: 422,
      message: /Reference already exists/,
    });
    assert.deepEqual(fake.files('acme', 'fleet', 'feature'), {
      'a-b': 'y\n',
      'a/b/c.yaml': 'x: 1\n',
      'deploy/app.yaml': 'image: app:2\n',
      'new/deep/file.yaml': 'k: v\n',
    });
    assert.equal(fake.blobShas('acme', 'fleet', 'feature')['a/b/c.yaml'], gitBlobSha('x: 1\n'));
    const stored = fake.commit('acme', 'fleet', commit.sha);
    assert.equal(
      gitCommitSha(stored ?? assert.fail('no commit')),
      commit.sha,
      'the commit id is the hash of its git object',
    );
    // Moving a branch backwards needs force.
    await assert.rejects(gh.git.updateRef({ ...repo, ref: 'heads/feature', sha: main }), {
      status: 422,
      message: /not a fast forward/,
    });
    await gh.git.updateRef({ ...repo, ref: 'heads/feature', sha: main, force: true });
    assert.equal(fake.ref('acme', 'fleet', 'feature'), main);
    await gh.git.deleteRef({ ...repo, ref: 'heads/feature' });
    assert.equal(fake.ref('acme', 'fleet', 'feature'), undefined);
  });

  it('opens one pull request per head, lists by head with pagination, and merges', async () => {
    for (let i = 1; i <= 5; i++) fake.commitFiles('acme', 'fleet', `topic-${i}`, { [`t${i}.yaml`]: `n: ${i}\n` });
    for (let i = 1; i <= 5; i++) {
      const { data } = await gh.pulls.create({ ...repo, title: `T${i}`, head: `topic-${i}`, base: 'main', body: 'b' });
      assert.equal(data.html_url, `https://github.com/acme/fleet/pull/${data.number}`);
      assert.equal(data.head.ref, `topic-${i}`);
      assert.equal(data.base.ref, 'main');
    }
    await assert.rejects(gh.pulls.create({ ...repo, title: 'again', head: 'topic-1', base: 'main' }), (error) => {
      assert.equal((error as { status: number }).status, 422);
      assert.match((error as Error).message, /A pull request already exists for acme:topic-1\./);
      return true;
    });
    fake.resetRequests();
    const all = await gh.paginate(gh.pulls.list, { ...repo, state: 'open', per_page: 2 });
    assert.equal(all.length, 5);
    assert.equal(fake.count('GET /repos/{owner}/{repo}/pulls'), 3, 'three pages, followed through Link');
    const { data: byHead } = await gh.pulls.list({ ...repo, state: 'open', head: 'acme:topic-3' });
    assert.deepEqual(
      byHead.map((pull) => pull.title),
      ['T3'],
    );
    const first = byHead[0] ?? assert.fail('no pull request');
    await gh.pulls.update({ ...repo, pull_number: first.number, title: 'T3 renamed' });
    assert.equal((await gh.pulls.get({ ...repo, pull_number: first.number })).data.title, 'T3 renamed');

    // topic-3 starts at main: a fast-forward. topic-4 then needs a merge commit.
    const main = fake.ref('acme', 'fleet', 'main');
    const merged = fake.merge('acme', 'fleet', first.number);
    assert.equal(merged, fake.ref('acme', 'fleet', 'topic-3'));
    assert.equal(fake.commit('acme', 'fleet', merged)?.parents[0], main);
    const fourth = fake.pulls('acme', 'fleet').find((pull) => pull.head === 'topic-4') ?? assert.fail('no #4');
    const mergeCommit = fake.merge('acme', 'fleet', fourth.number);
    assert.equal(fake.commit('acme', 'fleet', mergeCommit)?.parents.length, 2);
    assert.equal(fake.readFile('acme', 'fleet', 'main', 't3.yaml'), 'n: 3\n');
    assert.equal(fake.readFile('acme', 'fleet', 'main', 't4.yaml'), 'n: 4\n');
    assert.deepEqual(
      fake
        .pulls('acme', 'fleet')
        .filter((pull) => pull.merged)
        .map((pull) => pull.head),
      ['topic-3', 'topic-4'],
    );
  });

  it('rejects wrong credentials and injects faults', async () => {
    const stranger = new Octokit({ baseUrl: fake.url, auth: 'ghp_wrong', log: quiet });
    await assert.rejects(stranger.repos.get(repo), { status: 401, message: /Bad credentials/ });
    await assert.rejects(new Octokit({ baseUrl: fake.url, log: quiet }).repos.get(repo), { status: 401 });
    fake.failNext(502, { route: 'GET /repos/{owner}/{repo}' });
    await assert.rejects(gh.repos.get(repo), { status: 502 });
    fake.secondaryRateLimitNext({ retryAfterSeconds: 7 });
    await assert.rejects(gh.repos.get(repo), (error) => {
      const { status, response } = error as { status: number; response: { headers: Record<string, string> } };
      assert.equal(status, 403);
      assert.match((error as Error).message, /secondary rate limit/);
      assert.equal(response.headers['retry-after'], '7');
      return true;
    });
    fake.primaryRateLimitNext({ status: 429, resetInSeconds: 30 });
    await assert.rejects(gh.repos.get(repo), (error) => {
      const { status, response } = error as { status: number; response: { headers: Record<string, string> } };
      assert.equal(status, 429);
      assert.equal(response.headers['x-ratelimit-remaining'], '0');
      return true;
    });
    assert.equal((await gh.repos.get(repo)).status, 200, 'the faults are used up');
    const bearer = await fetch(`${fake.url}/repos/acme/fleet`, { headers: { authorization: `Bearer ${fake.token}` } });
    assert.equal(bearer.status, 200);
    fake.latencyMs = 40;
    const started = Date.now();
    await gh.repos.get(repo);
    assert.ok(Date.now() - started >= 35);
    fake.latencyMs = 0;
  });
});

describe('fake GitHub: the contents API write, pull requests left empty, merge commits', () => {
  let fake: FakeGitHub;
  let gh: Octokit;
  const repo = { owner: 'acme', repo: 'fleet' };
  const base64 = (text: string) => Buffer.from(text).toString('base64');

  before(async () => {
    fake = await FakeGitHub.start();
    fake.createRepository('acme', 'fleet', { 'deploy/app.yaml': 'image: app:1\n', 'README.md': '# fleet\n' });
    gh = new Octokit({ auth: fake.token, baseUrl: fake.url, log: quiet });
  });
  after(() => fake.stop());

  it('commits one file on a branch: its blob id in `sha` to replace it, none for a new file, as GitHub', async () => {
    const main = fake.ref('acme', 'fleet', 'main') ?? assert.fail('no main');
    await gh.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    const author = { name: 'Promotion Server', email: 'promotion@example.com' };
    const put = (path: string, content: string, sha?: string, branch = 'topic') =>
      gh.repos.createOrUpdateFileContents({
        ...repo,
        path,
        branch,
        message: 'promoting version',
        content: base64(content),
        ...(sha === undefined ? {} : { sha }),
        author,
        committer: author,
      });

    const updated = await put('deploy/app.yaml', 'image: app:2\n', gitBlobSha('image: app:1\n'));
    assert.equal(updated.status, 200);
    assert.equal(updated.data.content?.sha, gitBlobSha('image: app:2\n'));
    const head = fake.ref('acme', 'fleet', 'topic');
    assert.equal(updated.data.commit.sha, head);
    const commit = fake.commit('acme', 'fleet', head ?? '') ?? assert.fail('no commit');
    assert.deepEqual(commit.parents, [main]);
    assert.equal(commit.message, 'promoting version');
    assert.deepEqual([commit.author.name, commit.committer.name], ['Promotion Server', 'Promotion Server']);
    assert.equal(gitCommitSha(commit), head);
    assert.deepEqual(fake.files('acme', 'fleet', 'topic'), {
      'deploy/app.yaml': 'image: app:2\n',
      'README.md': '# fleet\n',
    });

    const created = await put('deploy/new.yaml', 'kind: List\n');
    assert.equal(created.status, 201);
    // The file is not the blob named any more (409), or no blob is named for an existing file (422).
    await assert.rejects(put('deploy/app.yaml', 'image: app:3\n', gitBlobSha('image: app:1\n')), {
      status: 409,
      message: /deploy\/app\.yaml does not match/,
    });
    await assert.rejects(put('deploy/app.yaml', 'image: app:3\n'), { status: 422, message: /"sha" wasn't supplied/ });
    await assert.rejects(put('deploy/app.yaml', 'x\n', undefined, 'missing'), {
      status: 404,
      message: /Branch missing not found/,
    });
    assert.equal(fake.readFile('acme', 'fleet', 'topic', 'deploy/app.yaml'), 'image: app:2\n', 'nothing written');
    assert.equal(fake.ref('acme', 'fleet', 'main'), main, 'main untouched');
  });

  it('closes an open pull request whose branch is deleted or moved to a commit the base has', async () => {
    const main = fake.ref('acme', 'fleet', 'main') ?? assert.fail('no main');
    fake.commitFiles('acme', 'fleet', 'reset-me', { 'a.yaml': 'a: 1\n' });
    fake.commitFiles('acme', 'fleet', 'move-me', { 'b.yaml': 'b: 1\n' });
    fake.commitFiles('acme', 'fleet', 'delete-me', { 'c.yaml': 'c: 1\n' });
    const open = async (head: string) =>
      (await gh.pulls.create({ ...repo, title: head, head, base: 'main' })).data.number;
    const [reset, moved, deleted] = [await open('reset-me'), await open('move-me'), await open('delete-me')];
    await gh.git.updateRef({ ...repo, ref: 'heads/reset-me', sha: main, force: true });
    const other = fake.commitFiles('acme', 'fleet', 'elsewhere', { 'b.yaml': 'b: 2\n' });
    await gh.git.updateRef({ ...repo, ref: 'heads/move-me', sha: other, force: true });
    await gh.git.deleteRef({ ...repo, ref: 'heads/delete-me' });
    const state = (number: number) => fake.pulls('acme', 'fleet').find((pull) => pull.number === number);
    assert.equal(state(reset)?.state, 'closed', 'nothing left to merge');
    assert.equal(state(moved)?.state, 'open', 'still has a commit main lacks');
    assert.equal(state(deleted)?.state, 'closed', 'its branch is gone');
    assert.equal(state(deleted)?.merged, false);
    assert.notEqual(state(deleted)?.headSha, '', 'it keeps showing the last head');
  });

  it("merges with a merge commit when asked, as GitHub's default merge does even when it could fast-forward", async () => {
    const main = fake.ref('acme', 'fleet', 'main') ?? assert.fail('no main');
    fake.commitFiles('acme', 'fleet', 'feature', { 'd.yaml': 'd: 1\n' });
    const head = fake.ref('acme', 'fleet', 'feature');
    const { data } = await gh.pulls.create({ ...repo, title: 'feature', head: 'feature', base: 'main' });
    const merged = fake.merge('acme', 'fleet', data.number, { mergeCommit: true });
    assert.notEqual(merged, head, 'not a fast-forward');
    assert.deepEqual(fake.commit('acme', 'fleet', merged)?.parents, [main, head]);
    assert.equal(fake.readFile('acme', 'fleet', 'main', 'd.yaml'), 'd: 1\n');
  });
});

describe('fake GitHub: pull request pages (webPages)', () => {
  it("links each pull request to its own page, marked as simulated; other paths stay the API's", async (t) => {
    const github = await FakeGitHub.start({ webPages: true });
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', { 'a.yaml': 'x: 1\n' });
    const octokit = new Octokit({ auth: github.token, baseUrl: github.url, log: quiet });
    await octokit.git.createRef({
      owner: 'acme',
      repo: 'fleet',
      ref: 'refs/heads/promote',
      sha: github.refs('acme', 'fleet')['refs/heads/main'] ?? '',
    });
    github.commitFiles('acme', 'fleet', 'promote', { 'a.yaml': 'x: 2\n' }, 'promote');
    const { data: pull } = await octokit.pulls.create({
      owner: 'acme',
      repo: 'fleet',
      head: 'promote',
      base: 'main',
      title: 'Promote <podinfo> to 6.9.1',
      body: 'evidence & more',
    });
    const origin = new URL(github.url).origin;
    assert.equal(pull.html_url, `${origin}/acme/fleet/pull/${pull.number}`);

    const page = await fetch(pull.html_url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, /<strong>Simulated GitHub<\/strong>: this pull request exists only in this simulation/);
    assert.match(html, /<h1>acme\/fleet #1: Promote &lt;podinfo&gt; to 6\.9\.1<\/h1>/);
    assert.match(html, /<pre>evidence &amp; more<\/pre>/);
    assert.equal((await fetch(`${origin}/acme/fleet/pull/99`)).status, 404);
    assert.equal((await fetch(`${origin}/acme/other/pull/1`)).status, 404);

    const plain = await FakeGitHub.start();
    t.after(() => plain.stop());
    plain.createRepository('acme', 'fleet', { 'a.yaml': 'x: 1\n' });
    // Without webPages there is no page: the path is answered as any path outside the API.
    assert.notEqual((await fetch(`${new URL(plain.url).origin}/acme/fleet/pull/1`)).status, 200);
  });
});
