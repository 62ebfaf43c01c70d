// The Bitbucket Server adapter (lib/promotion/bitbucket-server) against the fake Bitbucket Server, below the promoter:
// credentials, the file listing and its cache (what it costs in requests), the branch written as base + one commit
// per changed file (created, left alone, completed, reset with its pull request reopened, under concurrency), the pull
// request, and what each failure says. The promoter's guarantees on every host are in pull-request-hosts.test.ts.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import { repositoryAddress, type RepositoryAddress } from '../../lib/pipeline/repository-address.js';
import { bitbucketServerHost } from '../../lib/promotion/bitbucket-server/index.js';
import { PromotionError } from '../../lib/promotion/index.js';
import {
  gitBlobId,
  type BranchWrite,
  type FileChange,
  type GitHost,
  type GitHostSettings,
  type HostRepository,
} from '../../lib/promotion/pull-request/index.js';
import { FakeBitbucketServer, type FakeBitbucketServerOptions } from '../../lib/testing/fake-bitbucket-server.js';
import { FAST, PROJECT_KEY, REPOSITORY_SLUG, REPOSITORY_URL, WEB_BASE_URL } from './bitbucket-server-support.js';

const SECRET: ObjectKey = { namespace: 'foo', name: 'bitbucket' };
const BRANCH = 'promotion-foo-bar-prod';
const ROUTE = '/rest/api/1.0/projects/{projectKey}/repos/{repositorySlug}';
const BROWSE = `GET ${ROUTE}/browse/{path}`;
const BROWSE_ROOT = `GET ${ROUTE}/browse`;
const EDIT = `PUT ${ROUTE}/browse/{path}`;
const CHANGES = `GET ${ROUTE}/changes`;
const ARCHIVE = `GET ${ROUTE}/archive`;
const DELETE_BRANCH = 'DELETE /rest/branch-utils/1.0/projects/{projectKey}/repos/{repositorySlug}/branches';
const CREATE_BRANCH = 'POST /rest/branch-utils/1.0/projects/{projectKey}/repos/{repositorySlug}/branches';
const UPDATE_PULL = `PUT ${ROUTE}/pull-requests/{pullRequestId}`;

const FLEET: Record<string, string> = {
  'README.md': '# fleet\n',
  'apps/prod/podinfo.yaml': 'version: 6.9.1 # marker\n',
  'apps/prod/values.yml': 'image:\r\n  tag: 6.9.1 # marker\r\n',
  'apps/dev/podinfo.yaml': 'version: 7.0.0\n',
  'apps/dev/notes.yaml': '# café ☕\n',
  'clusters/prod/flux-system/sync.yaml': 'kind: Kustomization\n',
};
/** Directories of FLEET, the root included: one browse request each. */
const FLEET_DIRECTORIES = 7;

function addressOf(url: string): RepositoryAddress {
  const located = repositoryAddress('bitbucket-server', url);
  assert.ok(located.ok, `a Bitbucket Server URL: ${url}`);
  return located.address;
}

interface Subject {
  fake: FakeBitbucketServer;
  host: GitHost;
  open(values?: Record<string, string>, url?: string): HostRepository;
}

async function start(options: FakeBitbucketServerOptions = {}, settings: GitHostSettings = {}): Promise<Subject> {
  const fake = await FakeBitbucketServer.start({ webBaseUrl: WEB_BASE_URL, ...options });
  const host = bitbucketServerHost({ ...FAST, ...settings });
  return {
    fake,
    host,
    open: (values = { token: fake.token }, url = REPOSITORY_URL) => host.open(addressOf(url), fake.url, SECRET, values),
  };
}

function change(path: string, content: string): FileChange {
  return { path, content, baseBlobId: gitBlobId(FLEET[path] ?? ''), blobId: gitBlobId(content) };
}

function writeOf(baseCommit: string, version: string): BranchWrite {
  return {
    branch: BRANCH,
    base: 'main',
    baseCommit,
    changes: [
      change('apps/prod/podinfo.yaml', `version: ${version} # marker\n`),
      change('apps/prod/values.yml', `image:\r\n  tag: ${version} # marker\r\n`),
    ],
    message: 'promoting version',
    author: { name: 'Promotion Server', email: 'promotion-server@pipeline-controller.invalid' },
  };
}

const pullRequestOf = (version: string) => ({
  branch: BRANCH,
  base: 'main',
  title: `Promote foo/bar in prod to ${version}`,
  body: '<details>\n<summary>Promotion</summary>\n\nfoo/bar in prod\n</details>',
});

