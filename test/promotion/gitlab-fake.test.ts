// The fake GitLab itself, driven by the real @gitbeaker/rest client with its own requester: projects by encoded full
// path, tokens and scopes, branches, the repository tree with both kinds of pagination, blobs and files, the commits
// API with actions, merge requests with GitLab's one-open-per-source-branch rule, errors with GitLab's bodies, and
// the fault injection and request log the other tests rely on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';
import { gitBlobSha } from '../../lib/testing/git-repository.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';

const PROJECT = 'acme/platform/fleet';
const FILES: Record<string, string> = {
  'README.md': '# fleet\n',
  'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
  'apps/prod/values.yml': 'image:\r\n  tag: 1.2.3\r\n',
  'apps/dev/podinfo.yaml': 'version: 6.9.0\n',
  'docs/café.md': 'Überblick ☕\n',
};

/** The status and GitLab's body of a failed gitbeaker call. */
async function failure(call: Promise<unknown>): Promise<{ status: number; description: string; headers: Headers }> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof GitbeakerRequestError, `a GitbeakerRequestError, not ${String(error)}`);
    const cause = error.cause;
    assert.ok(cause, 'the error carries the response');
    return { status: cause.response.status, description: cause.description, headers: cause.response.headers };
  }
  assert.fail('the call succeeded');
}

describe('fake GitLab through gitbeaker: projects, tokens and errors', () => {
  let fake: FakeGitLab;
  let host: string;

  before(async () => {
    fake = await FakeGitLab.start();
    fake.createRepository(PROJECT, FILES);
    host = fake.url.replace(/\/api\/v4$/, '');
  });
  after(() => fake.stop());

  it('finds a project by its URL-encoded full path (subgroups included) or by its numeric id', async () => {
    const api = new Gitlab({ host, token: fake.token });
    const byPath = await api.Projects.show(PROJECT);
    assert.equal(byPath.path_with_namespace, PROJECT);
    assert.equal(byPath.web_url, 'https://gitlab.example.com/acme/platform/fleet');
    assert.equal(fake.requests.at(-1)?.path, '/projects/acme%2Fplatform%2Ffleet');
    assert.equal(fake.requests.at(-1)?.route, 'GET /projects/:id');
    const byId = await api.Projects.show(fake.projectId(PROJECT));
    assert.equal(byId.path_with_namespace, PROJECT);
    const unknown = await failure(api.Projects.show('acme/platform/nope'));
    assert.deepEqual([unknown.status, unknown.description], [404, '404 Project Not Found']);
  });

  it('takes a token as PRIVATE-TOKEN or Bearer, and answers 401 for any other', async () => {
    await new Gitlab({ host, token: fake.token }).Branches.show(PROJECT, 'main');
    assert.equal(fake.requests.at(-1)?.auth, 'private-token');
    await new Gitlab({ host, oauthToken: fake.token }).Branches.show(PROJECT, 'main');
    assert.equal(fake.requests.at(-1)?.auth, 'bearer');
    const rejected = await failure(new Gitlab({ host, token: 'glpat-wrong' }).Branches.show(PROJECT, 'main'));
    assert.deepEqual([rejected.status, rejected.description], [401, '401 Unauthorized']);
    fake.addToken('glpat-temporary');
    await new Gitlab({ host, token: 'glpat-temporary' }).Branches.show(PROJECT, 'main');
    fake.revokeToken('glpat-temporary');
    assert.equal((await failure(new Gitlab({ host, token: 'glpat-temporary' }).Projects.show(PROJECT))).status, 401);
  });

  it('refuses writes to a read_api token (insufficient_scope) and to a reporter, and hides unlisted projects', async () => {
    fake.addToken('glpat-read', { scopes: ['read_api'] });
    const reader = new Gitlab({ host, token: 'glpat-read' });
    assert.equal((await reader.Branches.show(PROJECT, 'main')).name, 'main');
    const scope = await failure(reader.Branches.create(PROJECT, 'x', 'main'));
    assert.equal(scope.status, 403);
    assert.match(scope.description, /insufficient_scope/);

    fake.addToken('glpat-reporter', { role: 'reporter' });
    const reporter = await failure(new Gitlab({ host, token: 'glpat-reporter' }).Branches.create(PROJECT, 'x', 'main'));
    assert.deepEqual([reporter.status, reporter.description], [403, '403 Forbidden']);

    fake.addToken('glpat-elsewhere', { projects: ['acme/other'] });
    const hidden = await failure(new Gitlab({ host, token: 'glpat-elsewhere' }).Projects.show(PROJECT));
    assert.deepEqual([hidden.status, hidden.description], [404, '404 Project Not Found']);
    assert.deepEqual(fake.branches(PROJECT), { main: fake.ref(PROJECT, 'main') }, 'no branch was created');
  });

  it('shows, creates and deletes branches (names with slashes too), with GitLab 404s and 400s', async () => {
    const api = new Gitlab({ host, token: fake.token });
    const main = await api.Branches.show(PROJECT, 'main');
    assert.equal(main.commit.id, fake.ref(PROJECT, 'main'));
    assert.deepEqual(main.commit.parent_ids, []);
    assert.equal(main.default, true);
    const absent = await failure(api.Branches.show(PROJECT, 'nope'));
    assert.deepEqual([absent.status, absent.description], [404, '404 Branch Not Found']);

    const created = await api.Branches.create(PROJECT, 'feature/x', 'main');
    assert.equal(created.name, 'feature/x');
    assert.equal(fake.requests.at(-1)?.status, 201);
    assert.equal((await api.Branches.show(PROJECT, 'feature/x')).commit.id, main.commit.id);
    assert.equal(fake.requests.at(-1)?.path, '/projects/acme%2Fplatform%2Ffleet/repository/branches/feature%2Fx');
    const again = await failure(api.Branches.create(PROJECT, 'feature/x', 'main'));
    assert.deepEqual([again.status, again.description], [400, 'Branch already exists']);
    await api.Branches.remove(PROJECT, 'feature/x');
    assert.equal(fake.ref(PROJECT, 'feature/x'), undefined);
  });

  it('answers parameter errors with "error" and unknown routes with 404', async () => {
    const response = await fetch(`${fake.url}/projects/${encodeURIComponent(PROJECT)}/repository/commits`, {
      method: 'POST',
      headers: { 'private-token': fake.token, 'content-type': 'application/json' },
      body: JSON.stringify({ branch: 'main' }),
    });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), { error: 'commit_message is missing, actions is missing' });
    const unknown = await fetch(`${fake.url}/nothing/here`, { headers: { 'private-token': fake.token } });
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: '404 Not Found' });
  });
});

