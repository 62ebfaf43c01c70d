// The Azure DevOps adapter (lib/promotion/azure-devops) against the fake Azure DevOps: credentials from the Secret,
// each HostRepository method, convergence under concurrent identical calls, and what each of Azure's failures becomes
// (retried inside the call, waited out, or a PromotionError that says what to fix, never showing the token).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { repositoryAddress, type AzureDevOpsAddress } from '../../lib/pipeline/repository-address.js';
import { azureDevOpsHost } from '../../lib/promotion/azure-devops/index.js';
import { PromotionError } from '../../lib/promotion/port.js';
import { gitBlobId } from '../../lib/promotion/pull-request/git-blob-id.js';
import type {
  BranchWrite,
  FileChange,
  GitHost,
  GitHostSettings,
  HostRepository,
} from '../../lib/promotion/pull-request/host.js';
import { FakeAzureDevOps } from '../../lib/testing/fake-azure-devops.js';
import { FAST, ORGANIZATION, PROJECT, REPOSITORY, REPOSITORY_URL, WEB_HOST } from './azure-devops-support.js';

const SECRET = { namespace: 'foo', name: 'azure-credentials' };
const BRANCH = 'promotion-foo-bar-prod';
const AUTHOR = { name: 'Promotion Server', email: 'promotion-server@pipeline-controller.invalid' };
const FILES: Record<string, string> = {
  'README.md': '# fleet\n',
  'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
  'apps/prod/values.yml': 'image:\r\n  tag: 6.9.1 # {"$promotion": "foo:bar:prod"}\r\n',
  'apps/prod/notes.yaml': '# Überblick: café ☕\nversion: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
};

function address(url = REPOSITORY_URL): AzureDevOpsAddress {
  const located = repositoryAddress('azure-devops', url);
  assert.ok(located.ok && located.address.type === 'azure-devops');
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

async function rejection(promise: Promise<unknown>, host: GitHost): Promise<PromotionError> {
  try {
    await promise;
  } catch (error) {
    return host.toPromotionError(error, SECRET);
  }
  assert.fail('the call succeeded');
}

describe('Azure DevOps adapter: credentials', () => {
  const host = azureDevOpsHost(FAST);

  it('needs a token (or a password holding one), naming the Secret and the keys but never a value', () => {
    const cases: Record<string, string>[] = [{}, { token: '  ' }, { username: 'someone', password: '' }];
    for (const values of cases) {
      assert.throws(
        () => host.open(address(), 'https://dev.azure.com/acme', SECRET, values),
        (error: unknown) =>
          error instanceof PromotionError &&
          !error.retryable &&
          error.message.includes('Secret foo/azure-credentials') &&
          error.message.includes('"token"') &&
          error.message.includes('Code (Read & write)') &&
          !error.message.includes('someone'),
      );
    }
    assert.match(host.neededKeys, /"token".*personal access token/);
  });

  it('refuses an address of another host type', () => {
    const gitlab = repositoryAddress('gitlab', 'https://gitlab.com/acme/fleet');
    assert.ok(gitlab.ok);
    assert.throws(() => host.open(gitlab.address, 'https://gitlab.com/api/v4', SECRET, { token: 't' }), PromotionError);
  });
});

describe('Azure DevOps adapter: reading', () => {
  let fake: FakeAzureDevOps;
  let repo: HostRepository;
  let base: string;

  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: ORGANIZATION, webHost: WEB_HOST });
    base = fake.createRepository(PROJECT, REPOSITORY, FILES);
    fake.commitFiles(PROJECT, REPOSITORY, 'main-old', { 'README.md': 'old\n' });
    repo = azureDevOpsHost(FAST).open(address(), fake.url, SECRET, { token: fake.token });
  });
  after(() => fake.stop());

  it("gives a branch's head, matching the name exactly (Azure's filter is a prefix)", async () => {
    assert.equal(await repo.branchHead('main'), base);
    assert.equal(await repo.branchHead('main-old'), fake.ref(PROJECT, REPOSITORY, 'main-old'));
    assert.equal(await repo.branchHead('mai'), undefined);
    assert.equal(await repo.branchHead('nope'), undefined);
  });

  it("lists every regular file of a commit with git's blob ids, and reads a file's UTF-8 text", async () => {
    const files = await repo.listFiles(base);
    assert.deepEqual(
      Object.fromEntries(files.map((file) => [file.path, file.blobId])),
      Object.fromEntries(Object.entries(FILES).map(([path, text]) => [path, gitBlobId(text)])),
    );
    const notes = files.find((file) => file.path === 'apps/prod/notes.yaml') ?? assert.fail('no notes.yaml');
    assert.equal(await repo.readFile(notes, base), FILES['apps/prod/notes.yaml']);
  });

  it('learns the routes with one OPTIONS discovery per client, sending the PAT on every request', async () => {
    fake.resetRequests();
    const host = azureDevOpsHost(FAST);
    const first = host.open(address(), fake.url, SECRET, { token: fake.token });
    await first.branchHead('main');
    await first.listFiles(base);
    // Another promotion with the same Secret reuses the client and what it learnt.
    await host.open(address(), fake.url, SECRET, { token: fake.token }).branchHead('main');
    assert.deepEqual(fake.countsByRoute(), { 'OPTIONS _apis/{area}': 1, 'GET refs': 2, 'GET items': 1 });
    assert.ok(fake.requests.every((request) => request.auth === 'pat'));
  });

  it('says an unknown repository does not exist or cannot be seen, naming the method, path and Secret', async () => {
    const host = azureDevOpsHost(FAST);
    const unknown = host.open(
      address(`https://dev.azure.com/acme/${encodeURIComponent(PROJECT)}/_git/nope`),
      fake.url,
      SECRET,
      { token: fake.token },
    );
    const error = await rejection(unknown.branchHead('main'), host);
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /^Azure DevOps API GET \/acme\/Platform%20Team\/_apis\/git\/repositories\/nope\/refs: 404 /,
    );
    assert.match(error.message, /TF401019/);
    assert.match(error.message, /does not exist, or the credentials of Secret foo\/azure-credentials cannot see it/);
  });
});

