// A ConfigSource's folder read from one archive of the commit (GitHub's tarball, GitLab's archive.tar.gz) instead of
// one request per file: a 500-file folder's first sync and a one-file change each cost a handful of Git requests; a
// host whose archive fails is read file by file as before; an archive over its cap is refused naming the cap; and the
// limits on what a commit may hold are kept as a file-by-file read keeps them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { applyConfiguration, type ApplyPorts } from '../../lib/apply/index.js';
import { MAX_FILE_BYTES } from '../../lib/config/limits.js';
import { MAX_SOURCE_BYTES } from '../../lib/config-source/repository.js';
import { syncConfigSource, type SyncDeps } from '../../lib/config-source/sync.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import { ARCHIVE_AFTER_READS } from '../../lib/promotion/pull-request/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { startGitLabUnderTest } from '../promotion/gitlab-support.js';
import {
  applyPorts,
  clusterYaml,
  configSourceYaml,
  hostSyncDeps,
  NS,
  pipelineYaml,
  SOURCE,
  sourceSecrets,
} from './fixtures.js';

const OWNER = 'acme';
const REPO = 'fleet';
const FILES = 500;
const BLOB_ROUTE = 'GET /repos/{owner}/{repo}/git/blobs/{file_sha}';
const TARBALL_ROUTE = 'GET /repos/{owner}/{repo}/tarball/{ref}';

const app = (index: number) => `app-${String(index).padStart(3, '0')}`;

/** The cluster and `count` pipelines, one file each, under `pipelines/`, beside a file of another folder. */
function folder(count: number): Record<string, string> {
  const files: Record<string, string> = {
    'pipelines/clusters.yaml': clusterYaml(),
    'apps/dev/helmrelease.yaml': 'kind: HelmRelease\n',
  };
  for (let i = 0; i < count; i++) files[`pipelines/apps/${app(i)}.yaml`] = pipelineYaml(app(i));
  return files;
}

describe('a ConfigSource read from one archive of the commit (GitHub)', () => {
  let github: FakeGitHub;
  let store: MemoryStore;
  let ports: ApplyPorts;
  let warnings: string[];

  afterEach(() => github.stop());

  beforeEach(async () => {
    github = await FakeGitHub.start();
    store = new MemoryStore();
    warnings = [];
    ports = applyPorts(store, sourceSecrets({ token: github.token }));
    const applied = await applyConfiguration(ports, {
      source: { text: configSourceYaml({ url: `https://github.com/${OWNER}/${REPO}` }), file: 'config.yaml' },
    });
    assert.ok(applied.ok, JSON.stringify(applied));
  });

  const depsOf = (caps: { maxArchiveBytes?: number; maxExpandedBytes?: number } = {}): SyncDeps => ({
    store,
    git: {
      // No retries inside a call: a failed archive is seen as it is.
      hosts: [gitHubHost({ retries: 0, writeIntervalMs: 0, requestTimeoutMs: 5000 })],
      secrets: sourceSecrets({ token: github.token }),
      apiUrls: { github: github.url },
      ...caps,
    },
    apply: ports,
    logger: { info: () => undefined, warn: (message) => void warnings.push(message) },
    now: () => new Date(),
  });
  const fileReads = () => github.requests.filter((request) => request.route === BLOB_ROUTE).length;
  const head = () => github.ref(OWNER, REPO, 'main') ?? assert.fail('no branch main');

  it('applies a 500-file folder in a handful of Git requests, and a one-file change in as many', async () => {
    github.createRepository(OWNER, REPO, folder(FILES), { defaultBranch: 'main' });
    github.resetRequests();
    const first = await syncConfigSource(SOURCE, depsOf());
    assert.equal(first.outcome, 'applied', JSON.stringify(first));
    assert.equal((await store.getConfigSource(SOURCE))?.status.applied, FILES + 1);
    // The head, the tree, the archive (a redirect and its download), the author: not one request per file.
    assert.ok(github.requests.length <= 8, `${github.requests.length} Git requests for ${FILES} files`);
    assert.equal(fileReads(), 0);

    github.commitFiles(OWNER, REPO, 'main', { [`pipelines/apps/${app(7)}.yaml`]: pipelineYaml(app(7), 'apps-live') });
    github.resetRequests();
    const changed = await syncConfigSource(SOURCE, depsOf());
    assert.equal(changed.outcome === 'applied' && changed.revision, `main@sha1:${head()}`);
    assert.ok(github.requests.length <= 8, `${github.requests.length} Git requests for a one-file change`);
    const stored = await store.getPipeline({ namespace: NS, name: app(7) });
    assert.equal(stored?.document.spec.environments[1]?.targets?.[0]?.namespace, 'apps-live');
    assert.deepEqual(warnings, []);
  });

  it('reads the folder file by file when the archive fails, and applies the same', async () => {
    const count = ARCHIVE_AFTER_READS * 3;
    github.createRepository(OWNER, REPO, folder(count), { defaultBranch: 'main' });
    github.failNext(502, { route: TARBALL_ROUTE });
    github.resetRequests();
    const outcome = await syncConfigSource(SOURCE, depsOf());
    assert.equal(outcome.outcome, 'applied', JSON.stringify(outcome));
    assert.equal((await store.getConfigSource(SOURCE))?.status.applied, count + 1);
    assert.equal(github.requests.filter((request) => request.route === TARBALL_ROUTE).length, 1);
    assert.equal(fileReads(), count + 1, 'every file of the folder read on its own');
    assert.deepEqual(warnings, ['cannot read the archive of the commit; reading file by file']);
  });

  it('refuses a commit whose archive is over its cap, naming the cap, and applies nothing', async () => {
    // Beside the folder, a file that does not compress: the archive is over 1 MiB.
    const noise = randomBytes(1024 * 1024).toString('base64');
    github.createRepository(
      OWNER,
      REPO,
      { ...folder(ARCHIVE_AFTER_READS * 2), 'assets/noise.txt': noise },
      {
        defaultBranch: 'main',
      },
    );
    const outcome = await syncConfigSource(SOURCE, depsOf({ maxArchiveBytes: 1024 * 1024 }));
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'ValidationFailed', JSON.stringify(outcome));
    assert.match(
      outcome.outcome === 'failed' ? outcome.message : '',
      /the archive of [0-9a-f]{12} in https:\/\/github\.com\/acme\/fleet is over the 1 MiB a ConfigSource reads/,
    );
    assert.equal(fileReads(), 0, 'not read file by file instead');
    assert.equal(await store.getPipeline({ namespace: NS, name: app(0) }), undefined);
  });

  it('refuses a commit whose small archive expands past its cap, naming the cap, and applies nothing', async () => {
    // Beside the folder, 3 MiB of one character: a few KiB in the archive, more than the 2 MiB it may expand to.
    github.createRepository(
      OWNER,
      REPO,
      { ...folder(ARCHIVE_AFTER_READS * 2), 'assets/zeros.txt': '0'.repeat(3 * 1024 * 1024) },
      { defaultBranch: 'main' },
    );
    const outcome = await syncConfigSource(SOURCE, depsOf({ maxExpandedBytes: 2 * 1024 * 1024 }));
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'ValidationFailed', JSON.stringify(outcome));
    assert.match(
      outcome.outcome === 'failed' ? outcome.message : '',
      /the archive of [0-9a-f]{12} in https:\/\/github\.com\/acme\/fleet expands to over the 2 MiB a ConfigSource unpacks/,
    );
    assert.equal(fileReads(), 0, 'not read file by file instead');
    assert.equal(await store.getPipeline({ namespace: NS, name: app(0) }), undefined);
  });
});

