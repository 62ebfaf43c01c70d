// The fake Azure DevOps itself, driven by the real azure-devops-node-api GitApi (its VsoClient's resource location
// discovery, typed-rest-client underneath, PAT authentication): refs, the recursive item listing, blobs, pushes with
// Azure's stale-ref refusal, ref updates with their per-ref results, pull requests with Azure's one-active rule,
// errors in Azure's JSON shape, and the fault injection and request log the other tests rely on.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { GitApi } from 'azure-devops-node-api/GitApi.js';
import { PersonalAccessTokenCredentialHandler } from 'azure-devops-node-api/handlers/personalaccesstoken.js';
import {
  GitObjectType,
  GitRefUpdateStatus,
  GitVersionType,
  ItemContentType,
  PullRequestStatus,
  VersionControlChangeType,
  VersionControlRecursionType,
  type GitPush,
} from 'azure-devops-node-api/interfaces/GitInterfaces.js';
import { FakeAzureDevOps } from '../../lib/testing/fake-azure-devops.js';
import { gitBlobSha } from '../../lib/testing/git-repository.js';

const PROJECT = 'Platform Team';
const REPO = 'fleet';
const FILES: Record<string, string> = {
  'README.md': '# fleet\n',
  'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n',
  'apps/prod/values.yml': 'image:\r\n  tag: 1.2.3\r\n',
  'docs/café.md': 'Überblick ☕\n',
};
const AUTHOR = { name: 'Promotion Server', email: 'promotion-server@pipeline-controller.invalid' };

function gitApi(fake: FakeAzureDevOps, token = fake.token, socketTimeout = 5000): GitApi {
  return new GitApi(fake.url, [new PersonalAccessTokenCredentialHandler(token)], { socketTimeout });
}

