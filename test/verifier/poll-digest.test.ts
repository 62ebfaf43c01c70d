// The poll digest (docs/architecture.md, "The poll digest"): a scheduled poll whose LIST of a (cluster, kind) holds
// what the last full poll of that pair recorded reads and writes nothing more; anything else — a changed object, an
// apply, a failed read recorded by an event's check (before or during a poll of its pair), a digest an hour old — is
// polled in full. Driven through the
// real poller and verifier, the Kubernetes reader (the real @kubernetes/client-node) against two fake API servers,
// and the store in memory, whose reads and writes are counted.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { pollWorld } from './poll-world.js';
import { DEV, deployed, pipelineDocument, PROD, PROD_EU } from './world.js';

async function world(t: TestContext) {
  const store = new MemoryStore();
  /** The store methods called since the last `resetCounts`, by name. */
  const called = new Set<string>();
  for (const name of Object.getOwnPropertyNames(MemoryStore.prototype)) {
    const method = (store as unknown as Record<string, unknown>)[name];
    if (name === 'constructor' || name === 'resetCounts' || typeof method !== 'function') continue;
    (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      called.add(name);
      return (method as (...args: unknown[]) => unknown).apply(store, args);
    };
  }
  const w = await pollWorld(t, store, 'poll-digest-test');
  return {
    ...w,
    store,
    called,
    lists: () => w.dev.count('list') + w.prod.count('list'),
    resetCounts: () => {
      store.resetCounts();
      called.clear();
      w.dev.resetRequests();
      w.prod.resetRequests();
    },
  };
}

describe('the poll digest', () => {
  it('a poll that finds every LIST as the last one recorded it reads and writes nothing more', async (t) => {
    const w = await world(t);
    await w.poll();
    assert.equal(await w.revisionOf(PROD_EU), '6.9.1', 'the first poll records every target');

    w.resetCounts();
    await w.poll();
    assert.equal(w.lists(), 2, 'each (cluster, kind) is still listed once');
    assert.equal(w.store.counts.writes, 0, 'nothing is written');
    // The poller: the generation and its plan, the clusters (for their registrations), ConfigSources and
    // PipelineSets. The verifier: the generation and the clusters' digests. No usage, summary, definition or status.
    assert.deepEqual([...w.called].sort(), [
      'getConfigurationGeneration',
      'getPollDigests',
      'getPollPlan',
      'listClusters',
      'listConfigSources',
      'listPipelineSets',
    ]);
  });

  it('an object that changed is recorded at the next poll', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.put(deployed('6.9.2', 'apps-eu'));
    await w.poll();
    assert.equal(await w.revisionOf(PROD_EU), '6.9.2');
    assert.equal(await w.revisionOf(PROD), '6.9.1');

    w.resetCounts();
    await w.poll();
    assert.equal(w.store.counts.writes, 0, 'and the poll after it has nothing to write');
  });

  it('after an apply, the next poll is a full one: a new target on an unchanged object is recorded', async (t) => {
    const w = await world(t);
    w.dev.put(deployed('6.9.1', 'apps-eu'));
    await w.poll();
    const document = pipelineDocument();
    const [devEnv, ...rest] = document.spec.environments;
    assert.ok(devEnv);
    const devEuTarget = { namespace: 'apps-eu', clusterRef: { kind: 'GitopsCluster' as const, name: 'dev' } };
    document.spec.environments = [{ ...devEnv, targets: [...(devEnv.targets ?? []), devEuTarget] }, ...rest];
    await w.store.applyPipeline(document, resolvePipeline(document), new Date('2026-11-01T10:01:00.000Z'));
    const devEu = { ...DEV, namespace: 'apps-eu' };
    assert.equal(await w.revisionOf(devEu), undefined);
    await w.poll();
    assert.equal(await w.revisionOf(devEu), '6.9.1');
  });

  it('a failed read recorded by an event’s check is not hidden by an unchanged LIST', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.offline();
    await w.handle({ type: 'check-app', app: PROD, cause: 'event', attempt: 0 }).catch(() => undefined);
    assert.equal((await w.store.getTargetStatus(PROD))?.status.phase, 'Unreadable');
    w.prod.online();
    await w.poll();
    const recorded = await w.store.getTargetStatus(PROD);
    assert.deepEqual([recorded?.status.phase, recorded?.status.revision], ['Ready', '6.9.1']);
  });

  it('a failed read an event’s check records while a poll of its pair runs is not hidden by that poll’s digest', async (t) => {
    const w = await world(t);
    await w.poll();
    // The next poll lists prod's HelmReleases changed (apps-eu moved on), so it polls the pair in full; while it
    // records apps-eu, an event's check finds prod unreachable and records that for apps, and prod comes back.
    w.prod.put(deployed('6.9.2', 'apps-eu'));
    const record = w.store.recordPolledStatus.bind(w.store);
    let checked = false;
    w.store.recordPolledStatus = async (...args) => {
      if (!checked) {
        checked = true;
        w.prod.offline();
        await w.handle({ type: 'check-app', app: PROD, cause: 'event', attempt: 0 }).catch(() => undefined);
        w.prod.online();
      }
      return record(...args);
    };
    await w.poll();
    assert.ok(checked, 'the check ran during the poll');
    assert.equal((await w.store.getTargetStatus(PROD))?.status.phase, 'Unreadable');
    // Nothing changes on prod: the poll after must not trust a digest of a LIST made before that failed read.
    await w.poll();
    const recorded = await w.store.getTargetStatus(PROD);
    assert.deepEqual([recorded?.status.phase, recorded?.status.revision], ['Ready', '6.9.1']);
  });

  it('a digest an hour old is not trusted: the pair is polled in full again', async (t) => {
    const w = await world(t);
    await w.poll();
    w.advance(30 * 60_000);
    w.resetCounts();
    await w.poll();
    const quiet = w.store.counts.reads;
    w.advance(31 * 60_000);
    w.resetCounts();
    await w.poll();
    assert.ok(w.store.counts.reads > quiet, `${w.store.counts.reads} reads an hour on, ${quiet} before`);
    assert.ok(w.store.counts.writes > 0, 'the digests are written again');
  });

  it('an unreachable cluster is polled again on its own; the rest of its message is polled', async (t) => {
    const w = await world(t);
    await w.poll();
    w.prod.offline();
    w.dev.put(deployed('6.9.2'));
    const sent = await w.poll();
    assert.equal(await w.revisionOf(DEV), '6.9.2', 'dev, in the same message, is recorded');
    assert.equal((await w.store.getTargetStatus(PROD))?.status.reason, 'Unreachable');
    const retried = sent.filter((message) => message.type === 'poll');
    assert.deepEqual(
      retried.map((message) => [message.cluster.name, message.kind]),
      [['prod', 'HelmRelease']],
    );
    w.prod.online();
    await w.poll();
    assert.equal((await w.store.getTargetStatus(PROD))?.status.phase, 'Ready', 'and recovers at the next poll');
  });
});
