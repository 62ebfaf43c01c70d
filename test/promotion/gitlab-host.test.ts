// The GitLab adapter (lib/promotion/gitlab) against the fake GitLab: credentials from the Secret, each HostRepository
// method, convergence under concurrent identical calls, and what each of GitLab's failures becomes (retried inside
// the call, waited out, or a PromotionError that says what to fix, never showing the token).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { repositoryAddress, type GitLabAddress } from '../../lib/pipeline/repository-address.js';
import { gitLabHost } from '../../lib/promotion/gitlab/index.js';
import { PromotionError } from '../../lib/promotion/port.js';
import { gitBlobId } from '../../lib/promotion/pull-request/git-blob-id.js';
import type {
  BranchWrite,
  FileChange,
  GitHost,
  GitHostSettings,
  HostRepository,
} from '../../lib/promotion/pull-request/host.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';
import { FAST, PROJECT_PATH, PROJECT_URL, WEB_HOST } from './gitlab-support.js';

const SECRET = { namespace: 'foo', name: 'gitlab-credentials' };
const BRANCH = 'promotion-foo-bar-prod';
const AUTHOR = { name: 'Promotion Server', email: 'promotion-server@pipeline-controller.invalid' };
const FILES: Record<string, string> = {
  'README.md': '# fleet\n',
  'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
  'apps/prod/values.yml': 'image:\r\n  tag: 6.9.1 # {"$promotion": "foo:bar:prod"}\r\n',
  'apps/prod/notes.yaml': '# Überblick: café ☕\nversion: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
  'config/settings.json': '{ "spaced":   true }\n',
};

function address(url = PROJECT_URL): GitLabAddress {
  const located = repositoryAddress('gitlab', url);
  assert.ok(located.ok && located.address.type === 'gitlab');
  return located.address;
}

function change(path: string, content: string): FileChange {
  return { path, content, baseBlobId: gitBlobId(FILES[path] ?? ''), blobId: gitBlobId(content) };
}

function branchWrite(baseCommit: string, version: string, branch = BRANCH): BranchWrite {
  return {
    branch,
    base: 'main',
    baseCommit,
    changes: [
      change('apps/prod/podinfo.yaml', `version: ${version} # {"$promotion": "foo:bar:prod"}\n`),
      change('apps/prod/values.yml', `image:\r\n  tag: ${version} # {"$promotion": "foo:bar:prod"}\r\n`),
    ],
    message: 'promoting version',
    author: AUTHOR,
  };
}

/** What the adapter makes of the error a call throws. */
async function promotionError(host: GitHost, call: Promise<unknown>): Promise<PromotionError> {
  try {
    await call;
  } catch (error) {
    return host.toPromotionError(error, SECRET);
  }
  assert.fail('the call succeeded');
}

interface Setup {
  fake: FakeGitLab;
  main: string;
  host(settings?: GitHostSettings): GitHost;
  repository(settings?: GitHostSettings, values?: Record<string, string>): HostRepository;
}

async function setUp(files: Record<string, string> = FILES): Promise<Setup> {
  const fake = await FakeGitLab.start({ webHost: WEB_HOST });
  const main = fake.createRepository(PROJECT_PATH, files);
  const host = (settings: GitHostSettings = {}) => gitLabHost({ ...FAST, ...settings });
  return {
    fake,
    main,
    host,
    repository: (settings = {}, values = { token: fake.token }) =>
      host(settings).open(address(), fake.url, SECRET, values),
  };
}

const POST_COMMITS = 'POST /projects/:id/repository/commits';