async function rejection(promise: Promise<unknown>, host: GitHost): Promise<PromotionError> {
  try {
    await promise;
  } catch (error) {
    return host.toPromotionError(error, SECRET);
  }
  assert.fail('the call succeeded');
}

describe('Bitbucket Server adapter: credentials', () => {
  let subject: Subject;
  before(async () => {
    subject = await start();
    subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
  });
  after(() => subject.fake.stop());

  it('sends an HTTP access token as Bearer, and a username and password as Basic', async () => {
    const { fake } = subject;
    fake.resetRequests();
    assert.ok(await subject.open({ token: ` ${fake.token}\n` }).branchHead('main'));
    assert.ok(await subject.open({ username: 'promoter', password: `${fake.password}\n` }).branchHead('main'));
    assert.ok(
      await subject.open({ token: fake.token, username: 'promoter', password: 'wrong' }).branchHead('main'),
      'the token wins',
    );
    assert.deepEqual(
      fake.requests.map((request) => request.auth),
      ['token', 'basic', 'token'],
    );
  });

  it('names the Secret and the keys it needs, never a value, when the credentials are incomplete', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        {},
        /^Secret foo\/bitbucket has no Bitbucket Server credentials: it needs the key "token".*"username" and "password"$/,
      ],
      [{ token: ' ' }, /has no Bitbucket Server credentials \("token" is empty\)/],
      [{ username: 'jdoe' }, /^Secret foo\/bitbucket has "username" but lacks "password"/],
      [{ password: 'hunter2-secret' }, /^Secret foo\/bitbucket has "password" but lacks "username"/],
    ];
    for (const [values, message] of cases) {
      assert.throws(
        () => subject.open(values),
        (error: unknown) => {
          assert.ok(error instanceof PromotionError);
          assert.equal(error.retryable, false);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /jdoe|hunter2/);
          return true;
        },
      );
    }
    assert.match(subject.host.neededKeys, /"token".*"username" and "password"/);
  });
});

describe('Bitbucket Server adapter: listing files', () => {
  let subject: Subject;
  let main: string;
  beforeEach(async () => {
    subject = await start();
    main = subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
  });
  afterEach(() => subject.fake.stop());

  const expected = (files: Record<string, string>) =>
    Object.entries(files)
      .map(([path, text]) => ({ path, blobId: gitBlobId(text) }))
      .sort((a, b) => a.path.localeCompare(b.path));
  const sorted = (files: { path: string; blobId: string }[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));

  it("lists every file with git's blob id from one archive of the commit, then from memory", async () => {
    const { fake } = subject;
    fake.resetRequests();
    assert.deepEqual(sorted(await subject.open().listFiles(main)), expected(FLEET));
    assert.deepEqual(fake.countsByRoute(), { [ARCHIVE]: 1 }, 'one request, whatever the number of directories');

    fake.resetRequests();
    assert.deepEqual(sorted(await subject.open().listFiles(main)), expected(FLEET), 'another promotion, same host');
    assert.equal(fake.count(), 0);
  });

  it('lists directory by directory when the archive cannot be read', async () => {
    const { fake } = subject;
    const later = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', { 'apps/prod/podinfo.yaml': 'v: 2\n' });
    const fresh = bitbucketServerHost(FAST).open(addressOf(REPOSITORY_URL), fake.url, SECRET, { token: fake.token });
    fake.resetRequests();
    fake.failNext(404, { route: ARCHIVE });
    const listed = sorted(await fresh.listFiles(later));
    assert.deepEqual(listed, expected(fake.files(PROJECT_KEY, REPOSITORY_SLUG, 'main')));
    assert.equal(fake.count(BROWSE) + fake.count(BROWSE_ROOT), FLEET_DIRECTORIES);
  });

  it('lists a later commit from the diff with one request, as a full listing would', async () => {
    const { fake } = subject;
    await subject.open().listFiles(main);
    const later = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', {
      'apps/prod/podinfo.yaml': 'version: 6.9.2 # marker\n',
      'apps/dev/notes.yaml': null,
      'apps/dev/renamed.yaml': FLEET['apps/dev/notes.yaml'] ?? '',
      'apps/staging/podinfo.yaml': 'version: 6.9.0\n',
      'README.md': null,
    });
    fake.resetRequests();
    const listed = sorted(await subject.open().listFiles(later));
    assert.deepEqual(fake.countsByRoute(), { [CHANGES]: 1 });
    const fresh = bitbucketServerHost(FAST).open(addressOf(REPOSITORY_URL), fake.url, SECRET, { token: fake.token });
    assert.deepEqual(listed, sorted(await fresh.listFiles(later)));
    assert.deepEqual(listed, expected(fake.files(PROJECT_KEY, REPOSITORY_SLUG, 'main')));
  });

  it('lists in full again after a large diff, and concurrent listings of a commit share one', async () => {
    const { fake } = subject;
    await subject.open().listFiles(main);
    const many: Record<string, string> = {};
    for (let i = 0; i < 200; i++) many[`generated/file-${i}.yaml`] = `n: ${i}\n`;
    const later = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', many);
    fake.resetRequests();
    const listings = await Promise.all(Array.from({ length: 20 }, () => subject.open().listFiles(later)));
    assert.equal(fake.count(CHANGES), 1);
    assert.equal(fake.count(ARCHIVE), 1, 'listed once, in full');
    for (const listing of listings) assert.equal(listing.length, Object.keys(FLEET).length + 200);
  });

  it('follows the pages of a large directory, and reads files byte for byte', async () => {
    const paged = await start({ maxPageLimit: 2 });
    try {
      const head = paged.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
      const repository = paged.open();
      const files = await repository.listFiles(head);
      assert.deepEqual(sorted(files), expected(FLEET));
      for (const file of files) {
        assert.equal(await repository.readFile(file, head), FLEET[file.path], file.path);
      }
    } finally {
      await paged.fake.stop();
    }
  });
});

