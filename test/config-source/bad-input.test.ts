// A ConfigSource fed what a repository should not hold, or a host that does not answer well: a file over the apply
// limits, a YAML alias bomb, 10,000 documents, a path that is a file, a branch that is not there, a host answering
// 401, 404, 429 or 5xx. Each ends with the source's Ready False and a reason a person can act on, nothing of the
// commit applied (what the last good commit applied stays), and the next good commit applied as usual.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { applyConfiguration, type ApplyPorts } from '../../lib/apply/index.js';
import { MAX_FILE_BYTES } from '../../lib/config/limits.js';
import { MAX_SOURCE_DOCUMENTS } from '../../lib/config-source/documents.js';
import { MAX_SOURCE_BYTES, MAX_SOURCE_FILES } from '../../lib/config-source/repository.js';
import { syncConfigSource, type ConfigSyncFailure, type SyncDeps } from '../../lib/config-source/sync.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import type { ConfigSyncReason } from '../../lib/store/port.js';
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
const BLOB_ROUTE = 'GET /repos/{owner}/{repo}/git/blobs/{file_sha}';
const REF_ROUTE = 'GET /repos/{owner}/{repo}/git/ref/{ref}';

const cluster = clusterYaml();
const pipeline = pipelineYaml;

const configSource = (spec: { branch?: string; path?: string; repository?: string } = {}) =>
  configSourceYaml({
    url: `https://github.com/${OWNER}/${spec.repository ?? REPO}`,
    branch: spec.branch,
    path: spec.path,
  });

