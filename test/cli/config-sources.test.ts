// What pipelinectl shows of ConfigSources, run as a user runs it on a local data directory: `get configsources`
// (table, JSON, YAML that applies back), `history` with the sources' applied commits, the `status` section and
// `delete configsource`. The syncs are written through the store port as the verifier's sync writes them: a source
// that applied a commit (and owns the pipeline it applied), and one whose commit failed validation with a message
// holding a line break and an escape sequence from the repository.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { ConfigSourceJson } from '../../lib/cli/operations/config-sources.js';
import type { HistoryJson } from '../../lib/cli/operations/history.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { ConfigSyncResult } from '../../lib/store/port.js';
import { runCli } from '../support/pipelinectl.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, pipeline, PIPELINE, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';
import { silentLogger } from '../../lib/logging/logger.js';

const FLEET = { namespace: 'flux-system', name: 'fleet' };
const BROKEN = { namespace: 'flux-system', name: 'broken' };
const APPLIED_COMMIT = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
const APPLIED = `main@sha1:${APPLIED_COMMIT}`;
const FAILED = `release@sha1:${'9'.repeat(40)}`;
const HOUR = 3_600_000;
/** What the repository's file made of the failed sync's message: a second line and a colour escape. */
const BAD_MESSAGE = 'bad: x\n\x1b[31m';
/** The same as the tables show it, one line with the escape as text, as a regular expression. */
const BAD_MESSAGE_SHOWN = 'bad: x \\u{1b}[31m'.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const SOURCES = `
apiVersion: v1
kind: Secret
metadata: { name: fleet-config, namespace: flux-system }
stringData: { token: config-reader-token, webhook-secret: hook }
---
apiVersion: v1
kind: Secret
metadata: { name: broken-config, namespace: flux-system }
stringData: { token: config-reader-token }
---
apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: { name: fleet, namespace: flux-system }
spec:
  url: https://github.com/acme/fleet
  branch: main
  path: pipelines
  secretRef: { name: fleet-config }
---
apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: { name: broken, namespace: flux-system }
spec:
  url: https://gitlab.com/acme/platform
  branch: release
  secretRef: { name: broken-config }
`;