describe('a ConfigSource read from one archive on a host whose listing gives no sizes (GitLab)', () => {
  let fake: FakeHostUnderTest;
  let store: MemoryStore;
  let deps: SyncDeps;

  afterEach(() => fake.stop());

  beforeEach(async () => {
    fake = await startGitLabUnderTest();
    store = new MemoryStore();
    const secrets = sourceSecrets(fake.secretValues);
    const ports = applyPorts(store, secrets);
    deps = hostSyncDeps(fake, store, secrets, ports);
    const source = configSourceYaml({ url: fake.repositoryUrl, type: fake.type });
    const applied = await applyConfiguration(ports, { source: { text: source, file: 'config.yaml' } });
    assert.ok(applied.ok, JSON.stringify(applied));
  });

  it('applies a folder of many files in a handful of requests', async () => {
    fake.createRepository(folder(ARCHIVE_AFTER_READS * 4));
    fake.resetRequests();
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome, 'applied', JSON.stringify(outcome));
    assert.equal((await store.getConfigSource(SOURCE))?.status.applied, ARCHIVE_AFTER_READS * 4 + 1);
    assert.ok(fake.requestCount() <= 8, `${fake.requestCount()} requests`);
  });

  it('still names a file over the apply size limit', async () => {
    fake.createRepository({
      ...folder(ARCHIVE_AFTER_READS * 2),
      'pipelines/huge.yaml': `#${'x'.repeat(MAX_FILE_BYTES)}\n`,
    });
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'ValidationFailed', JSON.stringify(outcome));
    assert.match(
      outcome.outcome === 'failed' ? outcome.message : '',
      /pipelines\/huge\.yaml: the file holds 4\.0 MiB; .*4 MiB/,
    );
  });

  it('stops reading once the files hold more text than a source reads, reading none on its own', async () => {
    // Each file a comment just under the size limit: valid on its own, too much together.
    const large = `#${'x'.repeat(MAX_FILE_BYTES - 2)}\n`;
    const count = MAX_SOURCE_BYTES / MAX_FILE_BYTES + 1;
    fake.createRepository({
      ...folder(ARCHIVE_AFTER_READS),
      ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`pipelines/large-${i}.yaml`, large])),
    });
    fake.resetRequests();
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'ValidationFailed', JSON.stringify(outcome));
    const limit = MAX_SOURCE_BYTES / (1024 * 1024);
    assert.match(outcome.outcome === 'failed' ? outcome.message : '', new RegExp(`more than the ${limit} MiB of YAML`));
    assert.ok(fake.requestCount() <= 4, `${fake.requestCount()} requests: the archive's, no file read on its own`);
    assert.equal(await store.getPipeline({ namespace: NS, name: app(0) }), undefined, 'nothing applied');
  });
});