describe('fake GitLab through gitbeaker: reading a repository', () => {
  let fake: FakeGitLab;
  let api: Gitlab<false>;
  let main: string;

  before(async () => {
    fake = await FakeGitLab.start();
    main = fake.createRepository(PROJECT, FILES);
    api = new Gitlab({ host: fake.url.replace(/\/api\/v4$/, ''), token: fake.token });
  });
  after(() => fake.stop());

  /** Depth first, each tree's entries in git's order. */
  const expectedTree = [
    'blob README.md',
    'tree apps',
    'tree apps/dev',
    'blob apps/dev/podinfo.yaml',
    'tree apps/prod',
    'blob apps/prod/podinfo.yaml',
    'blob apps/prod/values.yml',
    'tree docs',
    'blob docs/café.md',
  ];

  it('lists the recursive tree over offset pages, which gitbeaker follows by the Link header', async () => {
    fake.resetRequests();
    const entries = await api.Repositories.allRepositoryTrees(PROJECT, { ref: main, recursive: true, perPage: 2 });
    assert.deepEqual(
      entries.map((entry) => `${entry.type} ${entry.path}`),
      expectedTree,
    );
    assert.equal(
      entries.find((entry) => entry.path === 'apps/prod/values.yml')?.id,
      gitBlobSha(FILES['apps/prod/values.yml'] ?? ''),
    );
    assert.equal(entries.find((entry) => entry.path === 'apps')?.mode, '040000');
    assert.equal(fake.count('GET /projects/:id/repository/tree'), 5, 'nine entries, two per page');
    const first = await fetch(
      `${fake.url}/projects/${encodeURIComponent(PROJECT)}/repository/tree?ref=main&recursive=true&per_page=4`,
      { headers: { 'private-token': fake.token } },
    );
    assert.equal(first.headers.get('x-page'), '1');
    assert.equal(first.headers.get('x-next-page'), '2');
    assert.equal(first.headers.get('x-total'), '9');
    assert.equal(first.headers.get('x-total-pages'), '3');
    assert.match(first.headers.get('link') ?? '', /[?&]page=2>; rel="next"/);
    assert.match(first.headers.get('link') ?? '', /[?&]page=3>; rel="last"/);
  });

  it('lists it with keyset pagination: a page_token in the Link, no totals', async () => {
    fake.resetRequests();
    const entries = await api.Repositories.allRepositoryTrees(PROJECT, {
      ref: main,
      recursive: true,
      pagination: 'keyset',
      perPage: 4,
    });
    assert.deepEqual(
      entries.map((entry) => `${entry.type} ${entry.path}`),
      expectedTree,
    );
    assert.equal(fake.count('GET /projects/:id/repository/tree'), 3);
    assert.ok(fake.requests[1]?.query.page_token, 'the second page asks by token');
    const response = await fetch(
      `${fake.url}/projects/${encodeURIComponent(PROJECT)}/repository/tree?ref=main&recursive=true&pagination=keyset&per_page=4`,
      { headers: { 'private-token': fake.token } },
    );
    assert.equal(response.headers.get('x-total'), null);
    assert.match(response.headers.get('link') ?? '', /page_token=[^&>]+.*rel="next"/);
    const bad = await failure(api.Repositories.allRepositoryTrees(PROJECT, { ref: 'nope', recursive: true }));
    assert.deepEqual([bad.status, bad.description], [404, '404 Tree Not Found']);
  });

  it('serves raw blobs by id and files by path, byte for byte, with their blob and commit ids', async () => {
    const crlf = FILES['apps/prod/values.yml'] ?? '';
    assert.equal(await api.Repositories.showBlobRaw(PROJECT, gitBlobSha(crlf)), crlf);
    assert.equal(
      await api.Repositories.showBlobRaw(PROJECT, gitBlobSha(FILES['docs/café.md'] ?? '')),
      'Überblick ☕\n',
    );
    const file = await api.RepositoryFiles.show(PROJECT, 'apps/prod/values.yml', 'main');
    assert.equal(
      fake.requests.at(-1)?.path,
      '/projects/acme%2Fplatform%2Ffleet/repository/files/apps%2Fprod%2Fvalues.yml',
    );
    assert.equal(file.blob_id, gitBlobSha(crlf));
    assert.equal(file.commit_id, main);
    assert.equal(file.last_commit_id, main);
    assert.equal(Buffer.from(file.content, 'base64').toString('utf8'), crlf);
    assert.equal(await api.RepositoryFiles.showRaw(PROJECT, 'apps/prod/values.yml', 'main'), crlf);
    const absent = await failure(api.RepositoryFiles.show(PROJECT, 'apps/nope.yaml', 'main'));
    assert.deepEqual([absent.status, absent.description], [404, '404 File Not Found']);
    const noRef = await failure(api.RepositoryFiles.show(PROJECT, 'README.md', 'nope'));
    assert.deepEqual([noRef.status, noRef.description], [404, '404 Commit Not Found']);
    const noBlob = await failure(api.Repositories.showBlobRaw(PROJECT, '0'.repeat(40)));
    assert.equal(noBlob.status, 404);
  });
});