describe('Azure DevOps adapter: writing the branch', () => {
  let fake: FakeAzureDevOps;
  let host: GitHost;
  let repo: HostRepository;
  let base: string;

  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: ORGANIZATION, webHost: WEB_HOST });
    base = fake.createRepository(PROJECT, REPOSITORY, FILES);
    host = azureDevOpsHost(FAST);
    repo = host.open(address(), fake.url, SECRET, { token: fake.token });
  });
  after(() => fake.stop());
  beforeEach(() => fake.resetRequests());

  it('creates the branch as the base plus one commit with every change, by the author', async () => {
    const write = branchWrite(base, '7.0.0');
    await repo.writeBranch(write);
    const head = fake.ref(PROJECT, REPOSITORY, BRANCH) ?? assert.fail('no branch');
    const commit = fake.commit(PROJECT, REPOSITORY, head);
    assert.deepEqual(commit?.parents, [base]);
    assert.deepEqual(
      [commit?.author.name, commit?.author.email, commit?.message],
      [AUTHOR.name, AUTHOR.email, 'promoting version'],
    );
    const files = fake.files(PROJECT, REPOSITORY, BRANCH);
    for (const changed of write.changes) assert.equal(files[changed.path], changed.content, changed.path);
    assert.equal(files['apps/prod/notes.yaml'], FILES['apps/prod/notes.yaml']);
    assert.equal(fake.count('POST pushes'), 1, 'all files in one push');
  });

  it('leaves a branch that already holds the changes on the base alone', async () => {
    const head = fake.ref(PROJECT, REPOSITORY, BRANCH);
    await repo.writeBranch(branchWrite(base, '7.0.0'));
    assert.equal(fake.ref(PROJECT, REPOSITORY, BRANCH), head);
    assert.equal(fake.count('POST pushes') + fake.count('POST refs'), 0, 'nothing written');
  });

  it('resets a branch holding anything else onto the base, with one new commit', async () => {
    fake.commitFiles(PROJECT, REPOSITORY, BRANCH, { 'stray.txt': 'a person pushed this\n' });
    const newBase = fake.commitFiles(PROJECT, REPOSITORY, 'main', { 'docs/new.md': 'on main\n' });
    await repo.writeBranch(branchWrite(newBase, '7.0.1'));
    const head = fake.ref(PROJECT, REPOSITORY, BRANCH) ?? '';
    assert.deepEqual(fake.commit(PROJECT, REPOSITORY, head)?.parents, [newBase]);
    assert.equal(fake.commitsAhead(PROJECT, REPOSITORY, BRANCH), 1);
    const files = fake.files(PROJECT, REPOSITORY, BRANCH);
    assert.equal(files['stray.txt'], undefined);
    assert.equal(files['docs/new.md'], 'on main\n');
    assert.match(files['apps/prod/podinfo.yaml'] ?? '', /version: 7.0.1/);
    base = newBase;
  });

  it('does not take a head with the same files but another parent, or an extra file, as done', async () => {
    // The same contents one commit further: not "the base plus these changes".
    const write = branchWrite(base, '7.0.2');
    await repo.writeBranch(write);
    fake.commitFiles(PROJECT, REPOSITORY, BRANCH, { 'extra.txt': 'x\n' });
    await repo.writeBranch(write);
    assert.equal(fake.commitsAhead(PROJECT, REPOSITORY, BRANCH), 1);
    assert.equal(fake.files(PROJECT, REPOSITORY, BRANCH)['extra.txt'], undefined);
  });

  it('converges under 25 concurrent identical writes: one commit on the base', async () => {
    const write = branchWrite(base, '7.1.0');
    await Promise.all(Array.from({ length: 25 }, () => repo.writeBranch(write)));
    const head = fake.ref(PROJECT, REPOSITORY, BRANCH) ?? '';
    assert.deepEqual(fake.commit(PROJECT, REPOSITORY, head)?.parents, [base]);
    assert.equal(fake.commitsAhead(PROJECT, REPOSITORY, BRANCH), 1);
    assert.match(fake.files(PROJECT, REPOSITORY, BRANCH)['apps/prod/podinfo.yaml'] ?? '', /version: 7.1.0/);

    await Promise.all(Array.from({ length: 25 }, () => repo.writeBranch(branchWrite(base, '7.1.0', 'fresh-branch'))));
    assert.equal(fake.commitsAhead(PROJECT, REPOSITORY, 'fresh-branch'), 1);
  });

  it('says which permission is missing when Azure refuses to move the branch back (Force push)', async () => {
    fake.allowForcePush(PROJECT, REPOSITORY, false);
    try {
      const head = fake.ref(PROJECT, REPOSITORY, BRANCH);
      const error = await rejection(repo.writeBranch(branchWrite(base, '7.2.0')), host);
      assert.equal(error.retryable, false);
      assert.match(error.message, /ForcePushRequired/);
      assert.match(error.message, /Secret foo\/azure-credentials needs the "Force push/);
      assert.equal(fake.ref(PROJECT, REPOSITORY, BRANCH), head, 'nothing moved');
    } finally {
      fake.allowForcePush(PROJECT, REPOSITORY, true);
    }
  });
});