/** Nine levels of nine aliases each: 9⁹ strings once expanded, from a few hundred bytes. */
function aliasBomb(): string {
  const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  const names = 'abcdefghi';
  for (let level = 1; level < names.length; level++) {
    const alias = `*${names[level - 1]}`;
    lines.push(`${names[level]}: &${names[level]} [${Array(9).fill(alias).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

describe('a ConfigSource fed bad input (GitHub)', () => {
  let github: FakeGitHub;
  let store: MemoryStore;
  let ports: ApplyPorts;
  let deps: SyncDeps;
  let failures: ConfigSyncFailure[];
  /** The branch head applied in beforeEach: what must stay in force. */
  let good: string;

  afterEach(() => github.stop());

  beforeEach(async () => {
    github = await FakeGitHub.start();
    github.createRepository(
      OWNER,
      REPO,
      { 'pipelines/clusters.yaml': cluster, 'pipelines/podinfo.yaml': pipeline('podinfo') },
      { defaultBranch: 'main' },
    );
    store = new MemoryStore();
    failures = [];
    const secrets = sourceSecrets({ token: github.token });
    ports = applyPorts(store, secrets);
    // No retries inside a call, and a rate limit's wait counted in real seconds: each fault is seen as it is.
    const host = gitHubHost({ retries: 0, writeIntervalMs: 0, requestTimeoutMs: 5000 });
    deps = {
      store,
      git: { hosts: [host], secrets, apiUrls: { github: github.url } },
      apply: ports,
      logger: { info: () => undefined, warn: () => undefined },
      now: () => new Date(),
      onFailure: (failure) => {
        failures.push(failure);
        return Promise.resolve();
      },
    };
    await cliApply(configSource());
    const applied = await syncConfigSource(SOURCE, deps);
    assert.equal(applied.outcome, 'applied');
    good = `main@sha1:${head()}`;
  });

  const head = (branch = 'main') => github.ref(OWNER, REPO, branch) ?? assert.fail(`no branch ${branch}`);

  async function cliApply(text: string): Promise<void> {
    const applied = await applyConfiguration(ports, { source: { text, file: 'config.yaml' } });
    assert.ok(applied.ok, JSON.stringify(applied));
  }

  /** Commits the good files next to `bad`: a new pipeline and a changed one, which must not be applied either. */
  function commitBad(bad: Record<string, string>): string {
    github.commitFiles(OWNER, REPO, 'main', {
      'pipelines/frontend.yaml': pipeline('frontend'),
      'pipelines/podinfo.yaml': pipeline('podinfo', 'apps-live'),
      ...bad,
    });
    return `main@sha1:${head()}`;
  }

  /** The sync fails for `reason`, says so Flux's way, and leaves what the good commit applied as it was. */
  async function assertRefused(reason: ConfigSyncReason, message: RegExp): Promise<string> {
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome, 'failed', JSON.stringify(outcome));
    assert.equal(outcome.outcome === 'failed' && outcome.reason, reason, JSON.stringify(outcome));

    const stored = await store.getConfigSource(SOURCE);
    const ready = stored?.status.conditions.find((condition) => condition.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready.reason, reason);
    assert.match(ready.message, message);
    assert.equal(stored?.status.lastAppliedRevision, good, 'the last good commit stays in force');

    const podinfo = await store.getPipeline({ namespace: NS, name: 'podinfo' });
    assert.equal(podinfo?.owner?.revision, good, 'podinfo as the good commit left it');
    assert.deepEqual(
      podinfo.document.spec.environments.map((environment) => environment.targets?.[0]?.namespace),
      ['apps', 'apps-prod'],
    );
    assert.equal(await store.getPipeline({ namespace: NS, name: 'frontend' }), undefined, 'nothing half-applied');
    assert.ok(await store.getCluster({ namespace: NS, name: 'dev' }));
    return ready.message;
  }

  /** The next good commit (the bad files gone, a new pipeline added) is applied as usual. */
  async function assertNextGoodCommitApplies(bad: readonly string[] = []): Promise<void> {
    github.commitFiles(OWNER, REPO, 'main', {
      'pipelines/search.yaml': pipeline('search'),
      ...Object.fromEntries(bad.map((path) => [path, null])),
    });
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome, 'applied', JSON.stringify(outcome));
    const stored = await store.getConfigSource(SOURCE);
    assert.equal(stored?.status.lastAppliedRevision, `main@sha1:${head()}`);
    assert.equal(stored.status.conditions.find((condition) => condition.type === 'Ready')?.status, 'True');
    assert.ok(await store.getPipeline({ namespace: NS, name: 'search' }));
  }

  it('refuses a file over the apply size limit, naming it, and notifies once for the commit', async () => {
    // A YAML comment one byte over the limit: valid YAML, cheap to build.
    const revision = commitBad({ 'pipelines/huge.yaml': `#${'x'.repeat(MAX_FILE_BYTES)}\n` });
    const hugeBlob = github.blobShas(OWNER, REPO, 'main')['pipelines/huge.yaml'] ?? assert.fail('no blob');
    github.resetRequests();
    const message = await assertRefused('ValidationFailed', /pipelines\/huge\.yaml: the file holds 4\.0 MiB; .*4 MiB/);
    assert.match(message, new RegExp(revision));
    const read = github.requests.filter((request) => request.path.includes(hugeBlob));
    assert.equal(read.length, 0, 'GitHub’s listing gives its size: it is refused unread');
    assert.deepEqual(
      failures.map((failure) => [failure.revision, failure.reason]),
      [[revision, 'ValidationFailed']],
    );
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'up-to-date', 'not tried again on the same commit');
    assert.equal(failures.length, 1);
    await assertNextGoodCommitApplies(['pipelines/huge.yaml']);
  });

  it('refuses a YAML alias bomb without expanding it', async () => {
    commitBad({ 'pipelines/bomb.yaml': aliasBomb() });
    await assertRefused('ValidationFailed', /pipelines\/bomb\.yaml:1:1: .*aliases expand to more than 100 copies/);
    await assertNextGoodCommitApplies(['pipelines/bomb.yaml']);
  });

  it('refuses a folder of 10,000 documents', async () => {
    const documents = Array.from({ length: 10_000 }, (_, i) => `kind: ConfigMap\nmetadata: { name: cm-${i} }\n`);
    commitBad({ 'pipelines/many.yaml': documents.join('---\n') });
    const limit = MAX_SOURCE_DOCUMENTS.toLocaleString('en-US');
    await assertRefused(
      'ValidationFailed',
      new RegExp(`pipelines/many\\.yaml: the folder holds more than the ${limit} YAML documents a ConfigSource reads`),
    );
    await assertNextGoodCommitApplies(['pipelines/many.yaml']);
  });

  it('refuses a folder of more files than a source reads, reading none of them', async () => {
    const files = Object.fromEntries(
      Array.from({ length: MAX_SOURCE_FILES + 1 }, (_, i) => [`pipelines/many/cm-${i}.yaml`, 'kind: ConfigMap\n']),
    );
    commitBad(files);
    github.resetRequests();
    const limit = MAX_SOURCE_FILES.toLocaleString('en-US');
    await assertRefused(
      'ValidationFailed',
      new RegExp(`path pipelines holds [\\d,]+ YAML files, more than the ${limit}`),
    );
    assert.equal(github.requests.filter((request) => request.route === BLOB_ROUTE).length, 0);
    await assertNextGoodCommitApplies(Object.keys(files));
  });

  it('refuses a folder whose files together hold more text than a source reads, reading none of them', async () => {
    // Each file a comment just under the size limit: valid on its own, too much together.
    const large = `#${'x'.repeat(MAX_FILE_BYTES - 2)}\n`;
    const count = MAX_SOURCE_BYTES / MAX_FILE_BYTES + 1;
    const files = Object.fromEntries(Array.from({ length: count }, (_, i) => [`pipelines/large-${i}.yaml`, large]));
    commitBad(files);
    github.resetRequests();
    const limit = MAX_SOURCE_BYTES / (1024 * 1024);
    await assertRefused('ValidationFailed', new RegExp(`path pipelines holds more than the ${limit} MiB of YAML`));
    const read = github.requests.filter((request) => request.route === BLOB_ROUTE);
    assert.equal(read.length, 0, 'GitHub’s listing gives the sizes: nothing is read');
    await assertNextGoodCommitApplies(Object.keys(files));
  });

  it('names a path that is a file', async () => {
    await cliApply(configSource({ path: 'pipelines/podinfo.yaml' }));
    await assertRefused('NotFound', /path pipelines\/podinfo\.yaml is a file/);
    await cliApply(configSource());
    await assertNextGoodCommitApplies();
  });

  it('names a branch that does not exist, and applies it once it does', async () => {
    await cliApply(configSource({ branch: 'release' }));
    await assertRefused('NotFound', /branch release not found in https:\/\/github\.com\/acme\/fleet/);
    github.commitFiles(OWNER, REPO, 'release', { 'pipelines/search.yaml': pipeline('search') });
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome, 'applied', JSON.stringify(outcome));
    assert.ok(await store.getPipeline({ namespace: NS, name: 'search' }));
  });

  it('names a repository that answers 404', async () => {
    await cliApply(configSource({ repository: 'gone' }));
    await assertRefused('NotFound', /not found in https:\/\/github\.com\/acme\/gone/);
    await cliApply(configSource());
    await assertNextGoodCommitApplies();
  });

  it('names rejected credentials (401) without showing them', async () => {
    github.echoCredentialsNext(401, { route: REF_ROUTE });
    const message = await assertRefused(
      'Unauthorized',
      /401 .*rejected the credentials of Secret flux-system\/fleet-config/,
    );
    assert.doesNotMatch(message, new RegExp(github.token));
    await assertNextGoodCommitApplies();
  });

  for (const [what, fault] of [
    ['a rate limit (429)', (fake: FakeGitHub, route: string) => fake.primaryRateLimitNext({ status: 429, route })],
    ['a 502', (fake: FakeGitHub, route: string) => fake.failNext(502, { route })],
    [
      'a 500 with the credentials in its body',
      (fake: FakeGitHub, route: string) => fake.echoCredentialsNext(500, { route }),
    ],
  ] as const) {
    it(`keeps the last good commit on ${what} reading the head, and syncs when the host answers again`, async () => {
      fault(github, REF_ROUTE);
      const message = await assertRefused('GitUnavailable', /GitHub|github/);
      assert.doesNotMatch(message, new RegExp(github.token));
      await assertNextGoodCommitApplies();
    });

    it(`applies nothing of a commit on ${what} in the middle of its files, and tries that commit again`, async () => {
      const revision = commitBad({});
      // The head and the tree are read; a file's read fails.
      fault(github, BLOB_ROUTE);
      await assertRefused('GitUnavailable', new RegExp(revision));
      assert.equal(failures.length, 0, 'a host that did not answer is not a bad commit');
      const outcome = await syncConfigSource(SOURCE, deps);
      assert.equal(outcome.outcome, 'applied', 'the same commit, once the host answers');
      assert.equal(outcome.outcome === 'applied' && outcome.revision, revision);
      assert.ok(await store.getPipeline({ namespace: NS, name: 'frontend' }));
    });
  }
});

