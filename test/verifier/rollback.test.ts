// The `rollback` action (lib/verifier/effects/rollback.ts) against a fake GitHub: one rollback pull request under
// its own record, (pipeline, `rollback:prod`, failed revision), with the bytes a promotion to the last healthy
// revision writes; a second call, or an attempt resumed after a crash, makes no second pull request; a failure is
// retried on the promotion schedule. And the `promote` action hands the decision's evidence to the Promoter. The
// clock is the test's: nothing waits.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { Pipeline } from '../../lib/pipeline/model.js';
import type { Promoter, PromotionEvidence } from '../../lib/promotion/index.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import type { AuditEntry } from '../../lib/store/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { promote } from '../../lib/verifier/effects/promote.js';
import { rollback, type RollbackAction } from '../../lib/verifier/effects/rollback.js';
import type { VerifierDeps } from '../../lib/verifier/deps.js';
import { HELMRELEASE_PROD, OWNER, PROD_FILE, REPO, prRequest, startFixture } from '../promotion/github-support.js';
import { silentLogger } from '../../lib/logging/logger.js';

const T0 = new Date('2026-11-01T10:00:00.000Z');
const PIPELINE = { namespace: 'foo', name: 'bar' };
const BRANCH = 'rollback-foo-bar-prod-5.0.0';
/** prod failed on 5.0.0, what main's markers say; 4.9.0 was the last revision healthy there. */
const ROLLBACK: RollbackAction = { type: 'rollback', env: 'prod', revision: '4.9.0', from: '5.0.0' };

