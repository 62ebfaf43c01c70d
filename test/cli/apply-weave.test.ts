// `pipelinectl apply` of configurations as Weave's pipeline-controller accepts them, run as a user runs it (child
// processes on a temporary data directory, no serve), and what the decision then makes of them: a pipeline-level
// strategy holding only the webhook key, both strategies in one block and the same target in two environments
// (applied with warnings on standard error, in a dry run too), and a `kubectl get pipelines -o yaml` export whose
// status waits for an approval (carried over as the environment's approval marker, never over a marker already
// there). Between runs the test records what a verifier would have read, through the store, with the data directory
// opened in this process and closed again (one process at a time may hold it).
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExplainJson } from '../../lib/cli/operations/explain.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { AppKey, ObjectKey } from '../../lib/pipeline/model.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/strategies.js';
import type { Promoter } from '../../lib/promotion/port.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { writeFiles } from '../support/temp-files.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';

const weave = join(import.meta.dirname, '..', 'fixtures', 'weave');
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

const CLUSTERS = ['dev', 'prod', 'management']
  .map(
    (name) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: flux-system}
spec: {eks: {clusterName: ${name}, region: eu-west-1}}
`,
  )
  .join('---\n');

const SECRETS = `apiVersion: v1
kind: Secret
metadata: {name: github-promotion-credentials, namespace: flux-system}
stringData: {token: ghp_test}
---
apiVersion: v1
kind: Secret
metadata: {name: promotion-hmac, namespace: flux-system}
stringData: {hmac-key: not-so-secret}
`;

/** Both strategies in one block, and qa listing dev's target again: accepted by Weave. */
const BOTH = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: both, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: web}
  environments:
    - name: dev
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: qa
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion:
    strategy:
      pull-request: {type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: github-promotion-credentials}}
      notification: {}
      secretRef: {name: promotion-hmac}
`;

/** The webhook key alone at the pipeline level, and no strategy for prod. */
const KEY_ONLY = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: key-only, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: api}
  environments:
    - name: dev
      targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion:
    strategy: {secretRef: {name: promotion-hmac}}
`;

/** A single exported document (not a List) whose prod waits for 2.0.0. */
const API_EXPORT = (status: boolean) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: api, namespace: flux-system, resourceVersion: "77", uid: 0b5c3a1e-2f5e-4b57-a1b4-7d7f3e0b9c21}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2beta1, kind: HelmRelease, name: api}
  environments:
    - name: dev
      targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: prod}}]
      promotion: {manual: true, strategy: {notification: {}}}
${status ? 'status:\n  environments:\n    prod: {waitingApproval: {revision: 2.0.0}}\n' : ''}`;

const ready = (revision: string): TargetStatus => ({
  revision,
  phase: 'Ready',
  reason: 'Deployed',
  message: `deployed ${revision} (UpgradeSucceeded)`,
});
const app = (name: string, cluster: string, namespace: string): AppKey => ({
  cluster: { namespace: 'flux-system', name: cluster },
  kind: 'HelmRelease',
  namespace,
  name,
});
const key = (name: string): ObjectKey => ({ namespace: 'flux-system', name });