describe('fake GitLab through gitbeaker: the commits API', () => {
  let fake: FakeGitLab;
  let api: Gitlab<false>;
  let base: string;

  before(async () => {
    fake = await FakeGitLab.start();
    base = fake.createRepository(PROJECT, FILES);
    api = new Gitlab({ host: fake.url.replace(/\/api\/v4$/, ''), token: fake.token });
  });
  after(() => fake.stop());

  it('makes one commit of several actions on a new branch started at a commit, authored as asked', async () => {
    const commit = await api.Commits.create(
      PROJECT,
      'promotion',
      'promoting version',
      [
        { action: 'update', filePath: 'apps/prod/podinfo.yaml', content: 'version: 7\n' },
        {
          action: 'update',
          filePath: 'apps/prod/values.yml',
          content: Buffer.from('tag: 2\r\n').toString('base64'),
          encoding: 'base64',
        },
        { action: 'create', filePath: 'apps/new.yaml', content: 'new: true\n' },
        { action: 'delete', filePath: 'apps/dev/podinfo.yaml' },
        { action: 'move', filePath: 'docs/readme.md', previousPath: 'README.md' },
        { action: 'chmod', filePath: 'docs/café.md', execute_filemode: true },
      ],
      { startSha: base, authorName: 'Promotion Server', authorEmail: 'promotion@example.com' },
    );
    assert.equal(fake.requests.at(-1)?.status, 201);
    assert.deepEqual(commit.parent_ids, [base]);
    assert.equal(commit.author_name, 'Promotion Server');
    assert.equal(commit.author_email, 'promotion@example.com');
    assert.equal(commit.committer_name, 'fake-user', 'the token user commits');
    assert.equal(commit.message, 'promoting version');
    assert.equal(fake.ref(PROJECT, 'promotion'), commit.id);
    assert.deepEqual(fake.files(PROJECT, 'promotion'), {
      'apps/new.yaml': 'new: true\n',
      'apps/prod/podinfo.yaml': 'version: 7\n',
      'apps/prod/values.yml': 'tag: 2\r\n',
      'docs/café.md': 'Überblick ☕\n',
      'docs/readme.md': '# fleet\n',
    });
    const diff = await api.Commits.showDiff(PROJECT, commit.id, { perPage: 2 });
    assert.deepEqual(
      diff.map((entry) => [entry.new_path, entry.new_file, entry.deleted_file, entry.a_mode, entry.b_mode]),
      [
        ['README.md', false, true, '100644', '0'],
        ['apps/dev/podinfo.yaml', false, true, '100644', '0'],
        ['apps/new.yaml', true, false, '0', '100644'],
        ['apps/prod/podinfo.yaml', false, false, '100644', '100644'],
        ['apps/prod/values.yml', false, false, '100644', '100644'],
        ['docs/café.md', false, false, '100644', '100755'],
        ['docs/readme.md', true, false, '0', '100644'],
      ],
    );
    assert.equal(fake.count('GET /projects/:id/repository/commits/:sha/diff'), 4, 'seven entries, two per page');
    const shown = await api.Commits.show(PROJECT, commit.id);
    assert.equal(shown.stats?.total, 9, 'lines added and removed');
  });

  it('refuses to start an existing branch anew without force, and resets it onto the start with force', async () => {
    const before = fake.ref(PROJECT, 'promotion');
    const actions = [{ action: 'update' as const, filePath: 'apps/prod/podinfo.yaml', content: 'version: 8\n' }];
    const refused = await failure(api.Commits.create(PROJECT, 'promotion', 'again', actions, { startSha: base }));
    assert.deepEqual(
      [refused.status, refused.description],
      [400, "A branch called 'promotion' already exists. Switch to that branch in order to make changes"],
    );
    assert.equal(fake.ref(PROJECT, 'promotion'), before);
    const forced = await api.Commits.create(PROJECT, 'promotion', 'again', actions, { startSha: base, force: true });
    assert.deepEqual(forced.parent_ids, [base]);
    assert.equal(fake.commitsAhead(PROJECT, 'promotion'), 1);
    assert.equal(fake.files(PROJECT, 'promotion')['apps/prod/podinfo.yaml'], 'version: 8\n');
    assert.equal(fake.files(PROJECT, 'promotion')['apps/new.yaml'], undefined, 'the earlier commit is gone');
  });

  it('commits onto a branch head, and answers GitLab 400s for bad actions and starts', async () => {
    const head = fake.ref(PROJECT, 'promotion') ?? assert.fail('no branch');
    const onTop = await api.Commits.create(PROJECT, 'promotion', 'on top', [
      { action: 'create', filePath: 'extra.txt', content: 'x' },
    ]);
    assert.deepEqual(onTop.parent_ids, [head]);
    const cases: [Promise<unknown>, string][] = [
      [
        api.Commits.create(PROJECT, 'promotion', 'm', [{ action: 'update', filePath: 'nope.yaml', content: '' }]),
        "A file with this name doesn't exist",
      ],
      [
        api.Commits.create(PROJECT, 'promotion', 'm', [{ action: 'create', filePath: 'extra.txt', content: '' }]),
        'A file with this name already exists',
      ],
      [
        api.Commits.create(PROJECT, 'elsewhere', 'm', [{ action: 'create', filePath: 'a', content: '' }]),
        'You can only create or edit files when you are on a branch',
      ],
      [
        api.Commits.create(PROJECT, 'x', 'm', [{ action: 'create', filePath: 'a', content: '' }], {
          startSha: 'f'.repeat(40),
        }),
        `Cannot find start_sha '${'f'.repeat(40)}'`,
      ],
      [
        api.Commits.create(PROJECT, 'x', 'm', [{ action: 'create', filePath: 'a', content: '' }], {
          startSha: base,
          startBranch: 'main',
        }),
        "You can't pass both start_branch and start_sha",
      ],
    ];
    for (const [call, message] of cases) {
      const answer = await failure(call);
      assert.deepEqual([answer.status, answer.description], [400, message]);
    }
    assert.equal(fake.ref(PROJECT, 'promotion'), onTop.id, 'nothing moved');
    assert.equal(fake.ref(PROJECT, 'x'), undefined);
  });
});

