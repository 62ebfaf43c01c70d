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
import type { AuditEntry, ConfigSyncResult, Store } from '../../lib/store/port.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { writeFiles } from '../support/temp-files.js';
import { pipelineWithStagingApproval } from '../cli/approval-fixtures.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { ownerCookieOf } from './owner-cookie.js';
import { silentLogger } from '../../lib/logging/logger.js';

/** A leaf cluster's message with markup in it: the pages must show it as text. */
export const HOSTILE_MESSAGE = '<script>window.pwned = true</script><b>deployed</b>';
/** The values of the fixtures' Secrets: no page may show them. */
export const SECRET_VALUES = ['not-so-secret', 'ghp_test', 'Z2hwX3Rlc3Q='];
/** What the promoter answers, so the page can link the pull request. */
export const PULL_REQUEST_URL = 'https://github.com/acme/fleet/pull/7';

const HOUR_MS = 3_600_000;

/** The `healthyPipeline` option's pipeline: every environment runs 2.4.0 and is healthy, nothing waits for anyone. */
export const HEALTHY_PIPELINE: ObjectKey = { namespace: 'flux-system', name: 'api' };
/** When each of its environments' targets reached 2.4.0, in hours before the world started. */
export const HEALTHY_SINCE_HOURS = { dev: 3, staging: 2, prod: 1 } as const;

const HEALTHY_PIPELINE_DOCUMENT = `
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: api, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: api }
  environments:
    - name: dev
      targets: [{ namespace: api, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: staging
      targets: [{ namespace: api-staging, clusterRef: { kind: GitopsCluster, name: prod } }]
    - name: prod
      targets: [{ namespace: api, clusterRef: { kind: GitopsCluster, name: prod } }]
  promotion:
    strategy:
      notification: {}
      secretRef: { name: webhook-hmac }
`;

/** The `diamondPipeline` option's pipeline: staging feeds prod-eu and prod-us, which both feed global (`after`). */
export const DIAMOND_PIPELINE: ObjectKey = { namespace: 'flux-system', name: 'shop' };
/** What every one of its targets runs, Ready. */
export const DIAMOND_REVISION = '3.1.0';

const DIAMOND_PIPELINE_DOCUMENT = `
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: shop, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: shop }
  environments:
    - name: staging
      targets: [{ namespace: shop-staging, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod-eu
      after: [staging]
      targets: [{ namespace: shop-eu, clusterRef: { kind: GitopsCluster, name: prod } }]
    - name: prod-us
      after: [staging]
      targets: [{ namespace: shop-us, clusterRef: { kind: GitopsCluster, name: prod } }]
    - name: global
      after: [prod-eu, prod-us]
      targets: [{ namespace: shop, clusterRef: { kind: GitopsCluster, name: prod } }]
  promotion:
    strategy:
      notification: {}
      secretRef: { name: webhook-hmac }
`;

/** A ConfigSource whose commit is in force: it applied podinfo. */
export const FLEET_SOURCE: ObjectKey = { namespace: 'flux-system', name: 'fleet' };
/** A ConfigSource whose commit failed validation, with markup in the message (a file's content, a Git host's text). */
export const BROKEN_SOURCE: ObjectKey = { namespace: 'flux-system', name: 'broken' };
export const FLEET_COMMIT = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
export const FLEET_REVISION = `main@sha1:${FLEET_COMMIT}`;
export const BROKEN_REVISION = `release@sha1:${'9'.repeat(40)}`;
export const BROKEN_SOURCE_MESSAGE = `commit ${BROKEN_REVISION}: platform/podinfo.yaml: spec.environments: <script>window.sourcePwned = true</script> is not a list`;

const CONFIG_SOURCES = `
apiVersion: v1
kind: Secret
metadata: { name: fleet-config, namespace: flux-system }
stringData: { token: read-only }
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
  secretRef: { name: fleet-config }
`;

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

/** A sync of `revision` as the verifier ends one: claimed for the source's generation, then finished. */
async function recordSync(store: Store, source: ObjectKey, revision: string, result: ConfigSyncResult, at: Date) {
  const stored = await store.getConfigSource(source);
  assert.ok(stored);
  const claim = await store.claimConfigSync(source, revision, stored.generation, at, 60_000);
  assert.ok(claim);
  assert.ok(await store.finishConfigSync(claim, result, at));
}