describe('Azure DevOps adapter: pull requests', () => {
  let fake: FakeAzureDevOps;
  let repo: HostRepository;
  const body = '<details>\n<summary>Promotion of foo/bar in prod</summary>\n\n```\nfoo:bar:prod\n```\n</details>';

  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: ORGANIZATION, webHost: WEB_HOST });
    const base = fake.createRepository(PROJECT, REPOSITORY, FILES);
    repo = azureDevOpsHost(FAST).open(address(), fake.url, SECRET, { token: fake.token });
    await repo.writeBranch(branchWrite(base, '7.0.0'));
  });
  after(() => fake.stop());

  it('opens a pull request and gives its web page', async () => {
    const url = await repo.openOrUpdatePullRequest({ branch: BRANCH, base: 'main', title: 'Promote 7.0.0', body });
    assert.equal(url, 'https://dev.azure.com/acme/Platform%20Team/_git/fleet/pullrequest/1');
    const [pull] = fake.pullRequests(PROJECT, REPOSITORY);
    assert.deepEqual(
      [pull?.title, pull?.description, pull?.source, pull?.target, pull?.status],
      ['Promote 7.0.0', body, BRANCH, 'main', 'active'],
    );
  });

  it('retitles the active one rather than opening a second, also under 30 concurrent calls', async () => {
    const urls = await Promise.all(
      Array.from({ length: 30 }, () =>
        repo.openOrUpdatePullRequest({ branch: BRANCH, base: 'main', title: 'Promote 7.0.1', body }),
      ),
    );
    assert.deepEqual(new Set(urls), new Set(['https://dev.azure.com/acme/Platform%20Team/_git/fleet/pullrequest/1']));
    const pulls = fake.pullRequests(PROJECT, REPOSITORY);
    assert.equal(pulls.length, 1);
    assert.equal(pulls[0]?.title, 'Promote 7.0.1');
  });

  it('lists the pull requests from a branch newest first, with their states', async () => {
    fake.merge(PROJECT, REPOSITORY, 1);
    const second = await repo.openOrUpdatePullRequest({ branch: BRANCH, base: 'main', title: 'Promote 7.0.2', body });
    fake.abandon(PROJECT, REPOSITORY, 2);
    const third = await repo.openOrUpdatePullRequest({ branch: BRANCH, base: 'main', title: 'Promote 7.0.3', body });
    assert.deepEqual(await repo.pullRequestsFrom(BRANCH), [
      { url: third, title: 'Promote 7.0.3', state: 'open', base: 'main' },
      { url: second, title: 'Promote 7.0.2', state: 'closed', base: 'main' },
      {
        url: 'https://dev.azure.com/acme/Platform%20Team/_git/fleet/pullrequest/1',
        title: 'Promote 7.0.1',
        state: 'merged',
        base: 'main',
      },
    ]);
    assert.deepEqual(await repo.pullRequestsFrom('other-branch'), []);
  });
});

