// A local data directory for the dashboard tests, made as a user makes one: the CLI fixtures' configuration applied
// with `pipelinectl apply`, the targets' statuses recorded as the poller records them, and the real verifier (in this
// process, on the data directory's store) asking for an approval of 6.9.2 in the manual `staging`. The dashboard then
// runs in this process over that backend; the promote messages an approval hands on are kept for the test to give
// to the verifier when it chooses, so what a page shows at each step is certain.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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
import { pipelineWithStagingApproval } from '../cli/approval-fixtures.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { ownerCookieOf } from './owner-cookie.js';

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

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with exactly these headers (fetch would not let a test forge `Host`). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The header of a form POST. */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export interface DashboardWorld {
  dashboard: RunningDashboard;
  /** The cookie opening the dashboard's owner URL set (`name=value`). */
  ownerCookie: string;
  /** One request to `path` on the dashboard as its owner: with the owner's cookie unless `headers` has a cookie. */
  send(path: string, options?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Answer>;
  backend: Backend;
  /** Promote messages the dashboard's approvals handed on, not yet given to the verifier. */
  pending: QueueMessage[];
  /** Gives the verifier every pending message, as `serve` would. */
  deliverPending(): Promise<void>;
  /** Makes the dashboard act as `identity` (`local:alice`) from now on; undefined: the operating system's user again. */
  actAs(identity: string | undefined): void;
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

export interface DashboardWorldOptions {
  refreshMs?: number;
  /** An approval policy on the manual staging, as a YAML flow mapping (`{ required: 2 }`). */
  stagingApproval?: string;
}

export async function startDashboardWorld(options: DashboardWorldOptions = {}): Promise<DashboardWorld> {
  const root = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-'));
  const dataDir = join(root, 'data');
  await writeFiles(root, {
    'config/clusters.yaml': CLUSTERS,
    'config/secrets.yaml': SECRETS,
    'config/pipeline.yaml':
      options.stagingApproval === undefined ? pipeline('apps') : pipelineWithStagingApproval(options.stagingApproval),
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
  let actingAs: string | undefined;
  // The backend as `pipelinectl dashboard` gets it, but a running serve's queue is this list, and the identity may be
  // another person's.
  const backend: Backend = {
    ...opened,
    identity: () => (actingAs === undefined ? opened.identity() : Promise.resolve(actingAs)),
    enqueue: (message) => {
      pending.push(message);
      return Promise.resolve(true);
    },
  };
  const dashboard = await startDashboard({ backend, logger: silent, refreshMs: options.refreshMs ?? 200 });
  const ownerCookie = await ownerCookieOf(dashboard.ownerUrl);
  return {
    dashboard,
    ownerCookie,
    send: (path, { headers = {}, ...rest } = {}) =>
      send(new URL(path, dashboard.url).href, { ...rest, headers: { cookie: ownerCookie, ...headers } }),
    backend,
    pending,
    deliverPending: async () => {
      for (const message of pending.splice(0)) await verify(message);
    },
    actAs: (identity) => {
      actingAs = identity;
    },
    close: async () => {
      await dashboard.close();
      await opened.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