/** The verifier's dependencies over the in-memory store and a clock the test moves. */
function verifierDeps(promoter: Promoter, workerId = 'verifier-test') {
  let now = T0;
  const deps: VerifierDeps = {
    store: new MemoryStore(),
    queue: new RecordingQueue(),
    clusters: new ScriptedClusters(),
    promoter,
    logger: silentLogger,
    now: () => now,
    workerId,
  };
  return {
    deps,
    store: deps.store as MemoryStore,
    queue: deps.queue as RecordingQueue,
    advance(ms: number): void {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A fake GitHub whose acme/fleet marks prod's chart version (5.0.0) for foo:bar:prod, and foo/bar promoting to it. */
async function gitHubWorld(t: TestContext) {
  const fixture = await startFixture();
  t.after(() => fixture.stop());
  // No retries inside a call: one injected 5xx fails the attempt, as the verifier sees it.
  const world = verifierDeps(fixture.promoter({ retries: 0 }));
  const pipeline: Pipeline = prRequest({ revision: '4.9.0' }).pipeline;
  const pulls = () => fixture.fake.pulls(OWNER, REPO);
  const audit = async () =>
    (await world.store.listAudit(PIPELINE)).items
      .reverse()
      .map((entry: AuditEntry) => `${entry.type} ${entry.env} ${entry.revision}`);
  return { ...world, fixture, pipeline, pulls, audit };
}

describe('rollback', () => {
  it('opens one pull request that sets the markers back, under its own record', async (t) => {
    const world = await gitHubWorld(t);

    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'succeeded');

    const pulls = world.pulls();
    assert.equal(pulls.length, 1);
    const pull = pulls[0] ?? assert.fail('no pull request');
    assert.deepEqual(
      { title: pull.title, head: pull.head, base: pull.base, state: pull.state, merged: pull.merged },
      {
        title: 'Roll back prod from 5.0.0 to 4.9.0 (foo/bar)',
        head: BRANCH,
        base: 'main',
        state: 'open',
        merged: false,
      },
    );
    assert.match(
      pull.body,
      /^Rolls back \*\*prod\*\* of the pipeline foo\/bar from \*\*5\.0\.0\*\* to \*\*4\.9\.0\*\*/,
    );

    const branch = world.fixture.fake.files(OWNER, REPO, BRANCH);
    const main = world.fixture.fake.files(OWNER, REPO, 'main');
    assert.equal(
      branch[PROD_FILE],
      HELMRELEASE_PROD.replace('version: "5.0.0" #', 'version: "4.9.0" #'),
      'the marked value, and nothing else',
    );
    assert.deepEqual({ ...branch, [PROD_FILE]: main[PROD_FILE] }, main, 'no other file changed');
    assert.equal(main[PROD_FILE], HELMRELEASE_PROD, 'nothing merged');
    assert.equal(world.fixture.fake.count(/\/merge$|graphql/), 0, 'no merge and no auto-merge asked for');

    const record = await world.store.getPromotion(PIPELINE, 'rollback:prod', '5.0.0');
    assert.deepEqual([record?.state, record?.attempts, record?.result], ['succeeded', 1, pull.htmlUrl]);
    assert.equal(await world.store.getPromotion(PIPELINE, 'prod', '4.9.0'), undefined, 'no promotion record');
    assert.deepEqual(await world.audit(), ['rollback-started prod 5.0.0', 'rollback-succeeded prod 5.0.0']);
    assert.deepEqual(world.queue.take(), []);
  });

  it('makes no second pull request: not when called again, not when an attempt is resumed', async (t) => {
    const world = await gitHubWorld(t);
    await rollback(world.pipeline, ROLLBACK, world.deps);

    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'not-claimed', 'the record succeeded');
    assert.equal(world.pulls().length, 1);
    assert.equal((await world.audit()).length, 2, 'and no audit entry');

    // Another failed revision of prod is another rollback; its worker dies after opening the pull request.
    const next: RollbackAction = { type: 'rollback', env: 'prod', revision: '4.9.0', from: '5.0.1' };
    await world.store.createPromotion(PIPELINE, 'rollback:prod', '5.0.1', T0);
    await world.store.claimPromotion(PIPELINE, 'rollback:prod', '5.0.1', 'crashed-worker', 60_000, T0);
    await world.fixture.promoter().promote({ ...prRequest({ revision: '4.9.0' }), rollback: { from: '5.0.1' } });
    assert.equal(world.pulls().length, 2);
    assert.equal(await rollback(world.pipeline, next, world.deps), 'not-claimed', 'the lease is live');
    world.advance(60_001);
    assert.equal(await rollback(world.pipeline, next, world.deps), 'succeeded', 'resumed once the lease expired');
    assert.equal(world.pulls().length, 2, 'the pull request the crashed attempt opened');
    const record = await world.store.getPromotion(PIPELINE, 'rollback:prod', '5.0.1');
    assert.equal(record?.result, world.pulls().find((pull) => pull.head === 'rollback-foo-bar-prod-5.0.1')?.htmlUrl);
  });

  it('schedules a retry after a failure GitHub may get over, and then opens the pull request', async (t) => {
    const world = await gitHubWorld(t);
    world.fixture.fake.failNext(503, { times: 1 });

    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'retry-scheduled');

    const record = await world.store.getPromotion(PIPELINE, 'rollback:prod', '5.0.0');
    assert.deepEqual([record?.state, record?.retryAt], ['failed', '2026-11-01T10:00:30.000Z']);
    assert.deepEqual(world.queue.take(), [
      {
        message: { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false },
        delaySeconds: 31,
      },
    ]);
    const entries = (await world.store.listAudit(PIPELINE)).items;
    assert.equal(entries[0]?.type, 'rollback-failed');
    assert.match(entries[0]?.message ?? '', /; retrying at 2026-11-01T10:00:30\.000Z$/);
    assert.equal(world.pulls().length, 0);

    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'not-claimed', 'not due yet');
    world.advance(30_000);
    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'succeeded');
    assert.equal(world.pulls().length, 1);
    assert.deepEqual(await world.audit(), [
      'rollback-started prod 5.0.0',
      'rollback-failed prod 5.0.0',
      'rollback-started prod 5.0.0',
      'rollback-succeeded prod 5.0.0',
    ]);
  });

  it('fails for good, sending no retry, when a person must act', async (t) => {
    const world = await gitHubWorld(t);
    world.fixture.secrets.set({ namespace: 'foo', name: 'github-credentials' }, { token: 'revoked' });

    assert.equal(await rollback(world.pipeline, ROLLBACK, world.deps), 'failed');

    const record = await world.store.getPromotion(PIPELINE, 'rollback:prod', '5.0.0');
    assert.deepEqual([record?.state, record?.retryAt], ['failed', undefined]);
    assert.match(record?.error ?? '', /Secret foo\/github-credentials/);
    assert.doesNotMatch(record?.error ?? '', /revoked/);
    assert.deepEqual(world.queue.take(), []);
    assert.equal(world.pulls().length, 0);
  });
});

describe('promote', () => {
  it("hands the decision's evidence to the Promoter", async () => {
    const promoter = new RecordingPromoter();
    const { deps } = verifierDeps(promoter);
    const pipeline = prRequest({ revision: '5.0.1' }).pipeline;
    const evidence: PromotionEvidence = {
      from: 'dev',
      targets: [{ name: 'dev/dev/podinfo', revision: '5.0.1', phase: 'Ready', healthySince: T0.toISOString() }],
      soak: '30m',
    };

    assert.equal(
      await promote(pipeline, { type: 'promote', env: 'prod', revision: '5.0.1', evidence }, deps),
      'succeeded',
    );
    assert.equal(await promote(pipeline, { type: 'promote', env: 'prod', revision: '5.0.2' }, deps), 'succeeded');

    assert.deepEqual(
      promoter.requests().map((request) => [request.revision, request.evidence]),
      [
        ['5.0.1', evidence],
        ['5.0.2', undefined],
      ],
    );
  });
});
