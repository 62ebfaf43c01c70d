// Verification end to end (docs/verification.md, "How a verification runs"): staging's checks, an `http` check
// against a fake service and a `prometheus` check against a fake Prometheus, must hold for `for: 2m` once staging
// runs the candidate before prod is promoted; the verifier evaluates them itself and re-checks on its own schedule.
// The loop runs on a manual clock: time is moved, never slept on.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { decide } from '../../lib/decision/index.js';
import { RECHECK_MS } from '../../lib/decision/verification.js';
import { decisionInputOf, readPipelineState } from '../../lib/pipeline-state/pipeline-state.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import { FakePrometheus } from '../../lib/testing/fake-prometheus.js';
import { verify } from '../../lib/verifier/effects/verify.js';
import { canary } from '../fixtures/flagger-objects.js';
import { ManualClock, PIPELINE, deployed, idle, pipelineDocument, startLoop, upgradeEvent } from './harness.js';

const MINUTE = 60_000;
const SMOKE_TOKEN = 'smoke-token-for-the-loop';
const ERROR_RATE = 'sum(rate(http_requests_total{code=~"5.."}[5m])) / sum(rate(http_requests_total[5m]))';

const target = (name: string) => ({ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name } });

function verifiedStaging(service: FakeHttpTarget, prometheus: FakePrometheus): PipelineDocument {
  return {
    ...pipelineDocument,
    spec: {
      ...pipelineDocument.spec,
      environments: [
        { name: 'dev', targets: [target('dev')] },
        {
          name: 'staging',
          targets: [target('staging')],
          verification: {
            for: '2m',
            checks: [
              {
                name: 'smoke',
                http: {
                  url: `${service.url}/healthz`,
                  bodyContains: '"status":"ok"',
                  secretRef: { name: 'smoke-token' },
                  allowInsecureLoopback: true,
                },
              },
              {
                name: 'error-rate',
                prometheus: { url: prometheus.url, query: ERROR_RATE, below: 0.01, allowInsecureLoopback: true },
              },
            ],
          },
        },
        { name: 'prod', targets: [target('prod')] },
      ],
    },
  } as PipelineDocument;
}

/**
 * dev, staging and prod on 6.9.1 for hours, staging verified on it; the fakes' logs then emptied. The clock stands
 * at a whole second, so the times the views show read back exactly.
 */
async function startAtBaseline(t: TestContext) {
  const service = await FakeHttpTarget.start();
  const prometheus = await FakePrometheus.start();
  t.after(() => service.stop());
  t.after(() => prometheus.stop());
  service.route('/healthz', { status: 200, body: '{"status":"ok"}' });
  prometheus.script(ERROR_RATE, { value: 0.004 });
  const clock = new ManualClock();
  clock.advance(1000 - (clock.now() % 1000));
  const loop = await startLoop(t, {
    pipeline: verifiedStaging(service, prometheus),
    clusters: ['dev', 'staging', 'prod'],
    secrets: { 'smoke-token': { token: SMOKE_TOKEN } },
    clock,
  });
  // As deployEverywhere, but the verification's re-check stays delayed until the clock moves.
  for (const env of ['dev', 'staging', 'prod']) loop.cluster(env).put(deployed('6.9.1'));
  await loop.poll();
  await idle(loop.queue);
  clock.advance(3 * 60 * MINUTE);
  await idle(loop.queue);
  assert.equal((await environments(loop, clock)).staging?.reason, 'VerificationPassed', 'verified on the baseline');
  service.requests.length = 0;
  prometheus.requests.length = 0;
  return { loop, clock, service, prometheus };
}

type Loop = Awaited<ReturnType<typeof startLoop>>;

/** `env` runs 6.9.2 now, and Flux says so. */
async function runs(loop: Loop, env: string): Promise<void> {
  loop.cluster(env).put(deployed('6.9.2'));
  assert.equal(await loop.sendEvent(env, upgradeEvent('6.9.2')), 202);
  await idle(loop.queue);
}

async function advance(loop: Loop, clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await idle(loop.queue);
}