describe('GitLab host: credentials from the Secret', () => {
  let setup: Setup;
  before(async () => {
    setup = await setUp();
  });
  after(() => setup.fake.stop());

  it('sends the token as PRIVATE-TOKEN, or a git password in its place when there is no token', async () => {
    const { fake, main } = setup;
    assert.equal(await setup.repository().branchHead('main'), main);
    assert.equal(fake.requests.at(-1)?.auth, 'private-token');
    const gitSecret = { username: 'oauth2', password: fake.token };
    assert.equal(await setup.repository({}, gitSecret).branchHead('main'), main);
    assert.equal(fake.requests.at(-1)?.status, 200);
  });

  it('fails for good naming the Secret and the keys it needs, never a value', () => {
    const host = setup.host();
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /has no GitLab credentials: it needs the key "token"/],
      [{ token: '  ' }, /\("token" is empty\)/],
      [{ username: 'bot-user' }, /"username" alone is not enough/],
      [{ token: '', password: '' }, /"token" and "password" are empty/],
    ];
    for (const [values, reason] of cases) {
      assert.throws(
        () => host.open(address(), setup.fake.url, SECRET, values),
        (error: unknown) => {
          assert.ok(error instanceof PromotionError);
          assert.equal(error.retryable, false);
          assert.match(error.message, /^Secret foo\/gitlab-credentials /);
          assert.match(error.message, reason);
          assert.match(error.message, /"password"/);
          assert.doesNotMatch(error.message, /bot-user/);
          return true;
        },
      );
    }
    assert.match(host.neededKeys, /"token".*api scope/);
  });

  it('opens only GitLab addresses', () => {
    const github = repositoryAddress('github', 'https://github.com/acme/fleet');
    assert.ok(github.ok);
    assert.throws(() => setup.host().open(github.address, setup.fake.url, SECRET, { token: 'x' }), PromotionError);
  });
});

describe('GitLab host: reading the repository', () => {
  let setup: Setup;
  before(async () => {
    const many = Object.fromEntries(Array.from({ length: 230 }, (_, i) => [`apps/app-${i}/values.yaml`, `n: ${i}\n`]));
    setup = await setUp({ ...FILES, ...many });
  });
  after(() => setup.fake.stop());

  it('gives the head of a branch, undefined for a missing branch, and an error for a project it cannot see', async () => {
    const { fake, main } = setup;
    const repository = setup.repository();
    assert.equal(await repository.branchHead('main'), main);
    assert.equal(await repository.branchHead('nope'), undefined);
    fake.addToken('glpat-elsewhere', { projects: ['acme/other'] });
    const hidden = setup.repository({}, { token: 'glpat-elsewhere' });
    const error = await promotionError(setup.host(), hidden.branchHead('main'));
    assert.equal(error.retryable, false);
    assert.equal(
      error.message,
      'GitLab API GET /api/v4/projects/acme%2Fplatform%2Ffleet/repository/branches/main: 404 404 Project Not Found: ' +
        'it does not exist, or the credentials of Secret foo/gitlab-credentials cannot see it',
    );
  });

  it('lists every regular file with its blob id: a tree longer than a page from one archive of the commit', async () => {
    const { fake, main } = setup;
    fake.resetRequests();
    const files = await setup.repository().listFiles(main);
    assert.equal(files.length, Object.keys(FILES).length + 230);
    const ids = new Map(files.map((file) => [file.path, file.blobId]));
    for (const [path, text] of Object.entries(FILES)) assert.equal(ids.get(path), gitBlobId(text), path);
    assert.ok(!ids.has('apps'), 'no directories');
    const pages = fake.requests.filter((request) => request.route === 'GET /projects/:id/repository/tree');
    assert.equal(pages.length, 1, 'the first page only');
    assert.ok(pages.every((page) => page.query.pagination === 'keyset' && page.query.per_page === '100'));
    assert.ok(pages.every((page) => page.query.ref === main && page.query.recursive === 'true'));
    assert.equal(fake.requests.length, 2, 'the first page and the archive');

    fake.resetRequests();
    fake.failNext(404, { route: 'GET /projects/:id/repository/archive.tar.gz' });
    const paged = await setup.repository().listFiles(main);
    assert.deepEqual(
      paged.map((file) => `${file.path} ${file.blobId}`).sort(),
      files.map((file) => `${file.path} ${file.blobId}`).sort(),
      'without the archive, the same listing page by page',
    );
    const allPages = fake.requests.filter((request) => request.route === 'GET /projects/:id/repository/tree');
    assert.ok(allPages.length > 2, `${allPages.length} pages`);
  });

  it('reads a file by its blob id, byte for byte, even one GitLab would label JSON', async () => {
    const repository = setup.repository();
    for (const path of ['apps/prod/values.yml', 'apps/prod/notes.yaml', 'config/settings.json']) {
      const text = FILES[path] ?? '';
      assert.equal(await repository.readFile({ path, blobId: gitBlobId(text) }, setup.main), text, path);
    }
    assert.equal(setup.fake.requests.at(-1)?.route, 'GET /projects/:id/repository/blobs/:sha/raw');
  });
});