describe("Azure DevOps adapter: what Azure's failures become", () => {
  let fake: FakeAzureDevOps;
  let base: string;
  const open = (settings: GitHostSettings = {}, token = fake.token) => {
    const host = azureDevOpsHost({ ...FAST, ...settings });
    return { host, repo: host.open(address(), fake.url, SECRET, { token }) };
  };

  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: ORGANIZATION, webHost: WEB_HOST });
    base = fake.createRepository(PROJECT, REPOSITORY, FILES);
  });
  after(() => fake.stop());
  beforeEach(() => {
    fake.clearFaults();
    fake.resetRequests();
  });

  it('fails for good on a rejected token, naming the Secret and the scope, never the token', async () => {
    const token = 'not-a-valid-token-4711';
    const { host, repo } = open({}, token);
    const error = await rejection(repo.branchHead('main'), host);
    assert.equal(error.retryable, false);
    assert.match(error.message, /^Azure DevOps API OPTIONS \/acme\/_apis\/git: 401 TF400813/);
    assert.match(error.message, /Azure DevOps rejected the credentials of Secret foo\/azure-credentials/);
    assert.match(error.message, /Code \(Read & write\)/);
    assert.doesNotMatch(error.message, new RegExp(token));
    assert.equal(fake.count(), 1, 'a 401 is not retried');
  });

  it('says which scope and permissions are needed on a 403', async () => {
    const { host, repo } = open();
    await repo.branchHead('main');
    fake.failNext(403, {
      route: 'POST pushes',
      message: "TF401027: You need the Git 'GenericContribute' permission to perform this action.",
    });
    const error = await rejection(repo.writeBranch(branchWrite(base, '9.0.0', 'denied')), host);
    assert.equal(error.retryable, false);
    assert.match(
      error.message,
      /^Azure DevOps API POST \/acme\/Platform%20Team\/_apis\/git\/repositories\/fleet\/pushes: 403 TF401027/,
    );
    assert.match(error.message, /Secret foo\/azure-credentials needs the Code \(Read & write\) scope/);
    assert.match(error.message, /Contribute/);
  });

  it('retries 5xx answers and dropped connections inside the call', async () => {
    const { repo } = open();
    fake.failNext(503, { times: 2 });
    fake.closeNext({ route: 'GET refs' });
    assert.equal(await repo.branchHead('main'), base);
    assert.deepEqual(
      fake.requests.map((request) => request.status),
      [503, 503, 200, undefined, 200],
      'discovery retried twice, then the refs once',
    );
    // A push is retried too: the retried push either lands or finds the branch already written.
    fake.failNext(502, { route: 'POST pushes' });
    await repo.writeBranch(branchWrite(base, '9.0.1', 'retried'));
    assert.equal(fake.commitsAhead(PROJECT, REPOSITORY, 'retried'), 1);
  });

  it('ends the call with a retryable error naming the method and path once the retries are spent', async () => {
    const { host, repo } = open({ retries: 2 });
    fake.failNext(500, { times: 3 });
    const error = await rejection(repo.branchHead('main'), host);
    assert.equal(error.retryable, true);
    assert.match(error.message, /^Azure DevOps API OPTIONS \/acme\/_apis\/git: 500 /);
    assert.equal(fake.count(), 3);
  });

  it('times out a request that is never answered, and retries it', async () => {
    const { host, repo } = open({ requestTimeoutMs: 100, retries: 1 });
    fake.hangNext({ times: 2 });
    const error = await rejection(repo.branchHead('main'), host);
    assert.equal(error.retryable, true);
    assert.match(error.message, /^Azure DevOps API OPTIONS \/acme\/_apis\/git: no answer: Request timeout/);
    assert.equal(fake.count(), 2);
  });

  it("waits out a short rate limit by Azure's Retry-After, and ends the call on a long one with its wait", async () => {
    const { host, repo } = open({ retryAfterUnitMs: 5, maxRateLimitWaitMs: 100 });
    await repo.branchHead('main');
    fake.rateLimitNext({ retryAfterSeconds: 4 });
    const started = Date.now();
    assert.equal(await repo.branchHead('main'), base);
    assert.ok(Date.now() - started >= 18, 'waited 4 × 5 ms');
    assert.equal(fake.count('GET refs'), 3);

    fake.rateLimitNext({ retryAfterSeconds: 120 });
    const error = await rejection(repo.branchHead('main'), host);
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 120_000);
    assert.match(error.message, /429 TF400733.*\(rate limit\)$/);
  });

  it('refuses an API URL that is not an Azure DevOps collection', async () => {
    const host = azureDevOpsHost(FAST);
    const repo = host.open(address(), `${fake.url.replace(/\/acme$/, '')}/other`, SECRET, { token: fake.token });
    const error = await rejection(repo.branchHead('main'), host);
    assert.equal(error.retryable, false);
    assert.match(error.message, /^Azure DevOps API OPTIONS \/other\/_apis\/git: 404 /);
  });
});