describe('fake GitLab through gitbeaker: merge requests', () => {
  let fake: FakeGitLab;
  let api: Gitlab<false>;

  before(async () => {
    fake = await FakeGitLab.start();
    fake.createRepository(PROJECT, FILES);
    fake.commitFiles(PROJECT, 'promotion', { 'apps/prod/podinfo.yaml': 'version: 7\n' });
    fake.commitFiles(PROJECT, 'other', { 'other.txt': 'x\n' });
    api = new Gitlab({ host: fake.url.replace(/\/api\/v4$/, ''), token: fake.token });
  });
  after(() => fake.stop());

  it('opens a merge request with an iid and a web URL under the project path', async () => {
    const body = '<details>\n<summary>metadata</summary>\n\nfoo/bar/prod\n</details>';
    const mr = await api.MergeRequests.create(PROJECT, 'promotion', 'main', 'Promote', { description: body });
    assert.equal(mr.iid, 1);
    assert.equal(mr.state, 'opened');
    assert.equal(mr.web_url, 'https://gitlab.example.com/acme/platform/fleet/-/merge_requests/1');
    assert.equal(mr.description, body);
    assert.equal(mr.sha, fake.ref(PROJECT, 'promotion'));
    assert.deepEqual(fake.mergeRequests(PROJECT)[0]?.description, body);
  });

  it('answers 409 for a second open merge request from the same source branch, whatever its target', async () => {
    for (const target of ['main', 'other']) {
      const conflict = await failure(api.MergeRequests.create(PROJECT, 'promotion', target, 'Again'));
      assert.equal(conflict.status, 409);
      assert.equal(conflict.description, '["Another open merge request already exists for this source branch: !1"]');
    }
    const same = await failure(api.MergeRequests.create(PROJECT, 'main', 'main', 'Same'));
    assert.equal(same.status, 422);
    const absent = await failure(api.MergeRequests.create(PROJECT, 'nope', 'main', 'Absent'));
    assert.deepEqual([absent.status, absent.description], [422, '["Source branch \\"nope\\" does not exist"]']);
    assert.equal(fake.mergeRequests(PROJECT).length, 1);
  });

  it('lists by state and source branch, newest first, and edits a title', async () => {
    await api.MergeRequests.create(PROJECT, 'other', 'main', 'Other');
    const fromPromotion = await api.MergeRequests.all({ projectId: PROJECT, sourceBranch: 'promotion' });
    assert.deepEqual(
      fromPromotion.map((mr) => mr.iid),
      [1],
    );
    const open = await api.MergeRequests.all({
      projectId: PROJECT,
      state: 'opened',
      orderBy: 'created_at',
      sort: 'desc',
    });
    assert.deepEqual(
      open.map((mr) => mr.iid),
      [2, 1],
    );
    const edited = await api.MergeRequests.edit(PROJECT, 1, { title: 'Promote again' });
    assert.equal(edited.title, 'Promote again');
    assert.equal(fake.mergeRequests(PROJECT)[0]?.title, 'Promote again');
  });

  it('merges with a merge commit, after which the source branch may open a new merge request', async () => {
    const target = fake.ref(PROJECT, 'main');
    const merged = await api.MergeRequests.merge(PROJECT, 1);
    assert.equal(merged.state, 'merged');
    const commit = fake.commit(PROJECT, fake.ref(PROJECT, 'main') ?? '');
    assert.deepEqual(commit?.parents, [target, fake.ref(PROJECT, 'promotion')]);
    assert.equal(fake.files(PROJECT, 'main')['apps/prod/podinfo.yaml'], 'version: 7\n');
    const twice = await failure(api.MergeRequests.merge(PROJECT, 1));
    assert.equal(twice.status, 405);
    fake.commitFiles(PROJECT, 'promotion', { 'apps/prod/podinfo.yaml': 'version: 8\n' });
    const next = await api.MergeRequests.create(PROJECT, 'promotion', 'main', 'Promote 8');
    assert.equal(next.iid, 3);
    const all = await api.MergeRequests.all({ projectId: PROJECT, sourceBranch: 'promotion' });
    assert.deepEqual(
      all.map((mr) => [mr.iid, mr.state]),
      [
        [3, 'opened'],
        [1, 'merged'],
      ],
    );
    fake.closeMergeRequest(PROJECT, 3);
    assert.equal(fake.mergeRequests(PROJECT)[2]?.state, 'closed');
  });
});