describe('GitLab host: writing the promotion branch', () => {
  let setup: Setup;
  before(async () => {
    setup = await setUp();
  });
  after(() => setup.fake.stop());

  it('creates the branch as one commit on the base with every change, by the given author', async () => {
    const { fake, main } = setup;
    fake.resetRequests();
    await setup.repository().writeBranch(branchWrite(main, '7.0.0'));
    assert.equal(fake.count(POST_COMMITS), 1);
    const head = fake.ref(PROJECT_PATH, BRANCH) ?? assert.fail('no branch');
    const commit = fake.commit(PROJECT_PATH, head);
    assert.deepEqual(commit?.parents, [main]);
    assert.deepEqual(commit?.author && { name: commit.author.name, email: commit.author.email }, AUTHOR);
    assert.equal(commit?.message, 'promoting version');
    assert.deepEqual(fake.files(PROJECT_PATH, BRANCH), {
      ...FILES,
      'apps/prod/podinfo.yaml': 'version: 7.0.0 # {"$promotion": "foo:bar:prod"}\n',
      'apps/prod/values.yml': 'image:\r\n  tag: 7.0.0 # {"$promotion": "foo:bar:prod"}\r\n',
    });
    assert.equal(fake.files(PROJECT_PATH, 'main')['apps/prod/podinfo.yaml'], FILES['apps/prod/podinfo.yaml']);
  });

  it('leaves a branch that already holds the base plus these changes alone', async () => {
    const { fake, main } = setup;
    const head = fake.ref(PROJECT_PATH, BRANCH);
    fake.resetRequests();
    await setup.repository().writeBranch(branchWrite(main, '7.0.0'));
    assert.equal(fake.ref(PROJECT_PATH, BRANCH), head);
    assert.equal(fake.count(POST_COMMITS), 0);
  });

  it('resets the branch onto the base when it holds another version, more commits, or more changes', async () => {
    const { fake, main } = setup;
    const repository = setup.repository();
    await repository.writeBranch(branchWrite(main, '7.0.1'));
    assert.equal(fake.commitsAhead(PROJECT_PATH, BRANCH), 1);
    assert.match(fake.files(PROJECT_PATH, BRANCH)['apps/prod/podinfo.yaml'] ?? '', /7\.0\.1/);

    fake.commitFiles(PROJECT_PATH, BRANCH, { 'someone.txt': 'pushed here\n' });
    await repository.writeBranch(branchWrite(main, '7.0.1'));
    assert.equal(fake.commitsAhead(PROJECT_PATH, BRANCH), 1);
    assert.equal(fake.files(PROJECT_PATH, BRANCH)['someone.txt'], undefined);

    // One commit on the base with the right files, and one more.
    const other = 'promotion-foo-bar-other';
    const wanted = branchWrite(main, '7.0.1', other);
    fake.commitFiles(PROJECT_PATH, other, {
      ...Object.fromEntries(wanted.changes.map((c) => [c.path, c.content])),
      'extra.txt': 'x\n',
    });
    await repository.writeBranch(wanted);
    assert.equal(fake.files(PROJECT_PATH, other)['extra.txt'], undefined);
    assert.equal(fake.commitsAhead(PROJECT_PATH, other), 1);
  });

  it('moves the branch onto a new base commit', async () => {
    const { fake } = setup;
    const base = fake.commitFiles(PROJECT_PATH, 'main', { 'docs/new.md': 'on main\n' });
    await setup.repository().writeBranch(branchWrite(base, '7.0.1'));
    const head = fake.ref(PROJECT_PATH, BRANCH) ?? assert.fail('no branch');
    assert.deepEqual(fake.commit(PROJECT_PATH, head)?.parents, [base]);
    assert.equal(fake.files(PROJECT_PATH, BRANCH)['docs/new.md'], 'on main\n');
  });

  it('converges to one commit under 50 concurrent identical writes of a new branch', async () => {
    const { fake } = setup;
    const base = fake.ref(PROJECT_PATH, 'main') ?? assert.fail('no main');
    const branch = 'promotion-foo-bar-race';
    const repository = setup.repository();
    fake.resetRequests();
    await Promise.all(Array.from({ length: 50 }, () => repository.writeBranch(branchWrite(base, '8.0.0', branch))));
    const created = fake.requests.filter((request) => request.route === POST_COMMITS && request.status === 201);
    assert.equal(created.length, 1, 'one commit pushed; the others found it');
    assert.equal(fake.commitsAhead(PROJECT_PATH, branch), 1);
    assert.match(fake.files(PROJECT_PATH, branch)['apps/prod/values.yml'] ?? '', /tag: 8\.0\.0/);
  });

  it('fails for good when GitLab does not know the base commit', async () => {
    const host = setup.host();
    const repository = host.open(address(), setup.fake.url, SECRET, { token: setup.fake.token });
    const error = await promotionError(host, repository.writeBranch(branchWrite('1'.repeat(40), '9.0.0')));
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /^GitLab API POST \/api\/v4\/projects\/acme%2Fplatform%2Ffleet\/repository\/commits: 400/,
    );
    assert.match(error.message, /Cannot find start_sha/);
  });
});

