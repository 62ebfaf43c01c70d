// A local data directory for the dashboard tests, made as a user makes one: the CLI fixtures' configuration applied
// with `pipelinectl apply`, the targets' statuses recorded as the poller records them, and the real verifier (in this
// process, on the data directory's store) asking for an approval of 6.9.2 in the manual `staging`. The dashboard then
// runs in this process over that backend; the promote messages an approval hands on are kept for the test to give
// to the verifier when it chooses, so what a page shows at each step is certain.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { startDashboard, type RunningDashboard } from '../../lib/cli/dashboard/server.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import type { Promoter } from '../../lib/promotion/port.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import type { AuditEntry, Store } from '../../lib/store/port.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../cli/helpers.js';

/** A leaf cluster's message with markup in it: the pages must show it as text. */
export const HOSTILE_MESSAGE = '<script>window.pwned = true</script><b>deployed</b>';
/** The values of the fixtures' Secrets: no page may show them. */
export const SECRET_VALUES = ['not-so-secret', 'ghp_test', 'Z2hwX3Rlc3Q='];
/** What the promoter answers, so the page can link the pull request. */
export const PULL_REQUEST_URL = 'https://github.com/acme/fleet/pull/7';

const HOUR_MS = 3_600_000;

/**
 * Facts of podinfo's past the metrics are computed from, `[hours ago, type, env, revision]`: 6.9.1 reaches prod in
 * 4h and regresses there within the failure window; 6.9.2 reaches it in 30m and restores prod after 2h.
 */
export const METRICS_TRAIL: readonly (readonly [number, AuditEntry['type'], string, string])[] = [
  [50, 'environment-passed', 'dev', '6.9.1'],
  [48, 'environment-passed', 'staging', '6.9.1'],
  [46, 'environment-passed', 'prod', '6.9.1'],
  [45.5, 'environment-regressed', 'prod', '6.9.1'],
  [44, 'environment-passed', 'dev', '6.9.2'],
  [44, 'environment-passed', 'staging', '6.9.2'],
  [44, 'promotion-succeeded', 'prod', '6.9.2'],
  [43.5, 'environment-passed', 'prod', '6.9.2'],
];

/** Writes METRICS_TRAIL into podinfo's audit trail, as the verifier records such facts. */
export async function recordMetricsTrail(store: Pick<Store, 'appendAudit'>, now = Date.now()): Promise<void> {
  for (const [hoursAgo, type, env, revision] of METRICS_TRAIL) {
    const at = new Date(now - hoursAgo * HOUR_MS).toISOString();
    await store.appendAudit({ at, pipeline: PIPELINE, type, env, revision, message: type, actor: 'test' });
  }
}

export interface DashboardWorld {
  dashboard: RunningDashboard;
  backend: Backend;
  /** Promote messages the dashboard's approvals handed on, not yet given to the verifier. */
  pending: QueueMessage[];
  /** Gives the verifier every pending message, as `serve` would. */
  deliverPending(): Promise<void>;
  close(): Promise<void>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

const status = (revision: string, message = `deployed ${revision}`): TargetStatus => ({
  revision,
  phase: 'Ready',
  reason: 'Deployed',
  message,
});
const app = (cluster: string, namespace: string): AppKey => ({
  cluster: { namespace: 'flux-system', name: cluster },
  kind: 'HelmRelease',
  namespace,
  name: 'podinfo',
});

export async function startDashboardWorld(options: { refreshMs?: number } = {}): Promise<DashboardWorld> {
  const root = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-'));
  const dataDir = join(root, 'data');
  await writeFiles(root, {
    'config/clusters.yaml': CLUSTERS,
    'config/secrets.yaml': SECRETS,
    'config/pipeline.yaml': pipeline('apps'),
  });
  const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
  assert.equal(applied.code, 0, applied.stderr);

  const opened = await openLocalBackend(dataDir, silent);
  const promoter: Promoter = { promote: () => Promise.resolve({ result: PULL_REQUEST_URL }) };
  const verifier = createVerifier({
    store: opened.store,
    queue: new RecordingQueue(),
    clusters: new ScriptedClusters(),
    promoter,
    logger: silent,
    now: () => new Date(),
    workerId: 'dashboard-test',
  });
  let messages = 0;
  const verify = (message: QueueMessage) => verifier(message, { messageId: `message-${++messages}`, receiveCount: 1 });

  const now = new Date();
  await opened.store.recordTargetStatus(app('dev', 'apps'), status('6.9.2', HOSTILE_MESSAGE), now);
  await opened.store.recordTargetStatus(app('prod', 'apps-staging'), status('6.9.1'), now);
  await opened.store.recordTargetStatus(app('prod', 'apps'), status('6.9.1'), now);
  await verify({ type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: false });

  const pending: QueueMessage[] = [];
  // The backend as `pipelinectl dashboard` gets it, but a running serve's queue is this list.
  const backend: Backend = {
    ...opened,
    enqueue: (message) => {
      pending.push(message);
      return Promise.resolve(true);
    },
  };
  const dashboard = await startDashboard({ backend, logger: silent, refreshMs: options.refreshMs ?? 200 });
  return {
    dashboard,
    backend,
    pending,
    deliverPending: async () => {
      for (const message of pending.splice(0)) await verify(message);
    },
    close: async () => {
      await dashboard.close();
      await opened.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