/** What the `configSources` option records: fleet's commit applied podinfo, broken's commit failed validation. */
async function recordConfigSourceSyncs(store: Store): Promise<void> {
  const at = new Date(Date.now() - HOUR_MS);
  const ready = { status: 'True', reason: 'Succeeded', message: `applied ${FLEET_REVISION}: 1 object` } as const;
  await recordSync(
    store,
    FLEET_SOURCE,
    FLEET_REVISION,
    {
      attempted: true,
      appliedRevision: FLEET_REVISION,
      applied: 1,
      skipped: 0,
      ready,
    },
    at,
  );
  const failed = { status: 'False', reason: 'ValidationFailed', message: BROKEN_SOURCE_MESSAGE } as const;
  await recordSync(store, BROKEN_SOURCE, BROKEN_REVISION, { attempted: true, ready: failed }, at);
  const podinfo = await store.getPipeline(PIPELINE);
  assert.ok(podinfo);
  await store.applyPipeline(podinfo.document, podinfo.pipeline, at, {
    configSource: FLEET_SOURCE,
    revision: FLEET_REVISION,
  });
  await store.appendConfigAudit({
    at: at.toISOString(),
    configSource: FLEET_SOURCE,
    type: 'config-applied',
    revision: FLEET_REVISION,
    author: 'Ada <ada@example.com>',
    message: `applied ${FLEET_REVISION}`,
    created: ['pipeline flux-system/podinfo'],
    configured: ['gitopscluster flux-system/dev'],
    pruned: ['pipeline flux-system/retired'],
    actor: 'configsource:flux-system/fleet',
  });
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
  /**
   * Two ConfigSources, synced as the verifier's sync records a sync: `fleet` Ready at FLEET_REVISION, which applied
   * podinfo (and has one applied commit in its trail), and `broken` not Ready (ValidationFailed, BROKEN_SOURCE_MESSAGE).
   */
  configSources?: boolean;
  /**
   * A second pipeline, HEALTHY_PIPELINE, stored before podinfo (its name sorts first): dev, staging and prod all run
   * 2.4.0, reached HEALTHY_SINCE_HOURS ago.
   */
  healthyPipeline?: boolean;
  /** A second pipeline, DIAMOND_PIPELINE, whose environments form a diamond; all run DIAMOND_REVISION. */
  diamondPipeline?: boolean;
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
  if (options.configSources) await writeFiles(root, { 'config/sources.yaml': CONFIG_SOURCES });
  if (options.healthyPipeline) await writeFiles(root, { 'config/api.yaml': HEALTHY_PIPELINE_DOCUMENT });
  if (options.diamondPipeline) await writeFiles(root, { 'config/shop.yaml': DIAMOND_PIPELINE_DOCUMENT });
  const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
  assert.equal(applied.code, 0, applied.stderr);

  const opened = await openLocalBackend(dataDir, silentLogger);
  if (options.configSources) await recordConfigSourceSyncs(opened.store);
  const promoter: Promoter = { promote: () => Promise.resolve({ result: PULL_REQUEST_URL }) };
  const verifier = createVerifier({
    store: opened.store,
    queue: new RecordingQueue(),
    clusters: new ScriptedClusters(),
    promoter,
    logger: silentLogger,
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
  if (options.healthyPipeline) {
    const api = (cluster: string, namespace: string): AppKey => ({ ...app(cluster, namespace), name: 'api' });
    const since = (env: keyof typeof HEALTHY_SINCE_HOURS) =>
      new Date(now.getTime() - HEALTHY_SINCE_HOURS[env] * HOUR_MS);
    await opened.store.recordTargetStatus(api('dev', 'api'), status('2.4.0'), since('dev'));
    await opened.store.recordTargetStatus(api('prod', 'api-staging'), status('2.4.0'), since('staging'));
    await opened.store.recordTargetStatus(api('prod', 'api'), status('2.4.0'), since('prod'));
    await verify({ type: 'check-pipeline', pipeline: HEALTHY_PIPELINE, cause: 'apply', readTargets: false });
  }
  if (options.diamondPipeline) {
    const shop = (cluster: string, namespace: string): AppKey => ({ ...app(cluster, namespace), name: 'shop' });
    for (const [cluster, namespace] of [
      ['dev', 'shop-staging'],
      ['prod', 'shop-eu'],
      ['prod', 'shop-us'],
      ['prod', 'shop'],
    ] as const) {
      await opened.store.recordTargetStatus(shop(cluster, namespace), status(DIAMOND_REVISION), now);
    }
    await verify({ type: 'check-pipeline', pipeline: DIAMOND_PIPELINE, cause: 'apply', readTargets: false });
  }

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
  const dashboard = await startDashboard({ backend, logger: silentLogger, refreshMs: options.refreshMs ?? 200 });
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
