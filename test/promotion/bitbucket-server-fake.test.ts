// The fake Bitbucket Server itself, driven with plain fetch as any REST client would: authentication, git's ids in
// `contentId`, paging, the changes and commits between two commits, the file edit, branch-utils, and the pull request
// rules (one open per source and target, optimistic locking on `version`, declined with a deleted source branch,
// merged once reachable from the target), faults and the request log.
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access,
   @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument
   -- these tests read Bitbucket's JSON field by field, as a REST client does; the adapter's zod schemas are tested
   in bitbucket-server-host.test.ts */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gitBlobSha } from '../../lib/testing/git-repository.js';
import { FakeBitbucketServer } from '../../lib/testing/fake-bitbucket-server.js';

const REPO = '/rest/api/1.0/projects/ACME/repos/fleet';
const BRANCHES = '/rest/branch-utils/1.0/projects/ACME/repos/fleet/branches';
const PULLS_ROUTE = 'POST /rest/api/1.0/projects/{projectKey}/repos/{repositorySlug}/pull-requests';

interface Answer {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

function client(fake: FakeBitbucketServer, authorization = `Bearer ${fake.token}`) {
  return async (
    method: string,
    path: string,
    options: { json?: unknown; form?: FormData; query?: Record<string, string | number> } = {},
  ): Promise<Answer> => {
    const query = new URLSearchParams(
      Object.entries(options.query ?? {}).map(([key, value]): [string, string] => [key, String(value)]),
    );
    const headers: Record<string, string> = { authorization };
    let body: string | FormData | undefined = options.form;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(`${fake.url}${path}${query.size > 0 ? `?${query.toString()}` : ''}`, {
      method,
      headers,
      body,
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, json, text };
  };
}

function editForm(fields: Record<string, string>, content: string | Buffer): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  form.set('content', new Blob([typeof content === 'string' ? Buffer.from(content) : content]), 'file');
  return form;
}

describe('fake Bitbucket Server: authentication and errors', () => {
  let fake: FakeBitbucketServer;
  before(async () => {
    fake = await FakeBitbucketServer.start();
    fake.createRepository('ACME', 'fleet', { 'a.yaml': 'a: 1\n' });
  });
  after(() => fake.stop());

  it('accepts an HTTP access token (Bearer) and a username and password (Basic)', async () => {
    assert.equal((await client(fake)('GET', REPO)).status, 200);
    const basic = `Basic ${Buffer.from(`promoter:${fake.password}`).toString('base64')}`;
    const answer = await client(fake, basic)('GET', REPO);
    assert.equal(answer.status, 200);
    assert.equal(answer.json.slug, 'fleet');
    assert.equal(answer.json.project.key, 'ACME');
    assert.deepEqual(
      fake.requests.map((request) => request.auth),
      ['token', 'basic'],
    );
  });

  it("answers wrong credentials with 401 in Bitbucket's error form", async () => {
    for (const authorization of ['Bearer nope', `Basic ${Buffer.from('promoter:wrong').toString('base64')}`, '']) {
      const answer = await client(fake, authorization)('GET', REPO);
      assert.equal(answer.status, 401);
      assert.equal(answer.json.errors.length, 1);
      assert.equal(answer.json.errors[0].context, null);
      assert.match(answer.json.errors[0].message, /Authentication/);
    }
  });

  it('refuses writes to a read-only token with 401 AuthorisationException, and knows no other repository', async () => {
    fake.addToken('repo-read-token', { permission: 'REPO_READ' });
    const read = client(fake, 'Bearer repo-read-token');
    assert.equal((await read('GET', `${REPO}/branches`)).status, 200);
    const refused = await read('POST', BRANCHES, { json: { name: 'x', startPoint: 'main' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.json.errors[0].exceptionName, 'com.atlassian.bitbucket.AuthorisationException');
    const missing = await client(fake)('GET', '/rest/api/1.0/projects/ACME/repos/nope/branches');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.errors[0].exceptionName, 'com.atlassian.bitbucket.repository.NoSuchRepositoryException');
  });
});

describe('fake Bitbucket Server: content', () => {
  let fake: FakeBitbucketServer;
  let main: string;
  const files = {
    'README.md': '# fleet\n',
    'apps/prod/podinfo.yaml': 'version: 1.0.0\r\nname: café\r\n',
    'apps/prod/values.yml': 'tag: 1\n',
    'apps/dev/podinfo.yaml': 'version: 0.9.0\n',
    'clusters/prod/flux.yaml': 'kind: Kustomization\n',
  };
  before(async () => {
    fake = await FakeBitbucketServer.start({ maxPageLimit: 2 });
    main = fake.createRepository('ACME', 'fleet', files);
  });
  after(() => fake.stop());

  it('pages every listing with size, limit, start, isLastPage and nextPageStart, capped by the hard limit', async () => {
    const first = await client(fake)('GET', `${REPO}/files`, { query: { at: main, limit: 1000 } });
    assert.deepEqual(
      { ...first.json, values: undefined },
      { size: 2, limit: 2, isLastPage: false, start: 0, nextPageStart: 2, values: undefined },
    );
    const paths: string[] = [];
    for (let start: number | undefined = 0; start !== undefined;) {
      const page = await client(fake)('GET', `${REPO}/files`, { query: { at: main, start, limit: 2 } });
      paths.push(...(page.json.values as string[]));
      start = page.json.isLastPage ? undefined : (page.json.nextPageStart as number);
    }
    assert.deepEqual(paths, Object.keys(files).sort());
  });

  it("lists a directory's children with git's blob ids as contentId, directories first", async () => {
    const root = await client(fake)('GET', `${REPO}/browse`, { query: { at: main } });
    assert.equal(root.status, 200);
    assert.equal(root.json.revision, main);
    assert.deepEqual(
      root.json.children.values.map((child: { path: { toString: string }; type: string }) => [
        child.path.toString,
        child.type,
      ]),
      [
        ['apps', 'DIRECTORY'],
        ['clusters', 'DIRECTORY'],
      ],
    );
    assert.equal(root.json.children.isLastPage, false);
    const prod = await client(fake)('GET', `${REPO}/browse/apps/prod`, { query: { at: main } });
    const [podinfo, values] = prod.json.children.values as { path: { components: string[] }; contentId: string }[];
    assert.deepEqual(podinfo?.path.components, ['podinfo.yaml']);
    assert.equal(podinfo?.contentId, gitBlobSha(files['apps/prod/podinfo.yaml']));
    assert.equal(values?.contentId, gitBlobSha(files['apps/prod/values.yml']));
    const file = await client(fake)('GET', `${REPO}/browse/apps/dev/podinfo.yaml`, { query: { at: 'main' } });
    assert.deepEqual(file.json.lines, [{ text: 'version: 0.9.0' }]);
    const missing = await client(fake)('GET', `${REPO}/browse/apps/nope`, { query: { at: main } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.errors[0].exceptionName, 'com.atlassian.bitbucket.content.NoSuchPathException');
  });

  it('serves raw files byte for byte', async () => {
    const raw = await fetch(`${fake.url}${REPO}/raw/apps/prod/podinfo.yaml?at=${main}`, {
      headers: { authorization: `Bearer ${fake.token}` },
    });
    assert.equal(raw.status, 200);
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), Buffer.from(files['apps/prod/podinfo.yaml']));
  });

  it('diffs two commits (add, modify, delete, move) and lists the commits between them', async () => {
    fake.commitFiles('ACME', 'fleet', 'main', { 'apps/prod/values.yml': 'tag: 2\n', 'README.md': null });
    const head = fake.commitFiles('ACME', 'fleet', 'main', {
      'clusters/prod/flux.yaml': null,
      'clusters/prod/sync.yaml': files['clusters/prod/flux.yaml'],
      'new.yaml': 'x: 1\n',
    });
    const changes: { path: { toString: string }; srcPath?: { toString: string }; type: string; contentId: string }[] =
      [];
    for (let start: number | undefined = 0; start !== undefined;) {
      const page = await client(fake)('GET', `${REPO}/changes`, { query: { since: main, until: head, start } });
      changes.push(...page.json.values);
      assert.equal(page.json.fromHash, main);
      start = page.json.isLastPage ? undefined : (page.json.nextPageStart as number);
    }
    assert.deepEqual(
      changes.map((change) => [change.type, change.path.toString, change.srcPath?.toString]),
      [
        ['DELETE', 'README.md', undefined],
        ['MODIFY', 'apps/prod/values.yml', undefined],
        ['MOVE', 'clusters/prod/sync.yaml', 'clusters/prod/flux.yaml'],
        ['ADD', 'new.yaml', undefined],
      ],
    );
    assert.equal(changes.find((change) => change.type === 'MODIFY')?.contentId, gitBlobSha('tag: 2\n'));
    assert.equal(changes.find((change) => change.type === 'DELETE')?.contentId, '0'.repeat(40));

    const commits = await client(fake)('GET', `${REPO}/commits`, { query: { since: main, until: 'main' } });
    assert.equal(commits.json.size, 2);
    const [newest, older] = commits.json.values as { id: string; parents: { id: string }[] }[];
    assert.equal(newest?.id, head);
    assert.deepEqual(newest?.parents, [{ id: older?.id, displayId: older?.id.slice(0, 11) }]);
    assert.equal(older?.parents[0]?.id, main);
  });

  it('cuts a diff at page.max.changes: the last page it answers is not the last one, and names no next page', async () => {
    const capped = await FakeBitbucketServer.start({ maxChanges: 3 });
    try {
      const base = capped.createRepository('ACME', 'fleet', { 'a.yaml': 'a\n' });
      const head = capped.commitFiles('ACME', 'fleet', 'main', {
        'b.yaml': 'b\n',
        'c.yaml': 'c\n',
        'd.yaml': 'd\n',
        'e.yaml': 'e\n',
      });
      const page = await client(capped)('GET', `${REPO}/changes`, { query: { since: base, until: head, limit: 100 } });
      assert.equal(page.json.size, 3);
      assert.equal(page.json.isLastPage, false);
      assert.equal(page.json.nextPageStart, undefined);
    } finally {
      await capped.stop();
    }
  });
});

describe('fake Bitbucket Server: writing', () => {
  let fake: FakeBitbucketServer;
  let main: string;
  before(async () => {
    fake = await FakeBitbucketServer.start();
    main = fake.createRepository('ACME', 'fleet', { 'apps/podinfo.yaml': 'version: 1\n', 'other.yaml': 'x: 1\n' });
  });
  after(() => fake.stop());

  it('creates branches at a start point, once, and deletes them only where they were expected', async () => {
    const api = client(fake);
    const created = await api('POST', BRANCHES, { json: { name: 'feature', startPoint: main } });
    assert.equal(created.status, 200);
    assert.deepEqual(
      { id: created.json.id, latestCommit: created.json.latestCommit },
      { id: 'refs/heads/feature', latestCommit: main },
    );
    const again = await api('POST', BRANCHES, { json: { name: 'feature', startPoint: main } });
    assert.equal(again.status, 409);
    assert.equal(again.json.errors[0].exceptionName, 'com.atlassian.bitbucket.repository.DuplicateRefException');
    assert.equal((await api('DELETE', BRANCHES, { json: { name: 'feature', endPoint: 'f'.repeat(40) } })).status, 400);
    assert.equal(fake.ref('ACME', 'fleet', 'feature'), main);
    assert.equal((await api('DELETE', BRANCHES, { json: { name: 'feature', endPoint: main } })).status, 204);
    assert.equal(fake.ref('ACME', 'fleet', 'feature'), undefined);
    assert.equal((await api('DELETE', BRANCHES, { json: { name: 'feature' } })).status, 204, 'gone already');
  });

  it('commits one file per edit, as the authenticated user, refusing an edit of a file changed since', async () => {
    const api = client(fake);
    await api('POST', BRANCHES, { json: { name: 'edit', startPoint: main } });
    const edit = await api('PUT', `${REPO}/browse/apps/podinfo.yaml`, {
      form: editForm({ branch: 'edit', message: 'promoting version', sourceCommitId: main }, 'version: 2\r\n'),
    });
    assert.equal(edit.status, 200);
    assert.deepEqual(
      edit.json.parents.map((parent: { id: string }) => parent.id),
      [main],
    );
    assert.equal(edit.json.message, 'promoting version');
    // The authenticated user, answered as Bitbucket answers an author it maps to a user: its user name and display name.
    assert.deepEqual(
      { name: edit.json.author.name, displayName: edit.json.author.displayName, email: edit.json.author.emailAddress },
      { name: 'promoter', displayName: 'Promoter', email: 'promoter@bitbucket.example.com' },
    );
    assert.equal(fake.ref('ACME', 'fleet', 'edit'), edit.json.id);
    assert.equal(fake.files('ACME', 'fleet', 'edit')['apps/podinfo.yaml'], 'version: 2\r\n', 'bytes kept (CRLF)');

    // Another file, edited on the commit before: the branch moved, but not that file.
    const other = await api('PUT', `${REPO}/browse/other.yaml`, {
      form: editForm({ branch: 'edit', message: 'm', sourceCommitId: main }, 'x: 2\n'),
    });
    assert.equal(other.status, 200);
    assert.equal(other.json.parents[0].id, edit.json.id, 'committed on the branch head');

    const stale = await api('PUT', `${REPO}/browse/apps/podinfo.yaml`, {
      form: editForm({ branch: 'edit', message: 'm', sourceCommitId: main }, 'version: 3\n'),
    });
    assert.equal(stale.status, 409, 'the file changed since');
    const same = await api('PUT', `${REPO}/browse/other.yaml`, {
      form: editForm({ branch: 'edit', message: 'm', sourceCommitId: other.json.id as string }, 'x: 2\n'),
    });
    assert.equal(same.status, 409, 'nothing to commit');
    const missing = await api('PUT', `${REPO}/browse/other.yaml`, {
      form: editForm({ branch: 'nope', message: 'm', sourceCommitId: main }, 'x: 3\n'),
    });
    assert.equal(missing.status, 404);

    // A text field works too, and sourceBranch creates the branch; FormData sends a text field's line breaks as
    // CRLF, which is why a client must send the content as a file part to keep its bytes.
    const form = new FormData();
    form.set('branch', 'fresh');
    form.set('sourceBranch', 'main');
    form.set('sourceCommitId', main);
    form.set('content', 'version: 4\n');
    assert.equal((await api('PUT', `${REPO}/browse/apps/podinfo.yaml`, { form })).status, 200);
    assert.equal(fake.files('ACME', 'fleet', 'fresh')['apps/podinfo.yaml'], 'version: 4\r\n');
  });
});

describe('fake Bitbucket Server: pull requests', () => {
  let fake: FakeBitbucketServer;
  let main: string;
  const repository = { slug: 'fleet', project: { key: 'ACME' } };
  const create = (from: string, title = `Promote ${from}`) =>
    client(fake)('POST', `${REPO}/pull-requests`, {
      json: {
        title,
        description: 'line 1\nline 2',
        fromRef: { id: `refs/heads/${from}`, repository },
        toRef: { id: 'refs/heads/main', repository },
      },
    });

  before(async () => {
    fake = await FakeBitbucketServer.start({ webBaseUrl: 'https://bitbucket.example.com/context' });
    main = fake.createRepository('ACME', 'fleet', { 'a.yaml': 'a: 1\n' });
  });
  after(() => fake.stop());

  it('opens one pull request per source and target; a second is a 409 naming the open one', async () => {
    fake.commitFiles('ACME', 'fleet', 'one', { 'a.yaml': 'a: 2\n' });
    const created = await create('one');
    assert.equal(created.status, 201);
    assert.equal(created.json.state, 'OPEN');
    assert.equal(created.json.version, 0);
    assert.equal(created.json.description, 'line 1\nline 2');
    assert.deepEqual(created.json.links.self, [
      { href: 'https://bitbucket.example.com/context/projects/ACME/repos/fleet/pull-requests/1' },
    ]);
    const duplicate = await create('one', 'another title');
    assert.equal(duplicate.status, 409);
    const [error] = duplicate.json.errors as { exceptionName: string; existingPullRequest: { id: number } }[];
    assert.equal(error?.exceptionName, 'com.atlassian.bitbucket.pull.DuplicatePullRequestException');
    assert.equal(error?.existingPullRequest.id, 1);
    assert.equal(fake.pullRequests('ACME', 'fleet').length, 1);

    await client(fake)('POST', BRANCHES, { json: { name: 'empty', startPoint: main } });
    const empty = await create('empty');
    assert.equal(empty.status, 409);
    assert.equal(empty.json.errors[0].exceptionName, 'com.atlassian.bitbucket.pull.EmptyPullRequestException');
  });

  it('updates at the current version only, with the reviewers the update names', async () => {
    fake.addUser({ name: 'alice', displayName: 'Alice', emailAddress: 'alice@example.com' }, 'secret');
    const api = client(fake);
    const withReviewer = await api('PUT', `${REPO}/pull-requests/1`, {
      json: { version: 0, title: 'Reviewed', reviewers: [{ user: { name: 'alice' } }] },
    });
    assert.equal(withReviewer.status, 200);
    assert.equal(withReviewer.json.version, 1);
    assert.deepEqual(fake.pullRequests('ACME', 'fleet')[0]?.reviewers, ['alice']);
    const stale = await api('PUT', `${REPO}/pull-requests/1`, { json: { version: 0, title: 'Stale' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.errors[0].exceptionName, 'com.atlassian.bitbucket.pull.PullRequestOutOfDateException');
    const retitled = await api('PUT', `${REPO}/pull-requests/1`, { json: { version: 1, title: 'Retitled' } });
    assert.equal(retitled.json.title, 'Retitled');
    assert.deepEqual(fake.pullRequests('ACME', 'fleet')[0]?.reviewers, [], 'left out: removed');
  });

  it('declines the pull request of a deleted source branch, and reopens it once the branch is back', async () => {
    const api = client(fake);
    const head = fake.ref('ACME', 'fleet', 'one') ?? '';
    await api('DELETE', BRANCHES, { json: { name: 'one', endPoint: head } });
    const declined = (await api('GET', `${REPO}/pull-requests/1`)).json;
    assert.equal(declined.state, 'DECLINED');
    const early = await api('POST', `${REPO}/pull-requests/1/reopen`, { query: { version: declined.version } });
    assert.equal(early.status, 409, 'no source branch to reopen it with');
    fake.commitFiles('ACME', 'fleet', 'one', { 'a.yaml': 'a: 3\n' });
    const stale = await api('POST', `${REPO}/pull-requests/1/reopen`, { query: { version: declined.version - 1 } });
    assert.equal(stale.status, 409);
    const reopened = await api('POST', `${REPO}/pull-requests/1/reopen`, { json: { version: declined.version } });
    assert.equal(reopened.status, 200);
    assert.equal(reopened.json.state, 'OPEN');
    assert.equal(reopened.json.fromRef.latestCommit, fake.ref('ACME', 'fleet', 'one'));
  });

  it('lists by branch, direction and state, newest first, and merges', async () => {
    fake.commitFiles('ACME', 'fleet', 'two', { 'b.yaml': 'b\n' });
    const two = (await create('two')).json as { id: number };
    const api = client(fake);
    const ids = (answer: Answer) => (answer.json as { values: { id: number }[] }).values.map((pull) => pull.id);
    const outgoing = await api('GET', `${REPO}/pull-requests`, {
      query: { at: 'refs/heads/one', direction: 'OUTGOING', state: 'ALL' },
    });
    assert.deepEqual(ids(outgoing), [1]);
    assert.deepEqual(ids(await api('GET', `${REPO}/pull-requests`, { query: { at: 'refs/heads/main' } })), [two.id, 1]);
    assert.deepEqual(
      ids(await api('GET', `${REPO}/pull-requests`, { query: { at: 'refs/heads/main', order: 'OLDEST' } })),
      [1, two.id],
    );
    fake.merge('ACME', 'fleet', two.id);
    assert.equal(fake.files('ACME', 'fleet', 'main')['b.yaml'], 'b\n');
    assert.deepEqual(ids(await api('GET', `${REPO}/pull-requests`, { query: { state: 'MERGED' } })), [two.id]);
  });

  it('marks an open pull request merged once its source is reachable from its target', async () => {
    // "three" → main is open; "four" branches off "three"; merging "four" brings "three" into main.
    const three = fake.commitFiles('ACME', 'fleet', 'three', { 'c.yaml': 'c\n' });
    const first = (await create('three')).json as { id: number };
    await client(fake)('POST', BRANCHES, { json: { name: 'four', startPoint: three } });
    fake.commitFiles('ACME', 'fleet', 'four', { 'd.yaml': 'd\n' });
    const second = (await create('four')).json as { id: number };
    const state = (id: number) => fake.pullRequests('ACME', 'fleet').find((pull) => pull.id === id)?.state;
    assert.equal(state(first.id), 'OPEN');
    fake.merge('ACME', 'fleet', second.id);
    assert.equal(state(second.id), 'MERGED');
    assert.equal(state(first.id), 'MERGED', 'its commit is on main now');
  });
});

describe('fake Bitbucket Server: faults, request log, personal repositories and a context path', () => {
  let fake: FakeBitbucketServer;
  before(async () => {
    fake = await FakeBitbucketServer.start({ contextPath: '/bitbucket' });
    fake.createRepository('~jdoe', 'fleet', { 'a.yaml': 'a\n' });
  });
  after(() => fake.stop());

  it('serves personal repositories under /projects/~user and /users/user, below the context path', async () => {
    assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/bitbucket$/);
    const api = client(fake);
    assert.equal((await api('GET', '/rest/api/1.0/projects/~jdoe/repos/fleet/branches')).status, 200);
    const users = await api('GET', '/rest/api/1.0/users/jdoe/repos/fleet/branches');
    assert.equal(users.status, 200);
    assert.equal(users.json.values[0].displayId, 'main');
    assert.equal(fake.requests.at(-1)?.path, '/rest/api/1.0/projects/~jdoe/repos/fleet/branches');
    const outside = await fetch(`${fake.url.replace('/bitbucket', '')}/rest/api/1.0/projects/~jdoe/repos/fleet`);
    assert.equal(outside.status, 404);
  });

  it('injects statuses, rate limits and dropped connections, and logs every request with its route', async () => {
    fake.resetRequests();
    const api = client(fake);
    const branches = '/rest/api/1.0/projects/~jdoe/repos/fleet/branches';
    fake.failNext(503, { times: 2 });
    assert.equal((await api('GET', branches)).status, 503);
    assert.equal((await api('GET', branches)).status, 503);
    fake.rateLimitNext({ retryAfterSeconds: 7 });
    const limited = await api('GET', branches);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(limited.headers.get('x-ratelimit-interval-seconds'));
    fake.closeNext({ route: PULLS_ROUTE });
    assert.equal((await api('GET', branches)).status, 200, 'the fault waits for its route');
    await assert.rejects(api('POST', '/rest/api/1.0/projects/~jdoe/repos/fleet/pull-requests', { json: {} }));
    assert.equal(fake.count(), 5);
    assert.equal(
      fake.count((request) => request.status === 503),
      2,
    );
    assert.deepEqual(fake.countsByRoute(), {
      'GET /rest/api/1.0/projects/{projectKey}/repos/{repositorySlug}/branches': 4,
      [PULLS_ROUTE]: 1,
    });
  });
});