describe('a ConfigSource on a host whose listing gives no sizes (GitLab)', () => {
  let fake: FakeHostUnderTest;

  afterEach(() => fake.stop());

  it('stops reading a folder once its files hold more text than a source reads', async () => {
    fake = await startGitLabUnderTest();
    fake.createRepository({ 'pipelines/clusters.yaml': cluster, 'pipelines/podinfo.yaml': pipeline('podinfo') });
    const store = new MemoryStore();
    const secrets = sourceSecrets(fake.secretValues);
    const ports = applyPorts(store, secrets);
    const deps = hostSyncDeps(fake, store, secrets, ports);
    const source = configSource().replace(
      `url: https://github.com/${OWNER}/${REPO}`,
      `url: ${fake.repositoryUrl}\n  type: ${fake.type}`,
    );
    const applied = await applyConfiguration(ports, { source: { text: source, file: 'config.yaml' } });
    assert.ok(applied.ok, JSON.stringify(applied));
    assert.equal((await syncConfigSource(SOURCE, deps)).outcome, 'applied');

    // Each file a comment just under the size limit: valid on its own, too much together.
    const large = `#${'x'.repeat(MAX_FILE_BYTES - 2)}\n`;
    const count = MAX_SOURCE_BYTES / MAX_FILE_BYTES + 1;
    fake.commitFiles('main', {
      'pipelines/frontend.yaml': pipeline('frontend'),
      ...Object.fromEntries(Array.from({ length: count }, (_, i) => [`pipelines/large-${i}.yaml`, large])),
    });
    const outcome = await syncConfigSource(SOURCE, deps);
    assert.equal(outcome.outcome === 'failed' && outcome.reason, 'ValidationFailed', JSON.stringify(outcome));
    const limit = MAX_SOURCE_BYTES / (1024 * 1024);
    assert.match(outcome.outcome === 'failed' ? outcome.message : '', new RegExp(`more than the ${limit} MiB of YAML`));
    assert.equal(await store.getPipeline({ namespace: NS, name: 'frontend' }), undefined, 'nothing half-applied');
  });
});