describe('Bitbucket Server adapter: the author of a commit', () => {
  let subject: Subject;
  before(async () => {
    subject = await start();
    subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
  });
  after(() => subject.fake.stop());

  it('names a Bitbucket user by their display name, not their user name, and anyone else as git names them', async () => {
    const { fake } = subject;
    const byUser = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', { 'a.txt': 'a\n' }, 'by a user', {
      author: { name: 'whatever git was told', email: fake.user.emailAddress.toUpperCase() },
    });
    assert.equal(await subject.open().commitAuthor(byUser), `${fake.user.displayName} <${fake.user.emailAddress}>`);
    const byPerson = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', { 'b.txt': 'b\n' }, 'by a person', {
      author: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    assert.equal(await subject.open().commitAuthor(byPerson), 'Ada Lovelace <ada@example.com>');
  });
});

describe('Bitbucket Server adapter: the promotion branch', () => {
  let subject: Subject;
  let main: string;
  before(async () => {
    subject = await start();
    main = subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
  });
  after(() => subject.fake.stop());

  const writes = () => subject.fake.count((request) => request.method !== 'GET');

  it('creates it on the base commit with one commit per changed file, authored by the credentials', async () => {
    const { fake } = subject;
    const write = writeOf(main, '6.9.2');
    await subject.open().writeBranch(write);
    const files = fake.files(PROJECT_KEY, REPOSITORY_SLUG, BRANCH);
    for (const { path, content } of write.changes) assert.equal(files[path], content, path);
    assert.equal(files['apps/dev/podinfo.yaml'], FLEET['apps/dev/podinfo.yaml']);
    assert.equal(fake.commitsAhead(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, 'main'), 2);
    const head = fake.ref(PROJECT_KEY, REPOSITORY_SLUG, BRANCH) ?? '';
    const commit = fake.commit(PROJECT_KEY, REPOSITORY_SLUG, head);
    assert.equal(commit?.message, 'promoting version');
    // The file edit takes no author: Bitbucket commits as the user of the credentials.
    assert.equal(commit?.author.name, fake.user.displayName);
    assert.equal(fake.commit(PROJECT_KEY, REPOSITORY_SLUG, commit?.parents[0] ?? '')?.parents[0], main);
  });

  it('leaves it alone when it already holds the changes on the base, and completes a branch holding part', async () => {
    const { fake } = subject;
    const head = fake.ref(PROJECT_KEY, REPOSITORY_SLUG, BRANCH);
    fake.resetRequests();
    await subject.open().writeBranch(writeOf(main, '6.9.2'));
    assert.equal(fake.ref(PROJECT_KEY, REPOSITORY_SLUG, BRANCH), head);
    assert.equal(writes(), 0);
    assert.equal(fake.count(), 3, 'the branch, its commits since the base, the diff');

    // Another promotion stopped after its first file.
    fake.deleteBranch(PROJECT_KEY, REPOSITORY_SLUG, BRANCH);
    const write = writeOf(main, '6.9.3');
    const [first, second] = write.changes;
    const halfway = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, {
      [first?.path ?? '']: first?.content ?? '',
    });
    fake.resetRequests();
    await subject.open().writeBranch(write);
    assert.deepEqual(fake.countsByRoute()[EDIT], 1);
    assert.equal(writes(), 1);
    const head2 = fake.ref(PROJECT_KEY, REPOSITORY_SLUG, BRANCH) ?? '';
    assert.deepEqual(fake.commit(PROJECT_KEY, REPOSITORY_SLUG, head2)?.parents, [halfway]);
    assert.equal(fake.files(PROJECT_KEY, REPOSITORY_SLUG, BRANCH)[second?.path ?? ''], second?.content);
  });

  it('resets it onto a moved base and reopens the pull request its deletion declined, retitled', async () => {
    const { fake } = subject;
    const url = await subject.open().openOrUpdatePullRequest(pullRequestOf('6.9.3'));
    assert.equal(url, `${WEB_BASE_URL}/projects/ACME/repos/fleet/pull-requests/1`);
    const moved = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', { 'docs/new.md': 'news\n' });
    fake.resetRequests();
    const repository = subject.open();
    await repository.writeBranch(writeOf(moved, '6.9.4'));
    assert.equal(fake.count(DELETE_BRANCH), 1);
    assert.equal(fake.count(CREATE_BRANCH), 1);
    assert.equal(fake.count(EDIT), 2);
    assert.equal(fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG)[0]?.state, 'DECLINED', 'with its source branch');
    assert.equal(fake.files(PROJECT_KEY, REPOSITORY_SLUG, BRANCH)['docs/new.md'], 'news\n');
    assert.equal(fake.commitsAhead(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, 'main'), 2);

    assert.equal(await repository.openOrUpdatePullRequest(pullRequestOf('6.9.4')), url, 'the same pull request');
    const [pull] = fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG);
    assert.equal(pull?.state, 'OPEN');
    assert.equal(pull?.title, 'Promote foo/bar in prod to 6.9.4');
    assert.equal(fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).length, 1);
  });

  it('does not reopen a pull request a person declined', async () => {
    const { fake } = subject;
    fake.decline(PROJECT_KEY, REPOSITORY_SLUG, 1);
    const base = fake.ref(PROJECT_KEY, REPOSITORY_SLUG, 'main') ?? '';
    const repository = subject.open();
    await repository.writeBranch(writeOf(base, '6.9.5'));
    const url = await repository.openOrUpdatePullRequest(pullRequestOf('6.9.5'));
    assert.equal(url, `${WEB_BASE_URL}/projects/ACME/repos/fleet/pull-requests/2`);
    assert.deepEqual(
      fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).map((pull) => pull.state),
      ['DECLINED', 'OPEN'],
    );
  });

  it('converges when 20 promotions reset it at once', async () => {
    const { fake } = subject;
    const base = fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, 'main', { 'docs/more.md': 'more\n' });
    const write = writeOf(base, '7.0.0');
    const urls = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const repository = subject.open();
        await repository.writeBranch(write);
        return repository.openOrUpdatePullRequest(pullRequestOf('7.0.0'));
      }),
    );
    assert.deepEqual(new Set(urls), new Set([`${WEB_BASE_URL}/projects/ACME/repos/fleet/pull-requests/2`]));
    const open = fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).filter((pull) => pull.state === 'OPEN');
    assert.deepEqual(
      open.map((pull) => pull.title),
      ['Promote foo/bar in prod to 7.0.0'],
    );
    const files = fake.files(PROJECT_KEY, REPOSITORY_SLUG, BRANCH);
    for (const { path, content } of write.changes) assert.equal(files[path], content);
    assert.equal(fake.commitsAhead(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, 'main'), 2);
  });
});

