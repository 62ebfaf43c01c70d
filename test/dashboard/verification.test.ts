// The pipeline page shows what an environment's verification checks last found (docs/verification.md): each check's
// verdict in words, the value seen and when, and the time the checks have left to hold; `status -o json` the same.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { startDashboard, type RunningDashboard } from '../../lib/cli/dashboard/server.js';
import type { Backend } from '../../lib/cli/backend.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { CLUSTERS, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { writeFiles } from '../support/temp-files.js';
import { ownerCookieOf } from './owner-cookie.js';
import { send } from './world.js';
import { silentLogger } from '../../lib/logging/logger.js';

const PIPELINE = { namespace: 'flux-system', name: 'checked' };
const DOCUMENT = `
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: checked, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: checked }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: staging
      targets: [{ namespace: apps-staging, clusterRef: { kind: GitopsCluster, name: prod } }]
      verification:
        for: 10m
        checks:
          - name: errors
            cloudwatchAlarms: { alarmNames: [checked-5xx], region: eu-west-1 }
          - name: smoke
            http: { url: 'https://staging.acme.example/healthz' }
  promotion:
    strategy:
      notification: {}
      secretRef: { name: webhook-hmac }
`;

describe('the dashboard shows verification checks', () => {
  let root = '';
  let dashboard: RunningDashboard;
  let backend: Backend;
  let cookie = '';
  let closed = false;
  const checkedAt = new Date(Date.now() - 30_000).toISOString();
  const holdingSince = new Date(Date.now() - 4 * 60_000).toISOString();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-verification-'));
    const dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': DOCUMENT,
    });
    const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
    assert.equal(applied.code, 0, applied.stderr);
    backend = await openLocalBackend(dataDir, silentLogger);
    const ready = (revision: string) => ({
      revision,
      phase: 'Ready' as const,
      reason: 'Deployed' as const,
      message: 'ok',
    });
    const app = (cluster: string, namespace: string) => ({
      cluster: { namespace: 'flux-system', name: cluster },
      kind: 'HelmRelease' as const,
      namespace,
      name: 'checked',
    });
    await backend.store.recordTargetStatus(app('dev', 'apps'), ready('6.9.2'), new Date());
    await backend.store.recordTargetStatus(app('prod', 'apps-staging'), ready('6.9.2'), new Date());
    const result = (name: string, kind: 'cloudwatchAlarms' | 'http', value: string) => ({
      name,
      kind,
      verdict: 'passed' as const,
      reason: kind === 'http' ? ('AsExpected' as const) : ('AlarmsOK' as const),
      value,
      message: `${name}: ${value}`,
      checkedAt,
    });
    const stored = await backend.store.putVerification(
      PIPELINE,
      {
        env: 'staging',
        revision: '6.9.2',
        startedAt: holdingSince,
        checkedAt,
        holdingSince,
        results: [result('errors', 'cloudwatchAlarms', 'checked-5xx OK'), result('smoke', 'http', 'HTTP 200')],
      },
      0,
    );
    assert.equal(stored, true);
    dashboard = await startDashboard({ backend, logger: silentLogger });
    cookie = await ownerCookieOf(dashboard.ownerUrl);
  });
  after(async () => {
    if (!closed) {
      await dashboard?.close();
      await backend?.close();
    }
    await rm(root, { recursive: true, force: true });
  });

  it('the environment verifying: each check with its verdict, value and time, and the time left to hold', async () => {
    const page = await send(`${dashboard.url}pipelines/flux-system/checked`, { headers: { cookie } });
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /title="verifying">verifying<\/span>/);
    assert.match(page.body, /Verification of 6\.9\.2: not decided yet/);
    assert.match(page.body, /data-check="errors"[\s\S]*?cloudwatchAlarms[\s\S]*?verdict-passed[\s\S]*?checked-5xx OK/);
    assert.match(page.body, /data-check="smoke"[\s\S]*?http[\s\S]*?HTTP 200/);
    assert.match(page.body, /verified once the checks hold: <time datetime="[^"]+">\d+m left/);
  });

  it('status -o json carries the same record', async () => {
    // The CLI opens the data directory itself: the dashboard's hold on it ends first.
    await dashboard.close();
    await backend.close();
    closed = true;
    const run = await runCli(['status', 'flux-system/checked', '-o', 'json', '--data-dir', join(root, 'data')]);
    assert.equal(run.code, 0, run.stderr);
    const staging = (JSON.parse(run.stdout) as StatusJson).pipelines[0]?.environments[1];
    assert.equal(staging?.state, 'verifying');
    assert.equal(staging?.reason, 'VerificationHolding');
    assert.deepEqual(
      staging?.verification?.checks.map((check) => [check.name, check.verdict]),
      [
        ['errors', 'passed'],
        ['smoke', 'passed'],
      ],
    );
    assert.equal(staging?.verification?.holdingSince, holdingSince);
  });
});
