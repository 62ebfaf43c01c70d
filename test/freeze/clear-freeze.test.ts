// The clear-freeze use case (lib/freeze/clear-freeze.ts) alone, against the in-memory store: what it lifts, the
// freeze-cleared entries, the re-check it hands the verifier for each pipeline, and what it says when nothing of that
// scope was frozen: the switches that still hold it from elsewhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearFreeze, type ClearFreezeRequest, type ResumeMessage } from '../../lib/freeze/clear-freeze.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import type { MemoryStore } from '../../lib/testing/memory-store.js';
import { ALICE, HOUR, NOW, PODINFO, storeWith, trail } from './fixtures.js';

const SET_AT = new Date(NOW.getTime() - HOUR).toISOString();
const switchOf = (overrides: Partial<FreezeSwitch>): FreezeSwitch => ({
  scope: { pipeline: PODINFO },
  reason: 'incident 4711',
  by: 'local:bob',
  at: SET_AT,
  ...overrides,
});
const INSTALLATION = { installation: true } as const;

/** A store with `pipelines` and `switches`, and a verifier queue that takes messages unless told not to. */
async function world(switches: readonly FreezeSwitch[], pipelines: Record<string, string[]> = { podinfo: [] }) {
  const store = await storeWith(pipelines);
  for (const freeze of switches) await store.setFreeze(freeze);
  const sent: ResumeMessage[] = [];
  let serving = true;
  const deps = {
    store,
    enqueue: (message: ResumeMessage) => {
      if (serving) sent.push(message);
      return Promise.resolve(serving);
    },
  };
  const request = (overrides: Partial<ClearFreezeRequest>): ClearFreezeRequest => ({
    scope: { pipeline: PODINFO },
    by: ALICE,
    via: 'pipelinectl',
    now: NOW,
    ...overrides,
  });
  return { store, deps, sent, request, stopServing: () => void (serving = false) };
}

const types = async (store: MemoryStore, name: string) => (await trail(store, name)).map((entry) => entry.type);

describe('clearFreeze', () => {
  it("lifts a pipeline's switch for one environment: a freeze-cleared entry by who lifted it, and a re-check", async () => {
    const prod = switchOf({ env: 'prod', until: new Date(NOW.getTime() + HOUR).toISOString() });
    const dev = switchOf({ env: 'dev' });
    const { store, deps, sent, request } = await world([prod, dev]);
    const result = await clearFreeze(deps, request({ env: 'prod' }));
    assert.deepEqual(result, {
      outcome: 'unfrozen',
      removed: [prod],
      holding: [],
      pipelines: [PODINFO],
      by: ALICE,
      delivered: true,
    });
    assert.deepEqual(await store.listFreezes(), [dev], 'the switch of another environment stays');
    assert.deepEqual(await trail(store, 'podinfo'), [
      {
        at: NOW.toISOString(),
        pipeline: PODINFO,
        type: 'freeze-cleared',
        env: 'prod',
        message: 'prod frozen until 2026-11-20T13:00:00.000Z lifted with pipelinectl (set by local:bob: incident 4711)',
        actor: ALICE,
      },
    ]);
    assert.deepEqual(sent, [{ type: 'check-pipeline', pipeline: PODINFO, cause: 'unfreeze', readTargets: false }]);
  });

  it('without an environment, lifts every switch of the scope', async () => {
    const { store, deps, request } = await world([switchOf({ env: 'prod' }), switchOf({})]);
    const result = await clearFreeze(deps, request({}));
    assert.equal(result.outcome === 'unfrozen' && result.removed.length, 2);
    assert.deepEqual(await store.listFreezes(), []);
    assert.deepEqual(await types(store, 'podinfo'), ['freeze-cleared', 'freeze-cleared']);
  });

  it('--all lifts the installation-wide switches: every covered pipeline recorded and re-checked once', async () => {
    const own = switchOf({ env: 'prod' });
    const { store, deps, sent, request } = await world(
      [switchOf({ scope: INSTALLATION }), switchOf({ scope: INSTALLATION, env: 'qa' }), own],
      { a: ['qa'], b: [] },
    );
    const result = await clearFreeze(deps, request({ scope: INSTALLATION }));
    assert.equal(result.outcome, 'unfrozen');
    assert.deepEqual(await store.listFreezes(), [own], "a pipeline's own switch is not lifted by --all");
    assert.deepEqual(await types(store, 'a'), ['freeze-cleared', 'freeze-cleared']);
    assert.deepEqual(await types(store, 'b'), ['freeze-cleared'], 'b has no qa');
    assert.deepEqual(
      sent.map((message) => message.pipeline.name),
      ['a', 'b'],
    );
  });

  it('names what still holds the pipeline: an installation-wide switch, its own switch for every environment', async () => {
    const everywhere = switchOf({ scope: INSTALLATION });
    const allEnvironments = switchOf({});
    const expired = switchOf({ scope: INSTALLATION, env: 'prod', until: new Date(NOW.getTime() - 1).toISOString() });
    const prod = switchOf({ env: 'prod' });
    const { deps, request } = await world([everywhere, allEnvironments, expired, prod]);
    const result = await clearFreeze(deps, request({ env: 'prod' }));
    assert.deepEqual(result.outcome === 'unfrozen' && result.holding, [everywhere, allEnvironments]);
  });

  it('says so when nothing of that scope is frozen, writing nothing, with what holds it from elsewhere', async () => {
    const everywhere = switchOf({ scope: INSTALLATION });
    const { store, deps, sent, request } = await world([everywhere]);
    assert.deepEqual(await clearFreeze(deps, request({ env: 'prod' })), {
      outcome: 'not-frozen',
      holding: [everywhere],
    });
    assert.deepEqual(await clearFreeze(deps, request({ scope: INSTALLATION, env: 'prod' })), {
      outcome: 'not-frozen',
      holding: [everywhere],
    });
    assert.deepEqual(await store.listFreezes(), [everywhere]);
    assert.deepEqual(await trail(store, 'podinfo'), []);
    assert.deepEqual(sent, []);
  });

  it('refuses an unknown pipeline or environment, but lifts a switch that outlived them', async () => {
    const gone = { namespace: 'flux-system', name: 'gone' };
    const { store, deps, sent, request } = await world([
      switchOf({ scope: { pipeline: gone } }),
      switchOf({ env: 'qa' }),
    ]);
    assert.deepEqual(await clearFreeze(deps, request({ scope: { pipeline: { namespace: 'x', name: 'y' } } })), {
      outcome: 'unknown-pipeline',
    });
    assert.deepEqual(await clearFreeze(deps, request({ env: 'perf' })), {
      outcome: 'unknown-environment',
      environments: ['dev', 'prod'],
    });
    const stale = await clearFreeze(deps, request({ scope: { pipeline: gone } }));
    assert.deepEqual(stale.outcome === 'unfrozen' && stale.pipelines, [], 'no stored pipeline to record or re-check');
    const qa = await clearFreeze(deps, request({ env: 'qa' }));
    assert.deepEqual(qa.outcome === 'unfrozen' && qa.removed.map((f) => f.env), ['qa']);
    assert.deepEqual(await store.listFreezes(), []);
    assert.deepEqual(sent, []);
  });

  it('says when no verifier took the re-check (the local mode without serve)', async () => {
    const { deps, request, stopServing } = await world([switchOf({})]);
    stopServing();
    const result = await clearFreeze(deps, request({}));
    assert.equal(result.outcome === 'unfrozen' && result.delivered, false);
  });
});