describe('GitLab host: merge requests', () => {
  let setup: Setup;
  const open = {
    branch: BRANCH,
    base: 'main',
    title: 'Promote foo/bar in prod to 7.0.0',
    body: '<details>\nx\n</details>',
  };
  before(async () => {
    setup = await setUp();
    setup.fake.commitFiles(PROJECT_PATH, BRANCH, { 'apps/prod/podinfo.yaml': 'version: 7.0.0\n' });
  });
  after(() => setup.fake.stop());

  it('opens a merge request from the branch and gives its web URL', async () => {
    const url = await setup.repository().openOrUpdatePullRequest(open);
    assert.equal(url, `https://${WEB_HOST}/${PROJECT_PATH}/-/merge_requests/1`);
    const [mr, ...others] = setup.fake.mergeRequests(PROJECT_PATH);
    assert.equal(others.length, 0);
    assert.deepEqual(
      { title: mr?.title, description: mr?.description, source: mr?.sourceBranch, target: mr?.targetBranch },
      { title: open.title, description: open.body, source: BRANCH, target: 'main' },
    );
  });

  it('updates the title of the open one instead of opening a second', async () => {
    const { fake } = setup;
    const repository = setup.repository();
    fake.resetRequests();
    const url = await repository.openOrUpdatePullRequest({ ...open, title: 'Promote foo/bar in prod to 7.0.1' });
    assert.equal(url, `https://${WEB_HOST}/${PROJECT_PATH}/-/merge_requests/1`);
    assert.equal(fake.mergeRequests(PROJECT_PATH).length, 1);
    assert.equal(fake.mergeRequests(PROJECT_PATH)[0]?.title, 'Promote foo/bar in prod to 7.0.1');
    assert.equal(fake.count('PUT /projects/:id/merge_requests/:merge_request_iid'), 1);
    await repository.openOrUpdatePullRequest({ ...open, title: 'Promote foo/bar in prod to 7.0.1' });
    assert.equal(fake.count('PUT /projects/:id/merge_requests/:merge_request_iid'), 1, 'the same title is not sent');
  });

  it('has one open merge request after 50 concurrent identical calls', async () => {
    const { fake } = setup;
    fake.closeMergeRequest(PROJECT_PATH, 1);
    const repository = setup.repository();
    const urls = await Promise.all(Array.from({ length: 50 }, () => repository.openOrUpdatePullRequest(open)));
    const opened = fake.mergeRequests(PROJECT_PATH).filter((mr) => mr.state === 'opened');
    assert.equal(opened.length, 1);
    assert.deepEqual(new Set(urls), new Set([opened[0]?.webUrl]));
  });

  it('lists the merge requests from the branch, newest first, in every state', async () => {
    const { fake } = setup;
    fake.merge(PROJECT_PATH, 2);
    fake.commitFiles(PROJECT_PATH, BRANCH, { 'apps/prod/podinfo.yaml': 'version: 7.0.2\n' });
    await setup.repository().openOrUpdatePullRequest({ ...open, title: 'Promote foo/bar in prod to 7.0.2' });
    fake.commitFiles(PROJECT_PATH, 'elsewhere', { 'x.txt': 'x\n' });
    await setup.repository().openOrUpdatePullRequest({ ...open, branch: 'elsewhere', title: 'Elsewhere' });
    const pulls = await setup.repository().pullRequestsFrom(BRANCH);
    assert.deepEqual(
      pulls.map((pull) => [pull.title, pull.state, pull.base, pull.url.replace(/.*\//, '!')]),
      [
        ['Promote foo/bar in prod to 7.0.2', 'open', 'main', '!3'],
        ['Promote foo/bar in prod to 7.0.0', 'merged', 'main', '!2'],
        ['Promote foo/bar in prod to 7.0.1', 'closed', 'main', '!1'],
      ],
    );
    assert.deepEqual(await setup.repository().pullRequestsFrom('nope'), []);
  });

  it('fails for good when GitLab refuses the merge request for another reason', async () => {
    const host = setup.host();
    const repository = host.open(address(), setup.fake.url, SECRET, { token: setup.fake.token });
    const error = await promotionError(host, repository.openOrUpdatePullRequest({ ...open, branch: 'missing' }));
    assert.equal(error.retryable, false);
    assert.match(error.message, /merge_requests: 422 Source branch "missing" does not exist$/);
  });
});

describe('GitLab host: failures', () => {
  let setup: Setup;
  before(async () => {
    setup = await setUp();
  });
  after(() => setup.fake.stop());
  const BRANCH_ROUTE = 'GET /projects/:id/repository/branches/:branch';

  it('retries 5xx answers and dropped connections inside the call, through the fetch of the settings', async () => {
    const { fake, main } = setup;
    let fetched = 0;
    const counting: typeof fetch = (input, init) => {
      fetched++;
      return fetch(input, init);
    };
    fake.resetRequests();
    fake.failNext(502, { times: 2 });
    fake.closeNext();
    assert.equal(await setup.repository({ fetch: counting }).branchHead('main'), main);
    assert.equal(fetched, 4);
    assert.equal(fake.count(BRANCH_ROUTE), 4);
  });

  it('gives up on a lasting 5xx after its retries with a retryable error (not gitbeaker’s ten tries)', async () => {
    const { fake } = setup;
    const host = setup.host({ retries: 0 });
    const repository = host.open(address(), fake.url, SECRET, { token: fake.token });
    fake.resetRequests();
    fake.failNext(502, { times: 5 });
    const error = await promotionError(host, repository.branchHead('main'));
    assert.equal(fake.count(), 1);
    assert.equal(error.retryable, true);
    assert.equal(
      error.message,
      'GitLab API GET /api/v4/projects/acme%2Fplatform%2Ffleet/repository/branches/main: 502 502 Bad Gateway',
    );
    fake.clearFaults();
    fake.resetRequests();
    fake.failNext(503, { times: 3 });
    const lasting = await promotionError(
      setup.host({ retries: 2 }),
      setup.repository({ retries: 2 }).branchHead('main'),
    );
    assert.equal(fake.count(), 3);
    assert.equal(lasting.retryable, true);
  });

  it('times out a request that is never answered, and retries it', async () => {
    const { fake, main } = setup;
    fake.hangNext();
    const host = setup.host({ retries: 0, requestTimeoutMs: 100 });
    const error = await promotionError(
      host,
      host.open(address(), fake.url, SECRET, { token: fake.token }).branchHead('main'),
    );
    assert.equal(error.retryable, true);
    assert.match(error.message, /repository\/branches\/main: no answer within 100 ms$/);
    fake.hangNext();
    assert.equal(await setup.repository({ requestTimeoutMs: 100 }).branchHead('main'), main);
  });

  it('waits out a short rate limit by Retry-After, or by RateLimit-Reset when that is all GitLab says', async () => {
    const { fake, main } = setup;
    fake.resetRequests();
    fake.rateLimitNext({ resetInSeconds: 3 });
    const started = Date.now();
    assert.equal(await setup.repository({ retryAfterUnitMs: 10 }).branchHead('main'), main);
    assert.ok(Date.now() - started >= 30, 'waited 3 × 10 ms');
    assert.equal(fake.count(), 2);

    const withoutRetryAfter: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status !== 429) return response;
      const headers = new Headers(response.headers);
      headers.delete('retry-after');
      return new Response(await response.text(), { status: 429, headers });
    };
    fake.rateLimitNext({ resetInSeconds: 2 });
    const resetStarted = Date.now();
    const repository = setup.repository({ fetch: withoutRetryAfter, retryAfterUnitMs: 20 });
    assert.equal(await repository.branchHead('main'), main);
    assert.ok(Date.now() - resetStarted >= 20, 'waited until the reset');
  });

  it('ends the call on a long or lasting rate limit with the wait GitLab asked for', async () => {
    const { fake } = setup;
    const host = setup.host({ retryAfterUnitMs: 1000 });
    const repository = host.open(address(), fake.url, SECRET, { token: fake.token });
    fake.resetRequests();
    fake.rateLimitNext({ resetInSeconds: 120 });
    const long = await promotionError(host, repository.branchHead('main'));
    assert.equal(fake.count(), 1, 'not waited out');
    assert.equal(long.retryable, true);
    assert.equal(long.retryAfterMs, 120_000);
    assert.match(long.message, /branches\/main: 429 Retry later \(rate limit\)$/);

    fake.rateLimitNext({ resetInSeconds: 1, times: 10 });
    fake.resetRequests();
    const lasting = await promotionError(setup.host(), setup.repository({ retries: 2 }).branchHead('main'));
    assert.equal(fake.count(), 3, 'waited out twice, then given up');
    assert.equal(lasting.retryable, true);
    assert.equal(lasting.retryAfterMs, 1000);
    fake.clearFaults();
  });

  it('fails for good on a rejected token, naming the Secret and never the token, and logs no token', async () => {
    const { fake } = setup;
    const logged: unknown[] = [];
    const logger = {
      debug: () => undefined,
      info: (...a: unknown[]) => logged.push(a),
      warn: (...a: unknown[]) => logged.push(a),
    };
    const token = 'glpat-not-valid-4711';
    fake.failNext(502);
    const host = setup.host({ logger });
    const error = await promotionError(host, host.open(address(), fake.url, SECRET, { token }).branchHead('main'));
    assert.equal(error.retryable, false);
    assert.equal(
      error.message,
      'GitLab API GET /api/v4/projects/acme%2Fplatform%2Ffleet/repository/branches/main: 401 401 Unauthorized: ' +
        'GitLab rejected the credentials of Secret foo/gitlab-credentials (a wrong, expired or revoked access token)',
    );
    assert.ok(logged.length > 0, 'the retried 502 was logged');
    assert.doesNotMatch(JSON.stringify(logged) + error.message, /4711/);
  });

  it('fails for good when the token may not write, saying which scope and role it needs', async () => {
    const { fake, main } = setup;
    fake.addToken('glpat-read-only', { scopes: ['read_api'] });
    const host = setup.host();
    const repository = host.open(address(), fake.url, SECRET, { token: 'glpat-read-only' });
    const error = await promotionError(host, repository.writeBranch(branchWrite(main, '9.9.9')));
    assert.equal(error.retryable, false);
    assert.match(error.message, /repository\/commits: 403 insufficient_scope: The request requires higher privileges/);
    assert.match(error.message, /Secret foo\/gitlab-credentials needs the api scope/);
    assert.equal(fake.ref(PROJECT_PATH, BRANCH), undefined, 'nothing pushed');
  });

  it('maps errors that are not GitLab answers: a PromotionError as it is, anything else retryable', () => {
    const host = setup.host();
    const given = new PromotionError('Invalid', 'given');
    assert.equal(host.toPromotionError(given, SECRET), given);
    const other = host.toPromotionError(new Error('socket hang up'), SECRET);
    assert.equal(other.retryable, true);
    assert.equal(other.message, 'GitLab: socket hang up');
  });
});