describe('pipelinectl and ConfigSources on a local data directory', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (args: string[], input?: string) =>
    runCli([...args, '--data-dir', dataDir], input === undefined ? {} : { input });

  /** Runs `action` on the data directory's store, opened in this process and closed after. */
  async function onStore<T>(action: (backend: Backend) => Promise<T>): Promise<T> {
    const backend = await openLocalBackend(dataDir, silentLogger);
    try {
      return await action(backend);
    } finally {
      await backend.close();
    }
  }

  /** A sync of `revision` as the verifier ends one: claimed for the source's generation, then finished. */
  const sync = (source: ObjectKey, revision: string, result: ConfigSyncResult, at: Date) =>
    onStore(async ({ store }) => {
      const stored = await store.getConfigSource(source);
      assert.ok(stored);
      const claim = await store.claimConfigSync(source, revision, stored.generation, at, 60_000);
      assert.ok(claim);
      assert.ok(await store.finishConfigSync(claim, result, at));
    });

  const json = async <T>(...args: string[]): Promise<T> => {
    const run = await cli([...args, '-o', 'json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-config-sources-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
      'config/sources.yaml': SOURCES,
    });
    const applied = await cli(['apply', '-f', join(root, 'config')]);
    assert.equal(applied.code, 0, applied.stderr);

    const now = Date.now();
    await sync(
      FLEET,
      APPLIED,
      {
        attempted: true,
        appliedRevision: APPLIED,
        applied: 1,
        skipped: 2,
        ready: { status: 'True', reason: 'Succeeded', message: `applied ${APPLIED}: 1 object, 2 documents skipped` },
      },
      new Date(now - HOUR),
    );
    await sync(
      BROKEN,
      FAILED,
      { attempted: true, ready: { status: 'False', reason: 'ValidationFailed', message: BAD_MESSAGE } },
      new Date(now - HOUR),
    );
    await onStore(async ({ store }) => {
      // The pipeline came from the fleet source's commit.
      const podinfo = await store.getPipeline(PIPELINE);
      assert.ok(podinfo);
      await store.applyPipeline(podinfo.document, podinfo.pipeline, new Date(now - HOUR), {
        configSource: FLEET,
        revision: APPLIED,
      });
      await store.appendConfigAudit({
        at: new Date(now - HOUR).toISOString(),
        configSource: FLEET,
        type: 'config-applied',
        revision: APPLIED,
        author: 'Ada <ada@example.com>',
        message: `applied ${APPLIED}`,
        created: ['pipeline flux-system/podinfo'],
        configured: [],
        pruned: ['pipeline flux-system/old'],
        actor: 'configsource/flux-system/fleet',
      });
      // A pipeline's entries before and after it, to check the merge.
      const promoted = (msAgo: number, revision: string) =>
        store.appendAudit({
          at: new Date(now - msAgo).toISOString(),
          pipeline: PIPELINE,
          type: 'promotion-succeeded',
          env: 'prod',
          revision,
          message: `${revision} promoted to prod`,
          actor: 'verifier',
        });
      await promoted(2 * HOUR, '6.9.0');
      await promoted(HOUR / 2, '6.9.1');
    });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('get configsources: a table with the commit in force, shortened, and Ready with its message on one line', async () => {
    const run = await cli(['get', 'configsources']);
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.ok(
      out.every((line) => line.length <= 120),
      run.stdout,
    );
    assert.match(out[0] ?? '', /^NAME +URL +BRANCH +PATH +APPLIED +READY +MESSAGE$/);
    assert.equal(out.length, 3, run.stdout);
    assert.match(
      out[1] ?? '',
      new RegExp(
        `^flux-system/broken +https://gitlab\\.com/acme/platform +release +\\. +- +False +${BAD_MESSAGE_SHOWN}$`,
      ),
    );
    assert.match(
      out[2] ?? '',
      /^flux-system\/fleet +https:\/\/github\.com\/acme\/fleet +main +pipelines +main@sha1:1a2b3c4d +True +applied /,
    );
    assert.ok(!run.stdout.includes('\x1b'), 'the escape from the repository is shown, not acted on');

    // One source, by its singular name and NAMESPACE/NAME.
    const one = await cli(['get', 'configsource', 'flux-system/fleet']);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(lines(one.stdout).length, 2, one.stdout);
    assert.match(lines(one.stdout)[1] ?? '', /^flux-system\/fleet +https:\/\/github\.com\/acme\/fleet +main /);
  });

  it('get configsources -o json: a v1 List of the documents with their status, as Flux writes one', async () => {
    const list = await json<{ apiVersion: string; kind: string; items: ConfigSourceJson[] }>('get', 'configsources');
    assert.equal(list.apiVersion, 'v1');
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items.map((item) => item.metadata.name),
      ['broken', 'fleet'],
    );
    const [broken, fleet] = list.items;
    assert.deepEqual(fleet?.spec, {
      url: 'https://github.com/acme/fleet',
      branch: 'main',
      path: 'pipelines',
      secretRef: { name: 'fleet-config' },
    });
    assert.equal(fleet?.kind, 'ConfigSource');
    const { conditions, ...status } = fleet?.status ?? { conditions: [] };
    assert.deepEqual(status, {
      lastAppliedRevision: APPLIED,
      lastAttemptedRevision: APPLIED,
      applied: 1,
      skipped: 2,
    });
    assert.deepEqual(
      conditions.map(({ type, status: value, reason }) => ({ type, status: value, reason })),
      [{ type: 'Ready', status: 'True', reason: 'Succeeded' }],
    );
    assert.ok(!Number.isNaN(Date.parse(conditions[0]?.lastTransitionTime ?? '')));

    assert.deepEqual(broken?.status.lastAppliedRevision, null, 'no commit applied yet');
    assert.equal(broken?.status.lastAttemptedRevision, FAILED);
    const [ready] = broken?.status.conditions ?? [];
    assert.deepEqual(
      { status: ready?.status, reason: ready?.reason, message: ready?.message },
      {
        status: 'False',
        reason: 'ValidationFailed',
        message: BAD_MESSAGE,
      },
    );

    const one = await json<ConfigSourceJson>('get', 'configsource', 'flux-system/fleet');
    assert.equal(one.kind, 'ConfigSource', 'one source named is printed as itself');
    assert.equal(one.status.lastAppliedRevision, APPLIED);

    const missing = await cli(['get', 'configsource', 'flux-system/nope']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /^error: configsource flux-system\/nope not found in /);
  });

  it('get configsources -o yaml applies back unchanged: the status is not taken from the file', async () => {
    const yaml = await cli(['get', 'configsources', '-o', 'yaml']);
    assert.equal(yaml.code, 0, yaml.stderr);
    assert.match(yaml.stdout, /lastAppliedRevision: main@sha1:1a2b3c4d/);
    const generations = () =>
      onStore(async ({ store }) => [
        (await store.getConfigSource(FLEET))?.generation,
        (await store.getConfigSource(BROKEN))?.generation,
      ]);
    const before = await generations();

    const applied = await cli(['apply', '-f', '-'], yaml.stdout);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /^configsource flux-system\/broken unchanged$/m);
    assert.match(applied.stdout, /^configsource flux-system\/fleet unchanged$/m);
    assert.deepEqual(await generations(), before, 'no new generation, so no commit is synced again');
    const fleet = await json<ConfigSourceJson>('get', 'configsource', 'flux-system/fleet');
    assert.equal(fleet.status.lastAppliedRevision, APPLIED);
  });

  it('history shows the sources applied commits among the pipelines entries, newest first', async () => {
    const all = await json<HistoryJson>('history');
    assert.deepEqual(
      all.entries.map((entry) => [entry.type, entry.pipeline, entry.configSource, entry.revision]),
      [
        ['promotion-succeeded', 'flux-system/podinfo', null, '6.9.1'],
        ['config-applied', null, 'flux-system/fleet', APPLIED],
        ['promotion-succeeded', 'flux-system/podinfo', null, '6.9.0'],
      ],
    );

    const { entries } = await json<HistoryJson>('history', '--type', 'config-applied');
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0], {
      at: entries[0]?.at,
      pipeline: null,
      configSource: 'flux-system/fleet',
      env: null,
      type: 'config-applied',
      revision: APPLIED,
      actor: 'configsource/flux-system/fleet',
      message: `applied ${APPLIED}`,
      failureKind: null,
      author: 'Ada <ada@example.com>',
      created: ['pipeline flux-system/podinfo'],
      configured: [],
      pruned: ['pipeline flux-system/old'],
    });
    const promotion = all.entries[0];
    assert.deepEqual(
      [promotion?.configSource, promotion?.author, promotion?.created, promotion?.configured, promotion?.pruned],
      [null, null, null, null, null],
      "a pipeline's entry has the sources' fields, as null",
    );

    // A source's entry has no environment, and is not a pipeline's.
    const prod = await json<HistoryJson>('history', '--env', 'prod');
    assert.deepEqual(
      prod.entries.map((entry) => entry.type),
      ['promotion-succeeded', 'promotion-succeeded'],
    );
    const podinfo = await json<HistoryJson>('history', 'flux-system/podinfo');
    assert.equal(podinfo.entries.length, 2);
    const named = await cli(['history', 'flux-system/podinfo', '--type', 'config-applied']);
    assert.equal(named.code, 1);
    assert.match(named.stderr, /--type config-applied shows the ConfigSources' applied commits: name no pipeline/);
  });

  it('history as a table: the source as configsource/NS/NAME and its commit shortened', async () => {
    const run = await cli(['history', '--type', 'config-applied']);
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.match(out[0] ?? '', /^TIME +PIPELINE +ENV +TYPE +REVISION +ACTOR +MESSAGE$/);
    assert.match(
      out[1] ?? '',
      /^1h ago +configsource\/flux-system\/fleet +- +config-applied +main@sha1:1a2b3c4d +configsource\/flux-system\/fleet +appl/,
    );
    assert.equal(out.length, 2);
  });

  it('status: a Config sources section and a configSources array; for a named pipeline, the source that applied it', async () => {
    const table = await cli(['status']);
    assert.equal(table.code, 0, table.stderr);
    const out = lines(table.stdout);
    const at = out.indexOf('Config sources');
    assert.ok(at > 0, table.stdout);
    assert.equal(out[at - 1], '', 'a blank line before the section');
    assert.match(out[at + 1] ?? '', /^NAME +APPLIED +READY +MESSAGE$/);
    assert.match(
      out[at + 2] ?? '',
      new RegExp(`^flux-system/broken +- +False \\(ValidationFailed\\) +${BAD_MESSAGE_SHOWN}$`),
    );
    assert.match(out[at + 3] ?? '', /^flux-system\/fleet +main@sha1:1a2b3c4d +True \(Succeeded\) +applied /);
    assert.equal(out.length, at + 4);
    assert.ok(!table.stdout.includes('\x1b'), 'the escape is shown, not acted on');
    assert.ok(
      out.every((line) => line.length <= 120),
      table.stdout,
    );

    const status = await json<StatusJson>('status');
    assert.equal(status.pipelines.length, 1);
    assert.deepEqual(status.configSources[1], {
      namespace: 'flux-system',
      name: 'fleet',
      url: 'https://github.com/acme/fleet',
      branch: 'main',
      path: 'pipelines',
      lastAppliedRevision: APPLIED,
      lastAttemptedRevision: APPLIED,
      ready: 'True',
      reason: 'Succeeded',
      message: `applied ${APPLIED}: 1 object, 2 documents skipped`,
      lastTransitionTime: status.configSources[1]?.lastTransitionTime,
    });
    assert.deepEqual(
      status.configSources.map((source) => [source.name, source.path, source.ready, source.reason]),
      [
        ['broken', null, 'False', 'ValidationFailed'],
        ['fleet', 'pipelines', 'True', 'Succeeded'],
      ],
    );

    const named = await json<StatusJson>('status', 'flux-system/podinfo');
    assert.deepEqual(
      named.configSources.map((source) => source.name),
      ['fleet'],
    );
    const namedTable = await cli(['status', 'flux-system/podinfo']);
    assert.match(namedTable.stdout, /^flux-system\/fleet +main@sha1:1a2b3c4d +True/m);
    assert.doesNotMatch(namedTable.stdout, /flux-system\/broken/);
  });

  it('delete configsource: the source goes, what it applied stays and can then be changed with apply', async () => {
    const dry = await cli(['delete', 'configsource', 'flux-system/fleet', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, 'configsource flux-system/fleet deleted (dry run)\n');
    assert.equal((await json<{ items: unknown[] }>('get', 'configsources')).items.length, 2);

    const deleted = await cli(['delete', 'configsource', 'flux-system/fleet']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout, 'configsource flux-system/fleet deleted\n');
    const left = await json<{ items: ConfigSourceJson[] }>('get', 'configsources');
    assert.deepEqual(
      left.items.map((item) => item.metadata.name),
      ['broken'],
    );
    const pipelines = await json<{ items: { metadata: { name: string } }[] }>('get', 'pipelines');
    assert.deepEqual(
      pipelines.items.map((item) => item.metadata.name),
      ['podinfo'],
    );
    const status = await json<StatusJson>('status', 'flux-system/podinfo');
    assert.deepEqual(status.configSources, [], 'the source that applied the pipeline is gone');

    await writeFiles(root, { 'changed/pipeline.yaml': pipeline('apps-prod') });
    const changed = await cli(['apply', '-f', join(root, 'changed')]);
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /^pipeline flux-system\/podinfo configured/m);

    const again = await cli(['delete', 'configsource', 'flux-system/fleet']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: configsource flux-system\/fleet is not stored in /);
  });
});
