// `pipelinectl metrics` as a user runs it, on a local data directory: a trail written through the directory's store
// (the facts the verifier records, a promotion, a regression and its restore), then the command's JSON and table,
// its window, and its refusals. Then `--aws` in this process: the CLI's AWS backend against dynalite (DynamoDB),
// fauxqs (SQS) and the STS stand-in, on facts the verifier's own module recorded in the table.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { metricsJson as toJson, readMetrics, type MetricsJson } from '../../lib/cli/operations/metrics.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import type { AuditEntry } from '../../lib/store/port.js';
import { recordEnvironmentFacts } from '../../lib/verifier/environment-facts.js';
import { pipelineDocument } from '../loop/harness.js';
import { writeFiles } from '../support/temp-files.js';
import { app, CLUSTERS, pipeline, PIPELINE, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';
import { useDeployedStack } from '../support/deployed-stack.js';
import { silentLogger } from '../../lib/logging/logger.js';

const HOUR = 3_600_000;

/** podinfo's trail: `[hours ago, type, env, revision]`. */
const TRAIL: readonly (readonly [number, AuditEntry['type'], string, string])[] = [
  [50, 'environment-passed', 'dev', '6.9.1'],
  [48, 'environment-passed', 'staging', '6.9.1'],
  [46, 'environment-passed', 'prod', '6.9.1'], // lead time 4h
  [45.5, 'environment-regressed', 'prod', '6.9.1'], // within the hour: 6.9.1 failed in prod
  [44, 'environment-passed', 'dev', '6.9.2'],
  [44, 'environment-passed', 'staging', '6.9.2'],
  [44, 'promotion-succeeded', 'prod', '6.9.2'],
  [43.5, 'environment-passed', 'prod', '6.9.2'], // lead time 30m; prod restored after 2h
  [43, 'environment-passed', 'prod', '6.9.2'], // recorded twice: still one deployment
];

describe('pipelinectl metrics on a local data directory', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const metricsJson = async (...args: string[]): Promise<MetricsJson> => {
    const run = await cli('metrics', ...args, '-o', 'json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as MetricsJson;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-metrics-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
      'config/other.yaml': pipeline('apps').replace('name: podinfo, namespace', 'name: other, namespace'),
    });
    const applied = await cli('apply', '-f', join(root, 'config'));
    assert.equal(applied.code, 0, applied.stderr);
    const backend = await openLocalBackend(dataDir, silentLogger);
    try {
      const now = Date.now();
      for (const [hoursAgo, type, env, revision] of TRAIL) {
        const at = new Date(now - hoursAgo * HOUR).toISOString();
        await backend.store.appendAudit({ at, pipeline: PIPELINE, type, env, revision, message: type, actor: 'test' });
      }
    } finally {
      await backend.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('-o json: lead time, and per environment deployments, failure rate and time to restore', async () => {
    const report = await metricsJson('flux-system/podinfo');
    assert.equal(report.windowMs, 30 * 24 * HOUR);
    assert.equal(report.failureWindowMs, HOUR);
    const [podinfo] = report.pipelines;
    assert.equal(report.pipelines.length, 1);
    assert.deepEqual(podinfo?.leadTime, { revisions: 2, medianMs: 2.25 * HOUR, p90Ms: 4 * HOUR });
    assert.deepEqual(
      podinfo?.environments.map((env) => [env.name, env.deployments, env.promotions, env.changeFailureRate.rate]),
      [
        ['dev', 2, 0, 0],
        ['staging', 2, 0, 0],
        ['prod', 2, 1, 0.5],
      ],
    );
    const prod = podinfo?.environments[2];
    assert.equal(prod?.deploymentsPerDay, 2 / 30);
    assert.deepEqual(prod?.timeToRestore, { restores: 1, medianMs: 2 * HOUR, unhealthySince: null });
  });

  it('the table: a heading with the lead time, a row per environment; every pipeline when none is named', async () => {
    const run = await cli('metrics');
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.equal(out[0], 'flux-system/other  last 30d  lead time n/a (no revision reached the last environment)');
    const podinfo = out.indexOf('flux-system/podinfo  last 30d  lead time median 2h15m, p90 4h over 2 revisions');
    assert.ok(podinfo > 0, run.stdout);
    assert.match(out[podinfo + 1] ?? '', /^ENVIRONMENT\s+DEPLOYS\s+PER DAY\s+PROMOTIONS\s+FAILURE RATE\s+RESTORES/);
    assert.match(out[podinfo + 4] ?? '', /^prod\s+2\s+0\.07\s+1\s+50% \(1\/2\)\s+1\s+median 2h$/);
  });

  it('--window and --failure-window: what is counted moves with them', async () => {
    const [lastDay] = (await metricsJson('flux-system/podinfo', '--window', '1d')).pipelines;
    assert.deepEqual(
      lastDay?.environments.map((env) => env.deployments),
      [0, 0, 0],
      'every deployment is older than a day',
    );
    assert.equal(lastDay?.leadTime.revisions, 0);
    const [narrow] = (await metricsJson('flux-system/podinfo', '--failure-window', '15m')).pipelines;
    assert.equal(narrow?.environments[2]?.changeFailureRate.rate, 0, 'the regression came 30m after');
  });

  it('refuses an unknown pipeline and a window it cannot read', async () => {
    const missing = await cli('metrics', 'flux-system/nope');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: pipeline flux-system\/nope not found in local data directory /);
    const tooLong = await cli('metrics', '--window', '91d');
    assert.notEqual(tooLong.code, 0);
    assert.match(tooLong.stderr, /--window <span>' argument '91d' is invalid\. must be from 1h to 90d/);
  });
});

describe('pipelinectl metrics --aws', () => {
  const stack = useDeployedStack();

  it("reads the facts the verifier recorded in the stack's table, each once", async () => {
    const store = stack().store;
    const resolved = resolvePipeline(pipelineDocument);
    const now = Date.now();
    const ago = (hours: number) => new Date(now - hours * HOUR);
    await store.applyPipeline(pipelineDocument, resolved, ago(4));
    const ready: TargetStatus = { revision: '6.9.2', phase: 'Ready', reason: 'Deployed', message: 'deployed 6.9.2' };
    const targets = [app('dev', 'apps'), app('prod', 'apps'), app('prod', 'apps-eu')];
    await store.recordTargetStatus(app('dev', 'apps'), ready, ago(3));
    await store.appendAudit({
      at: ago(2.5).toISOString(),
      pipeline: PIPELINE,
      type: 'promotion-succeeded',
      env: 'prod',
      revision: '6.9.2',
      message: 'promoted 6.9.2',
    });
    await store.recordTargetStatus(app('prod', 'apps'), ready, ago(2.2));
    await store.recordTargetStatus(app('prod', 'apps-eu'), ready, ago(2));

    // The verifier's module, run as two redundant evaluations would run it.
    const deps = { store, now: () => new Date(now), workerId: 'metrics-aws-test', logger: silentLogger };
    for (let evaluation = 0; evaluation < 2; evaluation += 1) {
      await recordEnvironmentFacts(resolved, await store.getTargetStatuses(targets), deps);
    }
    const facts = (await store.listAudit(PIPELINE)).items.filter((entry) => entry.type === 'environment-passed');
    assert.deepEqual(
      facts.map((entry) => [entry.env, entry.revision, entry.at]),
      [
        ['prod', '6.9.2', ago(2).toISOString()],
        ['dev', '6.9.2', ago(3).toISOString()],
      ],
      'one fact per environment, at when its last target became Ready, none from the redundant evaluation',
    );

    const backend = await stack().open();
    try {
      const query = { pipeline: PIPELINE, windowMs: 30 * 24 * HOUR, failureWindowMs: HOUR, now: new Date(now) };
      const [podinfo] = toJson(await readMetrics(backend, query)).pipelines;
      assert.deepEqual(podinfo?.leadTime, { revisions: 1, medianMs: HOUR, p90Ms: HOUR });
      assert.deepEqual(
        podinfo?.environments.map((env) => [env.name, env.deployments, env.promotions, env.changeFailureRate]),
        [
          ['dev', 1, 0, { deployments: 1, failed: 0, pending: 0, rate: 0 }],
          ['prod', 1, 1, { deployments: 1, failed: 0, pending: 0, rate: 0 }],
        ],
      );
    } finally {
      await backend.close();
    }
  });
});