/** The error a GitApi call rejects with: typed-rest-client's Error with Azure's message and the status. */
async function failure(call: Promise<unknown>): Promise<Error & { statusCode?: number; result?: unknown }> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof Error, `an Error, not ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

function editPush(branch: string, oldObjectId: string, files: Record<string, string>, base64 = false): GitPush {
  return {
    refUpdates: [{ name: `refs/heads/${branch}`, oldObjectId }],
    commits: [
      {
        comment: 'promoting version',
        author: { ...AUTHOR, date: new Date('2024-05-01T12:00:00Z') },
        changes: Object.entries(files).map(([path, content]) => ({
          changeType: VersionControlChangeType.Edit,
          item: { path: `/${path}` },
          newContent: base64
            ? { content: Buffer.from(content, 'utf8').toString('base64'), contentType: ItemContentType.Base64Encoded }
            : { content, contentType: ItemContentType.RawText },
        })),
      },
    ],
  };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

describe('fake Azure DevOps through GitApi: discovery, authentication and errors', () => {
  let fake: FakeAzureDevOps;

  before(async () => {
    fake = await FakeAzureDevOps.start();
    fake.createRepository(PROJECT, REPO, FILES);
  });
  after(() => fake.stop());
  beforeEach(() => fake.resetRequests());

  it('answers the OPTIONS location discovery once per client, then routes by its templates and versions', async () => {
    const api = gitApi(fake);
    const refs = await api.getRefs(REPO, PROJECT, 'heads/main');
    assert.equal(refs[0]?.name, 'refs/heads/main');
    await api.getRefs(REPO, PROJECT, 'heads/main');
    assert.deepEqual(
      fake.requests.map((request) => [request.method, request.path, request.route]),
      [
        ['OPTIONS', '/acme/_apis/git', 'OPTIONS _apis/{area}'],
        ['GET', `/acme/${PROJECT}/_apis/git/repositories/${REPO}/refs`, 'GET refs'],
        ['GET', `/acme/${PROJECT}/_apis/git/repositories/${REPO}/refs`, 'GET refs'],
      ],
    );
    // The client asked for the version the location offers, in the Accept header.
    assert.equal(fake.requests[1]?.apiVersion, '7.2-preview.2');
    assert.equal(fake.requests[1]?.auth, 'pat');
    assert.deepEqual(fake.countsByRoute(), { 'OPTIONS _apis/{area}': 1, 'GET refs': 2 });
  });

  it('describes the Git resources with ApiResourceLocation fields, and no others for another area', async () => {
    const auth = `Basic ${Buffer.from(`:${fake.token}`).toString('base64')}`;
    const git = await fetch(`${fake.url}/_apis/git`, { method: 'OPTIONS', headers: { authorization: auth } });
    const body = (await git.json()) as { count: number; value: Record<string, unknown>[] };
    const pushes = body.value.find((location) => location.resourceName === 'pushes');
    assert.deepEqual(pushes, {
      id: 'ea98d07b-3c87-4971-8ede-a613694ffb55',
      area: 'git',
      resourceName: 'pushes',
      routeTemplate: '{project}/_apis/{area}/repositories/{repositoryId}/{resource}/{pushId}',
      routeName: 'git-pushes',
      resourceVersion: 3,
      minVersion: '1.0',
      maxVersion: '7.2',
      releasedVersion: '7.1',
    });
    const other = await fetch(`${fake.url}/_apis/wit`, { method: 'OPTIONS', headers: { authorization: auth } });
    assert.deepEqual(await other.json(), { count: 0, value: [] });
  });

  it('answers 401 in Azure shape for a token it does not take, and a browser without credentials the sign-in page', async () => {
    const rejected = await failure(gitApi(fake, 'not-a-token').getRefs(REPO, PROJECT, 'heads/main'));
    assert.equal(rejected.statusCode, 401);
    assert.match(rejected.message, /^TF400813: /);
    const browser = await fetch(`${fake.url}/${encodeURIComponent(PROJECT)}/_apis/git/repositories/${REPO}/refs`);
    assert.equal(browser.status, 203);
    assert.match(await browser.text(), /Sign In/);
  });

  it('answers an unknown repository or project with 404 and TF codes, which GitApi itself turns into null', async () => {
    const auth = `Basic ${Buffer.from(`:${fake.token}`).toString('base64')}`;
    const repo = await fetch(
      `${fake.url}/${encodeURIComponent(PROJECT)}/_apis/git/repositories/nope/refs?api-version=7.1`,
      {
        headers: { authorization: auth },
      },
    );
    assert.equal(repo.status, 404);
    assert.deepEqual(await repo.json(), {
      $id: '1',
      innerException: null,
      message:
        'TF401019: The Git repository with name or identifier nope does not exist or you do not have permissions ' +
        'for the operation you are attempting.',
      typeName:
        'Microsoft.TeamFoundation.Git.Server.GitRepositoryNotFoundException, Microsoft.TeamFoundation.Git.Server',
      typeKey: 'GitRepositoryNotFoundException',
      errorCode: 0,
      eventId: 3000,
    });
    const project = await fetch(`${fake.url}/Nope/_apis/git/repositories/${REPO}/refs?api-version=7.1`, {
      headers: { authorization: auth },
    });
    assert.equal(project.status, 404);
    assert.match(((await project.json()) as { message: string }).message, /^TF200016: /);
    // typed-rest-client resolves any 404 with a null result: why the adapter has an HTTP client of its own.
    assert.equal(await gitApi(fake).getRefs('nope', PROJECT, 'heads/main'), null);
  });

  it('refuses a request without an api-version, or with a preview version not marked as one', async () => {
    const auth = `Basic ${Buffer.from(`:${fake.token}`).toString('base64')}`;
    const path = `${fake.url}/${encodeURIComponent(PROJECT)}/_apis/git/repositories/${REPO}/refs`;
    const none = await fetch(path, { headers: { authorization: auth } });
    assert.equal(none.status, 400);
    assert.equal(((await none.json()) as { typeKey: string }).typeKey, 'VssVersionNotSpecifiedException');
    const unmarked = await fetch(`${path}?api-version=7.2`, { headers: { authorization: auth } });
    assert.equal(((await unmarked.json()) as { typeKey: string }).typeKey, 'VssInvalidPreviewVersionException');
    const released = await fetch(`${path}?api-version=7.1`, { headers: { authorization: auth } });
    assert.equal(released.status, 200);
  });
});

describe('fake Azure DevOps through GitApi: reading and writing the repository', () => {
  let fake: FakeAzureDevOps;
  let api: GitApi;
  let base: string;

  before(async () => {
    fake = await FakeAzureDevOps.start();
    base = fake.createRepository(PROJECT, REPO, FILES);
    fake.commitFiles(PROJECT, REPO, 'main-old', { 'README.md': 'old\n' });
    api = gitApi(fake);
  });
  after(() => fake.stop());

  it('filters refs by prefix below refs/', async () => {
    const refs = await api.getRefs(REPO, PROJECT, 'heads/main');
    assert.deepEqual(
      refs.map((ref) => [ref.name, ref.objectId]),
      [
        ['refs/heads/main', base],
        ['refs/heads/main-old', fake.ref(PROJECT, REPO, 'main-old')],
      ],
    );
  });

  it("lists every item of a commit with git's blob ids, and serves a blob's bytes", async () => {
    const items = await api.getItems(
      REPO,
      PROJECT,
      '/',
      VersionControlRecursionType.Full,
      undefined,
      undefined,
      undefined,
      undefined,
      { version: base, versionType: GitVersionType.Commit },
    );
    const blobs = items.filter((item) => item.gitObjectType === GitObjectType.Blob);
    assert.deepEqual(
      Object.fromEntries(blobs.map((item) => [item.path, item.objectId])),
      Object.fromEntries(Object.entries(FILES).map(([path, text]) => [`/${path}`, gitBlobSha(text)])),
    );
    assert.ok(items.some((item) => item.path === '/apps/prod' && item.isFolder));
    const cafe = blobs.find((item) => item.path === '/docs/café.md');
    const bytes = await readAll(await api.getBlobContent(REPO, cafe?.objectId ?? '', PROJECT));
    assert.equal(bytes.toString('utf8'), FILES['docs/café.md']);
  });

  it('creates a branch with one commit on the base, authored as asked, and refuses a stale push with TF401028', async () => {
    const pushed = await api.createPush(
      editPush('promotion-a', base, { 'apps/prod/podinfo.yaml': 'version: 7\n', 'README.md': '# fleet ☕\n' }),
      REPO,
      PROJECT,
    );
    const head = pushed.commits?.[0]?.commitId ?? assert.fail('no commit');
    assert.equal(fake.ref(PROJECT, REPO, 'promotion-a'), head);
    const commit = fake.commit(PROJECT, REPO, head);
    assert.deepEqual(commit?.parents, [base]);
    assert.deepEqual(commit?.author, { ...AUTHOR, date: '2024-05-01T12:00:00Z' });
    assert.equal(fake.files(PROJECT, REPO, 'promotion-a')['README.md'], '# fleet ☕\n');
    assert.equal(fake.files(PROJECT, REPO, 'main')['README.md'], FILES['README.md'], 'main untouched');

    const changes = await api.getCommit(head, REPO, PROJECT, 100);
    assert.deepEqual(
      changes.changes?.map((change) => [change.item?.path, change.changeType, change.item?.objectId]),
      [
        ['/README.md', VersionControlChangeType.Edit, gitBlobSha('# fleet ☕\n')],
        ['/apps/prod/podinfo.yaml', VersionControlChangeType.Edit, gitBlobSha('version: 7\n')],
      ],
    );

    const stale = await failure(api.createPush(editPush('promotion-a', base, { 'README.md': 'x\n' }), REPO, PROJECT));
    assert.equal(stale.statusCode, 409);
    assert.match(stale.message, /^TF401028: The reference 'refs\/heads\/promotion-a' has already been updated/);
    assert.equal((stale.result as { typeKey?: string }).typeKey, 'GitReferenceStaleException');
    assert.equal(fake.ref(PROJECT, REPO, 'promotion-a'), head, 'nothing moved');
  });

  it('writes base64 content byte for byte, and raw text keeping the edited file its byte order mark', async () => {
    const bom = fake.commitFiles(PROJECT, REPO, 'bom', { 'bom.yaml': '\uFEFFversion: 1\n' });
    await api.createPush(editPush('bom', bom, { 'bom.yaml': 'version: 2\n' }), REPO, PROJECT);
    assert.deepEqual(
      fake.fileBytes(PROJECT, REPO, 'bom', 'bom.yaml'),
      Buffer.from('\uFEFFversion: 2\n', 'utf8'),
      'raw text keeps the BOM',
    );
    const head = fake.ref(PROJECT, REPO, 'bom') ?? '';
    await api.createPush(editPush('bom', head, { 'bom.yaml': 'version: 3\r\n' }, true), REPO, PROJECT);
    assert.deepEqual(fake.fileBytes(PROJECT, REPO, 'bom', 'bom.yaml'), Buffer.from('version: 3\r\n'));
  });

  it('moves a ref with updateRefs when its old id holds, and says why per ref when not', async () => {
    const head = fake.commitFiles(PROJECT, REPO, 'moving', { 'README.md': 'moving\n' });
    const stale = await api.updateRefs(
      [{ name: 'refs/heads/moving', oldObjectId: base, newObjectId: base }],
      REPO,
      PROJECT,
    );
    assert.deepEqual([stale[0]?.success, stale[0]?.updateStatus], [false, GitRefUpdateStatus.StaleOldObjectId]);

    fake.allowForcePush(PROJECT, REPO, false);
    const denied = await api.updateRefs(
      [{ name: 'refs/heads/moving', oldObjectId: head, newObjectId: base }],
      REPO,
      PROJECT,
    );
    assert.deepEqual([denied[0]?.success, denied[0]?.updateStatus], [false, GitRefUpdateStatus.ForcePushRequired]);
    assert.equal(fake.ref(PROJECT, REPO, 'moving'), head);

    fake.allowForcePush(PROJECT, REPO, true);
    const moved = await api.updateRefs(
      [{ name: 'refs/heads/moving', oldObjectId: head, newObjectId: base }],
      REPO,
      PROJECT,
    );
    assert.deepEqual([moved[0]?.success, moved[0]?.updateStatus], [true, GitRefUpdateStatus.Succeeded]);
    assert.equal(fake.ref(PROJECT, REPO, 'moving'), base);
  });
});

describe('fake Azure DevOps through GitApi: pull requests', () => {
  let fake: FakeAzureDevOps;
  let api: GitApi;

  before(async () => {
    fake = await FakeAzureDevOps.start({ collection: 'acme', webHost: 'dev.azure.com' });
    fake.createRepository(PROJECT, REPO, FILES);
    fake.commitFiles(PROJECT, REPO, 'promotion-a', { 'README.md': 'a\n' });
    api = gitApi(fake);
  });
  after(() => fake.stop());

  it('opens one active pull request per source and target, refusing a second with 409 TF401179', async () => {
    const body = '<details>\n<summary>Promotion</summary>\n\nfoo/bar in prod\n</details>';
    const created = await api.createPullRequest(
      { sourceRefName: 'refs/heads/promotion-a', targetRefName: 'refs/heads/main', title: 'first', description: body },
      REPO,
      PROJECT,
    );
    assert.equal(created.status, PullRequestStatus.Active);
    assert.equal(created.title, 'first');
    assert.equal(created.description, body);
    assert.match(created.url ?? '', /\/_apis\/git\/repositories\/[0-9a-f-]+\/pullRequests\/1$/);
    const [pull] = fake.pullRequests(PROJECT, REPO);
    assert.equal(pull?.webUrl, 'https://dev.azure.com/acme/Platform%20Team/_git/fleet/pullrequest/1');

    const again = await failure(
      api.createPullRequest(
        { sourceRefName: 'refs/heads/promotion-a', targetRefName: 'refs/heads/main', title: 'second' },
        REPO,
        PROJECT,
      ),
    );
    assert.equal(again.statusCode, 409);
    assert.match(again.message, /^TF401179: /);
    assert.equal(fake.pullRequests(PROJECT, REPO).length, 1);
  });

  it('lists by source and status newest first, retitles, and completes with a merge commit on the target', async () => {
    const source = { sourceRefName: 'refs/heads/promotion-a' };
    const [active] = await api.getPullRequests(REPO, { ...source, status: PullRequestStatus.Active }, PROJECT);
    const id = active?.pullRequestId ?? assert.fail('no active pull request');
    await api.updatePullRequest({ title: 'retitled' }, REPO, id, PROJECT);
    const sourceHead = fake.ref(PROJECT, REPO, 'promotion-a');
    const mainBefore = fake.ref(PROJECT, REPO, 'main');
    const merge = fake.merge(PROJECT, REPO, id);
    assert.deepEqual(fake.commit(PROJECT, REPO, merge)?.parents, [mainBefore, sourceHead]);
    assert.equal(fake.commit(PROJECT, REPO, merge)?.message, `Merged PR ${id}: retitled`);
    assert.equal(fake.files(PROJECT, REPO, 'main')['README.md'], 'a\n');

    await api.createPullRequest(
      { sourceRefName: 'refs/heads/promotion-a', targetRefName: 'refs/heads/main', title: 'next' },
      REPO,
      PROJECT,
    );
    const all = await api.getPullRequests(REPO, { ...source, status: PullRequestStatus.All }, PROJECT);
    assert.deepEqual(
      all.map((pull) => [pull.title, pull.status]),
      [
        ['next', PullRequestStatus.Active],
        ['retitled', PullRequestStatus.Completed],
      ],
    );
    assert.deepEqual(await api.getPullRequests(REPO, { sourceRefName: 'refs/heads/other' }, PROJECT), []);
  });
});

describe('fake Azure DevOps: faults, latency and the request log', () => {
  let fake: FakeAzureDevOps;

  before(async () => {
    fake = await FakeAzureDevOps.start();
    fake.createRepository(PROJECT, REPO, FILES);
  });
  after(() => fake.stop());
  beforeEach(() => {
    fake.clearFaults();
    fake.resetRequests();
  });

  it('answers the next matching requests with a status, then normally', async () => {
    const api = gitApi(fake);
    await api.getRefs(REPO, PROJECT, 'heads/main'); // discovery first, so the fault hits the push
    fake.failNext(503, { route: 'POST pushes', times: 2 });
    const base = fake.ref(PROJECT, REPO, 'main') ?? '';
    const first = await failure(api.createPush(editPush('faulty', base, { 'README.md': 'x\n' }), REPO, PROJECT));
    assert.equal(first.statusCode, 503);
    assert.equal(
      (await failure(api.createPush(editPush('faulty', base, { 'README.md': 'x\n' }), REPO, PROJECT))).statusCode,
      503,
    );
    await api.createPush(editPush('faulty', base, { 'README.md': 'x\n' }), REPO, PROJECT);
    assert.equal(fake.count('POST pushes'), 3);
    assert.deepEqual(
      fake.requests.filter((request) => request.route === 'POST pushes').map((request) => request.status),
      [503, 503, 201],
    );
  });

  it('throttles as Azure does: 429 with Retry-After and X-RateLimit headers, which the client reads', async () => {
    const api = gitApi(fake);
    await api.getRefs(REPO, PROJECT, 'heads/main');
    fake.rateLimitNext({ retryAfterSeconds: 30 });
    const throttled = await failure(api.getRefs(REPO, PROJECT, 'heads/main'));
    assert.equal(throttled.statusCode, 429);
    assert.match(throttled.message, /^TF400733: /);
    const headers = (throttled as { responseHeaders?: Record<string, string> }).responseHeaders ?? {};
    assert.equal(headers['retry-after'], '30');
    assert.equal(headers['x-ratelimit-resource'], 'Core');
    const reset = Number(headers['x-ratelimit-reset']) - Math.floor(Date.now() / 1000);
    assert.ok(reset >= 28 && reset <= 31, `resets in ${reset} s`);
    assert.deepEqual((throttled as { rateLimit?: { retryAfter?: number } }).rateLimit?.retryAfter, 30);
  });

  it('drops a connection, or never answers until the client gives up', async () => {
    const api = gitApi(fake, fake.token, 200);
    await api.getRefs(REPO, PROJECT, 'heads/main');
    fake.closeNext();
    const dropped = await failure(api.getRefs(REPO, PROJECT, 'heads/main'));
    assert.match(dropped.message, /socket hang up|ECONNRESET/);
    fake.hangNext();
    const started = Date.now();
    const hung = await failure(api.getRefs(REPO, PROJECT, 'heads/main'));
    assert.match(hung.message, /Request timeout/);
    assert.ok(Date.now() - started >= 150);
    assert.equal(fake.requests.at(-1)?.status, undefined, 'logged without a status');
  });

  it('delays answers by the latency asked for', async () => {
    const api = gitApi(fake);
    await api.getRefs(REPO, PROJECT, 'heads/main');
    fake.latencyMs = (request) => (request.route === 'GET refs' ? 80 : 0);
    try {
      const started = Date.now();
      await api.getRefs(REPO, PROJECT, 'heads/main');
      assert.ok(Date.now() - started >= 75);
    } finally {
      fake.latencyMs = 0;
    }
  });
});