describe('fake GitLab: faults and the request log', () => {
  let fake: FakeGitLab;
  let branchUrl: string;
  let headers: Record<string, string>;

  before(async () => {
    fake = await FakeGitLab.start();
    fake.createRepository(PROJECT, FILES);
    branchUrl = `${fake.url}/projects/${encodeURIComponent(PROJECT)}/repository/branches/main`;
    headers = { 'private-token': fake.token };
  });
  after(() => fake.stop());

  it('answers injected statuses to the matching requests only, as many times as asked', async () => {
    fake.resetRequests();
    fake.failNext(503, { times: 2, route: 'GET /projects/:id/repository/branches/:branch' });
    const project = await fetch(`${fake.url}/projects/${encodeURIComponent(PROJECT)}`, { headers });
    assert.equal(project.status, 200, 'another route is not affected');
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(branchUrl, { headers })).status);
    assert.deepEqual(statuses, [503, 503, 200]);
    assert.deepEqual(fake.countsByRoute(), {
      'GET /projects/:id': 1,
      'GET /projects/:id/repository/branches/:branch': 3,
    });
  });

  it('rate limits as Rack::Attack does: 429 "Retry later" with Retry-After and RateLimit-* headers', async () => {
    fake.rateLimitNext({ resetInSeconds: 30 });
    const limited = await fetch(branchUrl, { headers });
    assert.equal(limited.status, 429);
    assert.equal(await limited.text(), 'Retry later\n');
    assert.equal(limited.headers.get('retry-after'), '30');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    assert.ok(Math.abs(reset - (Date.now() / 1000 + 30)) <= 2, `reset at ${reset}`);
    assert.equal((await fetch(branchUrl, { headers })).status, 200);
  });

  it('drops a connection, or holds a request unanswered, when asked', async () => {
    fake.closeNext();
    await assert.rejects(fetch(branchUrl, { headers }));
    fake.hangNext();
    await assert.rejects(fetch(branchUrl, { headers, signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' });
    assert.equal(fake.requests.at(-1)?.status, undefined, 'the hung request has no answer');
    assert.equal((await fetch(branchUrl, { headers })).status, 200);
    fake.resetRequests();
    assert.equal(fake.count(), 0);
  });
});
