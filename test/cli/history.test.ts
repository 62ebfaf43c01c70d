// `pipelinectl history` as a user runs it, on a local data directory: the trail the real verifier and a CLI approval
// leave (run in this process on the directory's store, closed again before each CLI run: one process at a time may
// hold it), plus entries of a second pipeline and old ones written through the store, to check the merge across
// pipelines, the filters, the limit and the JSON shape.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HistoryJson } from '../../lib/cli/operations/history.js';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { writeFiles } from '../support/temp-files.js';
import { app, CLUSTERS, healthy, pipeline, PIPELINE, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';
import { silentLogger } from '../../lib/logging/logger.js';

const OTHER = { namespace: 'flux-system', name: 'other' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('pipelinectl history on a local data directory', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const identity = `local:${userInfo().username}`;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  /** Runs `action` on the data directory's store, opened in this process and closed after. */
  async function onStore<T>(action: (backend: Backend) => Promise<T>): Promise<T> {
    const backend = await openLocalBackend(dataDir, silentLogger);
    try {
      return await action(backend);
    } finally {
      await backend.close();
    }
  }

  /** The real verifier on the data directory's store, handed one message as the consumer would. */
  const verify = (message: QueueMessage) =>
    onStore(async (backend) => {
      const handle = createVerifier({
        store: backend.store,
        queue: new RecordingQueue(),
        clusters: new ScriptedClusters(),
        promoter: new RecordingPromoter(),
        logger: silentLogger,
        now: () => new Date(),
        workerId: 'history-test',
      });
      await handle(message, { messageId: 'message-1', receiveCount: 1 });
    });

  const historyJson = async (...args: string[]): Promise<HistoryJson> => {
    const run = await cli('history', ...args, '-o', 'json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as HistoryJson;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-history-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
      'config/other.yaml': pipeline('apps').replace('name: podinfo, namespace', 'name: other, namespace'),
    });
    const applied = await cli('apply', '-f', join(root, 'config'));
    assert.equal(applied.code, 0, applied.stderr);

    // dev runs 6.9.2, staging and prod 6.9.1: the verifier asks for an approval of 6.9.2 in staging.
    await onStore(async ({ store }) => {
      const now = new Date();
      await store.recordTargetStatus(app('dev', 'apps'), healthy('6.9.2'), now);
      await store.recordTargetStatus(app('prod', 'apps-staging'), healthy('6.9.1'), now);
      await store.recordTargetStatus(app('prod', 'apps'), healthy('6.9.1'), now);
    });
    await verify({ type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: false });
    const approved = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(approved.code, 0, approved.stderr);
    // No serve runs to take the promote message the approval sends: hand it to the verifier here.
    await verify({ type: 'promote', pipeline: PIPELINE, env: 'staging', revision: '6.9.2' });

    // Older entries, written as the verifier writes them: the other pipeline's between podinfo's, and one of
    // podinfo's ten days old.
    await onStore(async ({ store }) => {
      const now = Date.now();
      const entry = (pipelineKey: typeof PIPELINE, msAgo: number, revision: string) => ({
        at: new Date(now - msAgo).toISOString(),
        pipeline: pipelineKey,
        type: 'promotion-succeeded' as const,
        env: 'prod',
        revision,
        message: `${revision} promoted to prod`,
        actor: 'verifier',
      });
      await store.appendAudit(entry(PIPELINE, 10 * DAY, '6.8.0'));
      await store.appendAudit(entry(OTHER, 2 * HOUR, '1.2.0'));
      await store.appendAudit(entry(OTHER, 3 * DAY, '1.1.0'));
    });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('lists every pipeline, newest first: the request, the CLI approval with its approver, the promotion', async () => {
    const history = await historyJson();
    const effects = history.entries.filter((entry) => !entry.type.startsWith('environment-'));
    assert.deepEqual(
      effects.map((entry) => [entry.pipeline, entry.type, entry.env, entry.revision]),
      [
        ['flux-system/podinfo', 'promotion-succeeded', 'staging', '6.9.2'],
        ['flux-system/podinfo', 'promotion-started', 'staging', '6.9.2'],
        ['flux-system/podinfo', 'approved', 'staging', '6.9.2'],
        ['flux-system/podinfo', 'approval-requested', 'staging', '6.9.2'],
        ['flux-system/other', 'promotion-succeeded', 'prod', '1.2.0'],
        ['flux-system/other', 'promotion-succeeded', 'prod', '1.1.0'],
        ['flux-system/podinfo', 'promotion-succeeded', 'prod', '6.8.0'],
      ],
    );
    // What the verifier saw of each environment's health, recorded for the metrics, is in the trail too.
    const facts = history.entries.filter((entry) => entry.type.startsWith('environment-'));
    assert.deepEqual(facts.map((entry) => `${entry.type} ${entry.env} ${entry.revision}`).sort(), [
      'environment-passed dev 6.9.2',
      'environment-passed prod 6.9.1',
      'environment-passed staging 6.9.1',
    ]);
    const times = history.entries.map((entry) => entry.at);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    const approval = history.entries.find((entry) => entry.type === 'approved');
    assert.equal(approval?.actor, identity);
    assert.equal(approval?.message, '6.9.2 approved for staging with pipelinectl');
    assert.equal(history.more, false);
  });

  it('-o json: every field of every entry, absent ones as null', async () => {
    const { entries } = await historyJson('flux-system/podinfo', '--type', 'approval-requested');
    assert.equal(entries.length, 1);
    const [requested] = entries;
    assert.deepEqual(Object.keys(requested ?? {}).sort(), [
      'actor',
      'at',
      'author',
      'configSource',
      'configured',
      'created',
      'env',
      'failureKind',
      'message',
      'pipeline',
      'pruned',
      'revision',
      'type',
    ]);
    assert.equal(requested?.actor, 'pipeline-controller', 'the controller, not the worker that made it');
    assert.equal(requested?.configSource, null, "a ConfigSource's fields are null on a pipeline's entry");
    assert.equal(requested?.failureKind, null, 'only a failed promotion or rollback has a failure kind');
    assert.ok(Date.parse(requested?.at ?? '') > Date.now() - 60_000, 'an ISO time, just now');
    assert.equal(requested?.pipeline, 'flux-system/podinfo');
    for (const value of Object.values(requested ?? {})) assert.notEqual(value, undefined);
  });

  it('filters by pipeline, environment, type and --since (a duration in days or a date)', async () => {
    const revisions = async (...args: string[]) =>
      (await historyJson(...args)).entries.map((entry) => `${entry.pipeline} ${entry.type} ${entry.revision}`);
    assert.deepEqual(await revisions('flux-system/other'), [
      'flux-system/other promotion-succeeded 1.2.0',
      'flux-system/other promotion-succeeded 1.1.0',
    ]);
    assert.deepEqual(await revisions('--env', 'prod'), [
      'flux-system/podinfo environment-passed 6.9.1',
      'flux-system/other promotion-succeeded 1.2.0',
      'flux-system/other promotion-succeeded 1.1.0',
      'flux-system/podinfo promotion-succeeded 6.8.0',
    ]);
    assert.deepEqual(await revisions('--type', 'approved'), ['flux-system/podinfo approved 6.9.2']);
    assert.deepEqual(await revisions('flux-system/podinfo', '--env', 'prod', '--since', '7d'), [
      'flux-system/podinfo environment-passed 6.9.1',
    ]);
    assert.deepEqual(await revisions('--env', 'prod', '--type', 'promotion-succeeded', '--since', '1d'), [
      'flux-system/other promotion-succeeded 1.2.0',
    ]);
    assert.deepEqual(await revisions('--env', 'prod', '--type', 'promotion-succeeded', '--since', '1h'), []);
    const fourDaysAgo = new Date(Date.now() - 4 * DAY).toISOString().slice(0, 10);
    assert.deepEqual(await revisions('--env', 'prod', '--since', fourDaysAgo), [
      'flux-system/podinfo environment-passed 6.9.1',
      'flux-system/other promotion-succeeded 1.2.0',
      'flux-system/other promotion-succeeded 1.1.0',
    ]);
  });

  it('a table newest first, each message whole at the end of its row, and a last line when --limit cut the trail', async () => {
    const run = await cli('history', '--limit', '3');
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.match(out[0] ?? '', /^TIME +PIPELINE +ENV +TYPE +REVISION +ACTOR +MESSAGE$/);
    assert.match(
      out[1] ?? '',
      /^\d+s ago +flux-system\/podinfo +staging +promotion-succeeded +6\.9\.2 +pipeline-controller +promoted /,
    );
    assert.match(
      out[2] ?? '',
      /^\d+s ago +flux-system\/podinfo +staging +promotion-started +6\.9\.2 +pipeline-controller /,
    );
    const { entries } = await historyJson('--limit', '3');
    for (const [i, entry] of entries.entries()) {
      assert.ok(entry.message.length > 30, `a message longer than the column once let through: ${entry.message}`);
      assert.ok(out[i + 1]?.endsWith(`  ${entry.message}`), `${out[i + 1]} ends with ${entry.message}`);
    }
    assert.match(
      out[3] ?? '',
      new RegExp(`^\\d+s ago +flux-system/podinfo +staging +approved +6\\.9\\.2 +${identity} +6\\.9\\.2 approved`),
    );
    assert.equal(out.length, 5);
    assert.equal(out[4], '(more than 3 entries: narrow with --since, --env or --type, or raise --limit)');

    const all = await cli('history', 'flux-system/other');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      lines(all.stdout).map((line) => line.split(/ {2,}/).slice(0, 1)[0]),
      ['TIME', '2h ago', '3d ago'],
      'no last line when nothing was cut',
    );

    const json = await historyJson('--limit', '3');
    assert.equal(json.entries.length, 3);
    assert.equal(json.more, true);
  });

  it('refuses an unknown pipeline, naming it, and bad flags, naming the flag', async () => {
    const unknown = await cli('history', 'flux-system/nope');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /^error: pipeline flux-system\/nope not found in /);

    const since = await cli('history', '--since', 'last week');
    assert.equal(since.code, 1);
    assert.match(since.stderr, /--since must be a duration such as 30m, 24h or 7d, or a date/);
    const type = await cli('history', '--type', 'approval');
    assert.notEqual(type.code, 0);
    assert.match(type.stderr, /--type/);
    const limit = await cli('history', '--limit', '0');
    assert.notEqual(limit.code, 0);
    assert.match(limit.stderr, /--limit/);
  });

  it('says so on stderr when nothing matches', async () => {
    const run = await cli('history', '--type', 'promotion-failed');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /no audit entries match/);
  });
});