describe('Bitbucket Server adapter: pull requests', () => {
  let subject: Subject;
  before(async () => {
    subject = await start();
    subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
    subject.fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, { 'apps/prod/podinfo.yaml': 'version: 8\n' });
  });
  after(() => subject.fake.stop());

  it('opens one with the body as given, and retitles it keeping its reviewers, also at a stale version', async () => {
    const { fake } = subject;
    const repository = subject.open();
    const url = await repository.openOrUpdatePullRequest(pullRequestOf('8.0.0'));
    assert.equal(fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG)[0]?.description, pullRequestOf('8.0.0').body);

    fake.addUser({ name: 'alice', displayName: 'Alice', emailAddress: 'alice@example.com' }, 'pw');
    const added = await fetch(`${fake.url}/rest/api/1.0/projects/ACME/repos/fleet/pull-requests/1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        version: 0,
        title: 'Promote foo/bar in prod to 8.0.0',
        reviewers: [{ user: { name: 'alice' } }],
      }),
    });
    assert.equal(added.status, 200);

    fake.failNext(409, {
      route: UPDATE_PULL,
      message: 'You are attempting to modify a pull request based on out-of-date information.',
    });
    fake.resetRequests();
    assert.equal(await repository.openOrUpdatePullRequest(pullRequestOf('8.0.1')), url);
    assert.equal(fake.count(UPDATE_PULL), 2, 'read again after the stale version');
    const [pull] = fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG);
    assert.equal(pull?.title, 'Promote foo/bar in prod to 8.0.1');
    assert.deepEqual(pull?.reviewers, ['alice']);
    assert.equal(fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).length, 1);
  });

  it('lists the pull requests from a branch, newest first, with their states', async () => {
    const { fake } = subject;
    fake.merge(PROJECT_KEY, REPOSITORY_SLUG, 1);
    fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, BRANCH, { 'apps/prod/podinfo.yaml': 'version: 9\n' });
    const repository = subject.open();
    await repository.openOrUpdatePullRequest(pullRequestOf('9.0.0'));
    fake.decline(PROJECT_KEY, REPOSITORY_SLUG, 2);
    assert.deepEqual(await repository.pullRequestsFrom(BRANCH), [
      {
        url: `${WEB_BASE_URL}/projects/ACME/repos/fleet/pull-requests/2`,
        title: 'Promote foo/bar in prod to 9.0.0',
        state: 'closed',
        base: 'main',
      },
      {
        url: `${WEB_BASE_URL}/projects/ACME/repos/fleet/pull-requests/1`,
        title: 'Promote foo/bar in prod to 8.0.1',
        state: 'merged',
        base: 'main',
      },
    ]);
    assert.deepEqual(await repository.pullRequestsFrom('other'), []);
  });
});

describe('Bitbucket Server adapter: failures', () => {
  let subject: Subject;
  let main: string;
  before(async () => {
    subject = await start();
    main = subject.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
  });
  after(() => subject.fake.stop());

  const BRANCHES_PATH = '/rest/api/1.0/projects/ACME/repos/fleet/branches';

  it('fails for good on rejected credentials, naming the Secret, never the token or password', async () => {
    const token = 'BBDC-not-valid-4711';
    const error = await rejection(subject.open({ token }).branchHead('main'), subject.host);
    assert.equal(error.retryable, false);
    assert.equal(
      error.message,
      `Bitbucket Server API GET ${BRANCHES_PATH}: 401 Authentication failed. Please check your credentials and try ` +
        'again.: Bitbucket Server rejected the credentials of Secret foo/bitbucket',
    );
    const basic = await rejection(
      subject.open({ username: 'promoter', password: 'pa55word-wrong' }).branchHead('main'),
      subject.host,
    );
    assert.match(basic.message, /rejected the credentials of Secret foo\/bitbucket/);
    assert.doesNotMatch(`${error.message} ${basic.message}`, /4711|pa55word/);
  });

  it('says which permission is missing when valid credentials may not write (401 or 403)', async () => {
    const { fake } = subject;
    fake.addToken('read-only-token', { permission: 'REPO_READ' });
    const error = await rejection(
      subject.open({ token: 'read-only-token' }).writeBranch(writeOf(main, '1.0.0')),
      subject.host,
    );
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /^Bitbucket Server API POST \/rest\/branch-utils\/1\.0\/projects\/ACME\/repos\/fleet\/branches: 401 /,
    );
    assert.match(error.message, /Secret foo\/bitbucket need write permission on the repository \(REPO_WRITE/);
    fake.failNext(403, { message: 'This instance has exceeded its licensed user count' });
    const forbidden = await rejection(subject.open().branchHead('main'), subject.host);
    assert.equal(forbidden.retryable, false);
    assert.match(forbidden.message, /403 This instance has exceeded its licensed user count: .*REPO_WRITE/);
  });

  it('says a repository it cannot see may not exist', async () => {
    const error = await rejection(
      subject.open(undefined, `${WEB_BASE_URL}/projects/ACME/repos/nope/browse`).branchHead('main'),
      subject.host,
    );
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /GET \/rest\/api\/1\.0\/projects\/ACME\/repos\/nope\/branches: 404 Repository ACME\/nope does not exist\.: it does not exist, or the credentials of Secret foo\/bitbucket cannot see it$/,
    );
  });

  it('retries 5xx answers and dropped connections, then gives up with a retryable error naming the request', async () => {
    const { fake } = subject;
    fake.resetRequests();
    fake.failNext(502, { times: 2 });
    fake.closeNext();
    assert.equal(await subject.open().branchHead('main'), main);
    assert.equal(fake.count(), 4);

    fake.failNext(500, { times: 4 });
    fake.resetRequests();
    const error = await rejection(subject.open().branchHead('main'), subject.host);
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, undefined);
    assert.match(error.message, new RegExp(`^Bitbucket Server API GET ${BRANCHES_PATH}: 500 Internal Server Error$`));
    assert.equal(fake.count(), 4, 'the first try and three retries');
  });

  it('gives up on a request that is never answered, retryable', async () => {
    const slow = await start({}, { requestTimeoutMs: 50, retries: 1 });
    try {
      slow.fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, FLEET);
      slow.fake.hangNext({ times: 2 });
      const error = await rejection(slow.open().branchHead('main'), slow.host);
      assert.equal(error.retryable, true);
      assert.equal(error.message, `Bitbucket Server API GET ${BRANCHES_PATH}: no answer within 50 ms`);
    } finally {
      await slow.fake.stop();
    }
  });

  it("waits out a short rate limit, and ends the call on a long one with Bitbucket's wait", async () => {
    const { fake } = subject;
    const warnings: Record<string, unknown>[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (_: string, a?: Record<string, unknown>) => void warnings.push(a ?? {}),
    };
    const host = bitbucketServerHost({ ...FAST, retryAfterUnitMs: 5, maxRateLimitWaitMs: 1000, logger });
    const open = () => host.open(addressOf(REPOSITORY_URL), fake.url, SECRET, { token: fake.token });
    fake.resetRequests();
    fake.rateLimitNext({ retryAfterSeconds: 2 });
    assert.equal(await open().branchHead('main'), main);
    assert.equal(fake.count(), 2);
    assert.deepEqual(warnings[0], {
      request: `GET ${BRANCHES_PATH}`,
      retryAfterSeconds: 2,
      retrying: true,
    });

    fake.resetRequests();
    fake.rateLimitNext({ retryAfterSeconds: 600 });
    const started = Date.now();
    const error = await rejection(open().branchHead('main'), host);
    assert.ok(Date.now() - started < 1000, 'no waiting inside the call');
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 600_000);
    assert.match(error.message, /429 You have been rate limited.*\(rate limited\)$/);
    assert.equal(fake.count(), 1);
    assert.doesNotMatch(JSON.stringify(warnings), new RegExp(fake.token));
  });

  it('fails for good when the API URL answers something other than Bitbucket', async () => {
    const host = bitbucketServerHost({
      ...FAST,
      fetch: () => Promise.resolve(new Response('<html>Sign in</html>', { headers: { 'content-type': 'text/html' } })),
    });
    const repository = host.open(addressOf(REPOSITORY_URL), 'https://sso.example.com', SECRET, { token: 't' });
    const error = await rejection(repository.branchHead('main'), host);
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /^Bitbucket Server API GET \/rest\/api\/1\.0\/projects\/ACME\/repos\/fleet\/branches: the answer is not JSON \(text\/html\); is the API URL/,
    );
  });
});

describe('Bitbucket Server adapter: repository addresses', () => {
  it('promotes in a personal repository, below a context path', async () => {
    const subject = await start({ contextPath: '/bitbucket' });
    try {
      const { fake } = subject;
      const head = fake.createRepository('~jdoe', 'fleet', FLEET);
      const url = `${WEB_BASE_URL}/bitbucket/users/jdoe/repos/fleet/browse`;
      const address = addressOf(url);
      assert.equal(address.apiUrl, `${WEB_BASE_URL}/bitbucket`);
      const repository = subject.open(undefined, url);
      assert.equal(await repository.branchHead('main'), head);
      assert.equal((await repository.listFiles(head)).length, Object.keys(FLEET).length);
      await repository.writeBranch(writeOf(head, '2.0.0'));
      assert.equal(
        await repository.openOrUpdatePullRequest(pullRequestOf('2.0.0')),
        `${WEB_BASE_URL}/users/jdoe/repos/fleet/pull-requests/1`,
      );
      assert.ok(fake.requests.every((request) => request.path.includes('/projects/~jdoe/repos/fleet')));
    } finally {
      await subject.fake.stop();
    }
  });
});