/** Each environment's state, reason, message and verificationEndsAt, as `pipelinectl status` decides them now. */
async function environments(loop: Loop, clock: ManualClock) {
  const state = await readPipelineState(loop.store, PIPELINE);
  assert.ok(state);
  const decision = decide(decisionInputOf(state, new Date(clock.now())));
  return Object.fromEntries(
    decision.environments.map(({ env, state, reason, message, verificationEndsAt }) => [
      env,
      { state, reason, message, verificationEndsAt },
    ]),
  );
}

const promoted = (loop: Loop) => loop.promoter.promotions().map(({ env, revision }) => `${env} ${revision}`);
const at = (clock: ManualClock, ms: number) => new Date(clock.now() + ms).toISOString().replace('.000Z', 'Z');

async function auditOf(loop: Loop, type: string) {
  return (await loop.store.listAudit(PIPELINE)).items
    .filter((entry) => entry.type === type)
    .map(({ env, revision, message }) => ({ env, revision, message }));
}

describe('verification', () => {
  it('promotes prod once staging’s checks have held for `for`, evaluated by the verifier’s own re-checks', async (t) => {
    const { loop, clock, service, prometheus } = await startAtBaseline(t);
    await runs(loop, 'dev');
    assert.deepEqual(promoted(loop), ['staging 6.9.2']);

    const endsAt = at(clock, 2 * MINUTE);
    await runs(loop, 'staging');
    const holding = await environments(loop, clock);
    assert.deepEqual(
      [holding.staging?.state, holding.staging?.reason, holding.staging?.verificationEndsAt],
      ['verifying', 'VerificationHolding', endsAt],
    );
    assert.deepEqual(holding.prod?.reason, 'StoppedEarlier', JSON.stringify(holding.prod));
    assert.equal(service.requests.length, 1, 'the http check evaluated once');
    assert.equal(
      service.requests[0]?.headers.authorization,
      `Bearer ${SMOKE_TOKEN}`,
      'with the token of the Secret it names, read in the pipeline’s namespace',
    );
    assert.equal(prometheus.requests.length, 1, 'the query asked once');
    assert.deepEqual(
      prometheus.requests.map((request) => request.query),
      [ERROR_RATE],
    );

    await advance(loop, clock, RECHECK_MS + 1000);
    assert.equal(service.requests.length, 2, 'evaluated again by the verifier’s re-check, without a poll');
    assert.equal((await environments(loop, clock)).staging?.reason, 'VerificationHolding');
    assert.deepEqual(promoted(loop), ['staging 6.9.2'], 'within `for`: nothing promoted to prod');

    // The next re-check comes when `for` ends (and a second): that evaluation passes the environment.
    await advance(loop, clock, 2 * MINUTE - RECHECK_MS);
    const passed = await environments(loop, clock);
    assert.deepEqual([passed.staging?.state, passed.staging?.reason], ['passed', 'VerificationPassed']);
    assert.deepEqual(promoted(loop), ['staging 6.9.2', 'prod 6.9.2']);
    assert.deepEqual(
      (await auditOf(loop, 'verification-passed')).map(({ env, revision }) => `${env} ${revision}`).sort(),
      ['staging 6.9.1', 'staging 6.9.2'],
    );
  });

  it('fails staging when the query crosses its threshold within `for`, and promotes nothing to prod', async (t) => {
    const { loop, clock, prometheus } = await startAtBaseline(t);
    await runs(loop, 'dev');
    await runs(loop, 'staging');
    assert.equal((await environments(loop, clock)).staging?.reason, 'VerificationHolding');

    prometheus.script(ERROR_RATE, { value: 0.05 });
    await advance(loop, clock, RECHECK_MS + 1000);
    const failed = await environments(loop, clock);
    assert.deepEqual([failed.staging?.state, failed.staging?.reason], ['failed', 'VerificationFailed']);
    assert.match(failed.staging?.message ?? '', /check error-rate: .*0\.05/);
    assert.deepEqual(promoted(loop), ['staging 6.9.2'], 'nothing promoted to prod');
    const entries = await auditOf(loop, 'verification-failed');
    assert.deepEqual(
      entries.map(({ env, revision }) => `${env} ${revision}`),
      ['staging 6.9.2'],
    );
    assert.match(entries[0]?.message ?? '', /check error-rate: .*0\.05 \(below 0\.01 required\)/);

    const asked = prometheus.requests.length;
    await advance(loop, clock, 10 * MINUTE);
    assert.equal(prometheus.requests.length, asked, 'a failed verification is not evaluated again');
    assert.deepEqual(promoted(loop), ['staging 6.9.2']);
  });

  it('promotes prod once staging’s Flagger Canary succeeded for the candidate, read on staging’s cluster', async (t) => {
    const clock = new ManualClock();
    clock.advance(1000 - (clock.now() % 1000));
    const loop = await startLoop(t, {
      pipeline: {
        ...pipelineDocument,
        spec: {
          ...pipelineDocument.spec,
          environments: [
            { name: 'dev', targets: [target('dev')] },
            {
              name: 'staging',
              targets: [target('staging')],
              verification: { checks: [{ name: 'canary', flaggerCanary: { name: 'podinfo', namespace: 'apps' } }] },
            },
            { name: 'prod', targets: [target('prod')] },
          ],
        },
      } as PipelineDocument,
      clusters: ['dev', 'staging', 'prod'],
      clock,
    });
    const now = () => new Date(clock.now()).toISOString().replace('.000Z', 'Z');
    loop.cluster('staging').put(canary({ phase: 'Succeeded', lastTransitionTime: now() }));
    for (const env of ['dev', 'staging', 'prod']) loop.cluster(env).put(deployed('6.9.1'));
    await loop.poll();
    await idle(loop.queue);
    assert.equal((await environments(loop, clock)).staging?.reason, 'VerificationPassed', 'verified on the baseline');

    clock.advance(3 * 60 * MINUTE);
    await runs(loop, 'dev');
    await runs(loop, 'staging');
    const earlier = await environments(loop, clock);
    assert.deepEqual(
      [earlier.staging?.state, earlier.staging?.reason],
      ['verifying', 'VerificationPending'],
      'the Canary’s verdict is the earlier revision’s',
    );

    loop.cluster('staging').put(canary({ phase: 'Progressing', lastTransitionTime: now() }));
    await advance(loop, clock, RECHECK_MS + 1000);
    assert.match((await environments(loop, clock)).staging?.message ?? '', /Progressing \(weight 20\)/);
    assert.deepEqual(promoted(loop), ['staging 6.9.2']);

    loop.cluster('staging').put(canary({ phase: 'Succeeded', lastTransitionTime: now() }));
    await advance(loop, clock, RECHECK_MS + 1000);
    assert.equal((await environments(loop, clock)).staging?.reason, 'VerificationPassed');
    assert.deepEqual(promoted(loop), ['staging 6.9.2', 'prod 6.9.2']);
  });

  it('folds concurrent evaluations of the same environment one record version at a time', async (t) => {
    const { loop, clock, service } = await startAtBaseline(t);
    await runs(loop, 'dev');
    await runs(loop, 'staging');
    const before = (await loop.store.listVerifications(PIPELINE)).find((record) => record.env === 'staging');
    assert.ok(before);
    service.requests.length = 0;

    const state = await readPipelineState(loop.store, PIPELINE);
    assert.ok(state);
    const clusters = new KubernetesClusterReader({
      getCluster: async (key) => (await loop.store.getCluster(key))?.document,
      secrets: loop.secrets,
    });
    const deps = {
      store: loop.store,
      queue: loop.queue,
      clusters,
      promoter: loop.promoter,
      logger: silentLogger,
      now: () => new Date(clock.now()),
      workerId: 'concurrent',
      verification: { secrets: loop.secrets },
    };
    const action = { type: 'verify', env: 'staging', revision: '6.9.2' } as const;
    const runsAtOnce = await Promise.all(
      [1, 2, 3].map(() => verify(state.stored.pipeline, action, state.statuses, deps)),
    );
    assert.equal(service.requests.length, 3, 'three evaluations');
    assert.deepEqual(
      runsAtOnce.map((run) => run.written),
      [true, true, true],
      'each folded over the one before',
    );
    const after = (await loop.store.listVerifications(PIPELINE)).find((record) => record.env === 'staging');
    assert.equal(after?.version, before.version + 3, 'three versions, none written over another');
    assert.equal(after?.startedAt, before.startedAt, 'the first evaluation’s start kept');
  });
});
