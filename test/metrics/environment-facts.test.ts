// The facts the metrics are computed from, as the verifier records them (lib/verifier/environment-facts.ts): one
// `environment-passed` per healthy spell of an environment on a revision, one `environment-regressed` per unhealthy
// spell, each at the time the targets' statuses changed, and nothing for a redundant evaluation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import { appKeyString, resolvePipeline, type AppKey } from '../../lib/pipeline/model.js';
import type { ObservedTargetStatus } from '../../lib/store/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { FACT_HORIZON_MS, recordEnvironmentFacts } from '../../lib/verifier/environment-facts.js';
import { DEV, PIPELINE, PROD, PROD_EU, pipelineDocument, T0 } from '../verifier/world.js';
import { silentLogger } from '../../lib/logging/logger.js';

const MINUTE = 60_000;
const pipeline = resolvePipeline(pipelineDocument());

const ready = (revision: string, message = `deployed ${revision}`): TargetStatus => ({
  revision,
  phase: 'Ready',
  reason: 'Deployed',
  message,
});
const failed = (revision: string): TargetStatus => ({
  revision,
  phase: 'Failed',
  reason: 'RolledBack',
  message: `upgrade to ${revision} rolled back`,
});
const progressing = (revision: string): TargetStatus => ({
  revision,
  phase: 'Progressing',
  reason: 'ReleasePending',
  message: 'upgrading',
});

/** A store, its statuses as the verifier reads them, and a verifier's clock. */
function world() {
  const store = new MemoryStore();
  let now = T0;
  const deps = { store, now: () => now, workerId: 'facts-test', logger: silentLogger };
  return {
    store,
    at: (minutes: number) => new Date(T0.getTime() + minutes * MINUTE),
    async observe(app: AppKey, status: TargetStatus, minutes: number) {
      now = this.at(minutes);
      await store.recordTargetStatus(app, status, now);
    },
    /** One evaluation at `minutes` after T0: what it appended, as `type env revision @minutes`. */
    async evaluate(minutes: number): Promise<string[]> {
      now = this.at(minutes);
      const statuses: Map<string, ObservedTargetStatus> = await store.getTargetStatuses([DEV, PROD, PROD_EU]);
      assert.ok(statuses.has(appKeyString(DEV)));
      const appended = await recordEnvironmentFacts(pipeline, statuses, deps);
      return appended.map(format);
    },
    async trail(): Promise<string[]> {
      return (await store.listAudit(PIPELINE)).items.reverse().map(format);
    },
  };
  function format(entry: { type: string; env?: string; revision?: string; at: string }): string {
    const minutes = (Date.parse(entry.at) - T0.getTime()) / MINUTE;
    return `${entry.type} ${entry.env ?? '-'} ${entry.revision ?? '-'} @${minutes}`;
  }
}

describe('environment facts recorded by the verifier', () => {
  it('passed: once per (environment, revision), at the time the last target became Ready; a redundant evaluation writes nothing', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.1'), 1);
    await w.observe(PROD_EU, ready('6.9.1'), 2);
    assert.deepEqual(await w.evaluate(3), ['environment-passed dev 6.9.2 @0', 'environment-passed prod 6.9.1 @2']);
    assert.deepEqual(await w.evaluate(4), [], 'a redundant evaluation');
    assert.deepEqual(await w.evaluate(4), [], 'and another one');

    // A new status message while Ready on the same revision moves changedAt: still the same healthy spell.
    await w.observe(DEV, ready('6.9.2', 'Helm upgrade succeeded'), 10);
    assert.deepEqual(await w.evaluate(11), []);
    assert.equal((await w.trail()).length, 2);
  });

  it('verifiers deciding at once on the same statuses (a resume check and a poll at start-up) record each fact once', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.1'), 1);
    await w.observe(PROD_EU, ready('6.9.1'), 2);
    const appended = await Promise.all([w.evaluate(3), w.evaluate(3), w.evaluate(3)]);
    assert.deepEqual(appended.flat().sort(), ['environment-passed dev 6.9.2 @0', 'environment-passed prod 6.9.1 @2']);
    assert.deepEqual(await w.trail(), ['environment-passed dev 6.9.2 @0', 'environment-passed prod 6.9.1 @2']);

    await w.observe(PROD, failed('6.9.1'), 10);
    await Promise.all([w.evaluate(11), w.evaluate(11)]);
    assert.deepEqual((await w.trail()).slice(2), ['environment-regressed prod 6.9.1 @10']);
  });

  it('names the controller as the actor, not the worker that evaluated', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.1'), 0);
    await w.observe(PROD_EU, ready('6.9.1'), 0);
    await w.evaluate(1);
    const actors = (await w.store.listAudit(PIPELINE)).items.map((entry) => entry.actor);
    assert.deepEqual(actors, ['pipeline-controller', 'pipeline-controller']);
  });

  it('an environment rolling out, or on two revisions, has no fact until every target is Ready on one', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.2'), 1);
    await w.observe(PROD_EU, progressing('6.9.2'), 1);
    assert.deepEqual(await w.evaluate(2), ['environment-passed dev 6.9.2 @0']);
    await w.observe(PROD_EU, ready('6.9.1'), 3);
    assert.deepEqual(await w.evaluate(4), [], 'targets on two revisions');
    await w.observe(PROD_EU, ready('6.9.2'), 5);
    assert.deepEqual(await w.evaluate(6), ['environment-passed prod 6.9.2 @5']);
  });

  it('regressed: once per unhealthy spell, at the first failure; passing again (a restore) is recorded again', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.2'), 0);
    await w.observe(PROD_EU, ready('6.9.2'), 0);
    await w.evaluate(1);

    await w.observe(PROD, failed('6.9.2'), 10);
    assert.deepEqual(await w.evaluate(11), ['environment-regressed prod 6.9.2 @10']);
    await w.observe(PROD_EU, failed('6.9.2'), 12);
    assert.deepEqual(await w.evaluate(13), [], 'a second target failing is the same spell');
    assert.deepEqual(await w.evaluate(14), [], 'a redundant evaluation');

    await w.observe(PROD, ready('6.9.2'), 20);
    await w.observe(PROD_EU, ready('6.9.2'), 21);
    assert.deepEqual(await w.evaluate(22), ['environment-passed prod 6.9.2 @21'], 'restored on the same revision');
    assert.deepEqual(await w.trail(), [
      'environment-passed dev 6.9.2 @0',
      'environment-passed prod 6.9.2 @0',
      'environment-regressed prod 6.9.2 @10',
      'environment-passed prod 6.9.2 @21',
    ]);
  });

  it('health older than the horizon is not compared again: a steady pipeline reads no audit entry', async () => {
    const w = world();
    await w.observe(DEV, ready('6.9.2'), 0);
    await w.observe(PROD, ready('6.9.1'), 0);
    await w.observe(PROD_EU, ready('6.9.1'), 0);
    await w.evaluate(1);
    let trailReads = 0;
    const listAudit = w.store.listAudit.bind(w.store);
    w.store.listAudit = (...args) => ((trailReads += 1), listAudit(...args));
    assert.deepEqual(await w.evaluate(FACT_HORIZON_MS / MINUTE + 1), []);
    assert.equal(trailReads, 0);
    await w.observe(DEV, ready('6.9.3'), FACT_HORIZON_MS / MINUTE + 2);
    assert.deepEqual(await w.evaluate(FACT_HORIZON_MS / MINUTE + 3), [
      `environment-passed dev 6.9.3 @${FACT_HORIZON_MS / MINUTE + 2}`,
    ]);
    assert.equal(trailReads, 1, 'a change reads the head of the trail');
  });
});