describe('pipelinectl apply of Weave configurations (local data directory)', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const path = (file: string) => join(root, file);

  /** Runs `use` on the data directory opened in this process (no CLI run may hold it meanwhile). */
  async function withStore<T>(use: (backend: Backend) => Promise<T>): Promise<T> {
    const backend = await openLocalBackend(dataDir);
    try {
      return await use(backend);
    } finally {
      await backend.close();
    }
  }

  /**
   * A verifier's `check-pipeline` of the pipeline, promoting through `promoter`: on the stored state alone, or after
   * reading its targets from `clusters` (as after an apply).
   */
  async function verify(
    pipeline: ObjectKey,
    promoter: Promoter,
    read: { clusters: ScriptedClusters } | undefined = undefined,
  ): Promise<void> {
    await withStore(async (backend) => {
      const handle = createVerifier({
        store: backend.store,
        queue: new RecordingQueue(),
        clusters: read?.clusters ?? new ScriptedClusters(),
        promoter,
        logger: silent,
        now: () => new Date(),
        workerId: 'test',
      });
      await handle(
        { type: 'check-pipeline', pipeline, cause: read ? 'apply' : 'approval', readTargets: read !== undefined },
        { messageId: 'm', receiveCount: 1 },
      );
    });
  }

  async function explain(pipeline: string): Promise<ExplainJson> {
    const run = await cli('explain', `flux-system/${pipeline}`, '-o', 'json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as ExplainJson;
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-weave-'));
    dataDir = path('data');
    await writeFiles(root, {
      'base/clusters.yaml': CLUSTERS,
      'base/secrets.yaml': SECRETS,
      'both.yaml': BOTH,
      'key-only.yaml': KEY_ONLY,
      'api.yaml': API_EXPORT(false),
      'api-export.yaml': API_EXPORT(true),
    });
    await copyFile(join(weave, 'env-strategies', 'pipeline.yaml'), path('env-strategies.yaml'));
    await copyFile(join(weave, 'export', 'pipelines.yaml'), path('export.yaml'));
    const base = await cli('apply', '-f', path('base'));
    assert.equal(base.code, 0, base.stderr);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('a pipeline-level strategy with only the webhook key applies; environments use their own strategy or none', async () => {
    const run = await cli(
      'apply',
      '-f',
      path('env-strategies.yaml'),
      '-f',
      path('key-only.yaml'),
      '--default-cluster',
      'flux-system/management',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(lines(run.stdout), [
      'pipeline flux-system/podinfo-github created',
      'pipeline flux-system/key-only created',
      'secret flux-system/promotion-hmac marked webhook-hmac',
      'secret flux-system/github-promotion-credentials marked git-credentials',
    ]);
    assert.doesNotMatch(run.stderr, /^(warning|error): .*(strategy|secretRef)/m);

    await withStore(async ({ store }) => {
      const now = new Date();
      await store.recordTargetStatus(app('podinfo', 'management', 'dev-github'), ready('6.0.1'), now);
      await store.recordTargetStatus(app('podinfo', 'management', 'staging-github'), ready('6.0.0'), now);
      await store.recordTargetStatus(app('podinfo', 'management', 'prod-github'), ready('6.0.0'), now);
      await store.recordTargetStatus(app('api', 'dev', 'api'), ready('2.0.0'), now);
      await store.recordTargetStatus(app('api', 'prod', 'api'), ready('1.0.0'), now);
    });
    const podinfo = await explain('podinfo-github');
    assert.deepEqual(
      podinfo.environments.map((env) => [env.name, env.strategy, env.manual, env.state, env.message]),
      [
        ['dev', null, false, 'source', podinfo.environments[0]?.message],
        ['staging', 'pull-request', false, 'promoting', 'promoting 6.0.1 by pull-request'],
        ['prod', 'pull-request', true, 'not-reached', podinfo.environments[2]?.message],
      ],
    );
    assert.deepEqual(
      podinfo.next.map((action) => ({ ...action, evidence: undefined })),
      [{ type: 'promote', env: 'staging', revision: '6.0.1', evidence: undefined }],
    );
    const [next] = podinfo.next;
    assert.equal(next?.type === 'promote' ? next.evidence?.from : undefined, 'dev', 'what the promotion is based on');

    const keyOnly = await explain('key-only');
    assert.deepEqual(
      keyOnly.environments.map((env) => [env.name, env.strategy, env.state, env.reason, env.message]),
      [
        ['dev', null, 'source', 'CandidateFound', keyOnly.environments[0]?.message],
        ['prod', null, 'no-strategy', 'NoStrategy', 'no promotion configured for prod: 2.0.0 is not promoted'],
      ],
    );
    assert.deepEqual(keyOnly.next, []);
  });

  it('both strategies and a repeated target: warnings naming file and field on stderr (dry run too); the pull request wins', async () => {
    const file = path('both.yaml');
    const warnings = [
      `warning: ${file}:10:17: Pipeline flux-system/both: spec.environments[1].targets[0]: the same target as environments[0].targets[0] (cluster flux-system/dev, namespace web): accepted, as in Weave; it is read once and its status counts in every environment that lists it`,
      `warning: ${file}:16:7: Pipeline flux-system/both: spec.promotion.strategy.notification: pull-request and notification are both set: the pull request is used and notification is ignored, as in Weave (remove one of them)`,
    ];
    const dry = await cli('apply', '-f', file, '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(lines(dry.stdout), ['pipeline flux-system/both created (dry run)']);
    assert.deepEqual(lines(dry.stderr), warnings);

    const run = await cli('apply', '-f', file);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(lines(run.stdout), ['pipeline flux-system/both created']);
    assert.deepEqual(
      lines(run.stderr).filter((line) => line.startsWith('warning: ')),
      warnings,
    );

    // As Weave's level-triggered controller does: qa's only target is dev's, so qa has what dev has; prod is next.
    await withStore(async ({ store }) => {
      const now = new Date();
      await store.recordTargetStatus(app('web', 'dev', 'web'), ready('1.0.0'), now);
      await store.recordTargetStatus(app('web', 'prod', 'web'), ready('0.9.0'), now);
    });
    const both = await explain('both');
    assert.deepEqual(
      both.environments.map((env) => [env.name, env.strategy, env.state]),
      [
        ['dev', 'pull-request', 'source'],
        ['qa', 'pull-request', 'passed'],
        ['prod', 'pull-request', 'promoting'],
      ],
    );
    assert.equal(both.environments[2]?.message, 'promoting 1.0.0 by pull-request');

    const pullRequests = new RecordingPromoter();
    const notifications = new RecordingPromoter();
    await verify(key('both'), new StrategyPromoter({ pullRequest: pullRequests, notification: notifications }));
    assert.deepEqual(
      pullRequests.promotions().map(({ env, revision }) => [env, revision]),
      [['prod', '1.0.0']],
    );
    assert.deepEqual(notifications.promotions(), [], 'no notification is sent');

    // The repeated target is read once when the pipeline's targets are read.
    const clusters = new ScriptedClusters();
    await verify(key('both'), new RecordingPromoter(), { clusters });
    assert.deepEqual(clusters.calls.map((call) => (call.method === 'getApp' ? call.app : call.method)).sort(), [
      'flux-system/dev/HelmRelease/web/web',
      'flux-system/prod/HelmRelease/web/web',
    ]);
  });

  it("a kubectl export's waiting approval becomes the environment's marker: status and explain show it, approve promotes it", async () => {
    const dry = await cli('apply', '-f', path('export.yaml'), '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(lines(dry.stdout), [
      'pipeline flux-system/podinfo created (dry run)',
      'pipeline flux-system/podinfo: approval of 6.0.1 in prod carried over from the Pipeline status (dry run)',
    ]);
    assert.equal(await withStore(({ store }) => store.getApproval(key('podinfo'), 'prod')), undefined);

    const run = await cli('apply', '-f', path('export.yaml'));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(lines(run.stdout), [
      'pipeline flux-system/podinfo created',
      'pipeline flux-system/podinfo: approval of 6.0.1 in prod carried over from the Pipeline status',
    ]);
    // (staging is promoted by notification: a warning of its own says whether a sink will carry it out.)
    assert.doesNotMatch(run.stderr, /^warning: .*(waitingApproval|the same target|both set)/m);

    await withStore(async ({ store }) => {
      const now = new Date();
      await store.recordTargetStatus(app('podinfo', 'dev', 'podinfo'), ready('6.0.1'), now);
      await store.recordTargetStatus(app('podinfo', 'prod', 'podinfo-staging'), ready('6.0.1'), now);
      await store.recordTargetStatus(app('podinfo', 'prod', 'podinfo'), ready('6.0.0'), now);
      const audit = await store.listAudit(key('podinfo'));
      assert.deepEqual(
        audit.items.map((entry) => [entry.type, entry.env, entry.revision, entry.message]),
        [['approval-requested', 'prod', '6.0.1', 'approval of 6.0.1 in prod carried over from the Pipeline status']],
      );
    });

    const status = await cli('status', 'flux-system/podinfo', '-o', 'json');
    assert.equal(status.code, 0, status.stderr);
    const prod = (JSON.parse(status.stdout) as StatusJson).pipelines[0]?.environments[2];
    assert.deepEqual([prod?.name, prod?.state, prod?.reason], ['prod', 'waiting-approval', 'AwaitingApproval']);
    assert.deepEqual([prod?.approval?.revision, prod?.approval?.waiting], ['6.0.1', true]);
    const explained = await cli('explain', 'flux-system/podinfo', 'prod');
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(
      explained.stdout,
      /^prod: waits for approval \(waiting-approval\/AwaitingApproval, manual, pull-request\): waiting for approval of 6\.0\.1/m,
    );

    const approved = await cli('approve', 'flux-system/podinfo', 'prod');
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(lines(approved.stdout)[0], `approved flux-system/podinfo prod 6.0.1 as local:${userInfo().username}`);
    const promoter = new RecordingPromoter();
    await verify(key('podinfo'), promoter);
    assert.deepEqual(
      promoter.promotions().map(({ pipeline, env, revision }) => [pipeline, env, revision]),
      [['flux-system/podinfo', 'prod', '6.0.1']],
    );

    // Once that approval is done with, applying the same export again carries nothing over again.
    await withStore(({ store }) => store.clearApproval(key('podinfo'), 'prod', '6.0.1'));
    const again = await cli('apply', '-f', path('export.yaml'));
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(lines(again.stdout), ['pipeline flux-system/podinfo unchanged']);
    assert.equal(await withStore(({ store }) => store.getApproval(key('podinfo'), 'prod')), undefined);
  });

  it('a marker already there is not replaced by the exported one', async () => {
    const first = await cli('apply', '-f', path('api.yaml'));
    assert.equal(first.code, 0, first.stderr);
    await withStore(async ({ store }) => {
      assert.equal(await store.requestApproval(key('api'), 'prod', '2.1.0', new Date()), 'requested');
    });
    const run = await cli('apply', '-f', path('api-export.yaml'));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(lines(run.stdout), [
      'pipeline flux-system/api configured',
      'pipeline flux-system/api: approval of 2.0.0 in prod not carried over from the Pipeline status: the marker there is for 2.1.0',
    ]);
    const marker = await withStore(({ store }) => store.getApproval(key('api'), 'prod'));
    assert.equal(marker?.revision, '2.1.0');
  });
});
