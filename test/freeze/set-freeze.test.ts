// The set-freeze use case (lib/freeze/set-freeze.ts) alone, against the in-memory store: the switch it stores, the
// audit entries it writes to every pipeline it covers, and every refusal, each of which writes nothing. The doors
// are tested in test/cli/freeze.test.ts (pipelinectl freeze) and test/dashboard/freeze.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  setFreeze,
  untilOf,
  windowOf,
  type SetFreezeRequest,
  type SetFreezeResult,
} from '../../lib/freeze/set-freeze.js';
import { ALICE, HOUR, NOW, PODINFO, storeWith, trail } from './fixtures.js';

const request = (overrides: Partial<SetFreezeRequest>): SetFreezeRequest => ({
  scope: { pipeline: PODINFO },
  reason: 'incident 4711',
  by: ALICE,
  via: 'pipelinectl',
  now: NOW,
  ...overrides,
});

describe('setFreeze', () => {
  it("freezes one pipeline's prod until a time: the switch, and a freeze-set entry naming who set it", async () => {
    const store = await storeWith({ podinfo: [], other: [] });
    const until = new Date(NOW.getTime() + 2 * HOUR);
    const result = await setFreeze({ store }, request({ env: 'prod', until }));
    const freeze = {
      scope: { pipeline: PODINFO },
      env: 'prod',
      reason: 'incident 4711',
      by: ALICE,
      at: NOW.toISOString(),
      until: until.toISOString(),
    };
    assert.deepEqual(result, { outcome: 'frozen', freeze, pipelines: [PODINFO], warnings: [] });
    assert.deepEqual(await store.listFreezes(), [freeze]);
    assert.deepEqual(await trail(store, 'podinfo'), [
      {
        at: NOW.toISOString(),
        pipeline: PODINFO,
        type: 'freeze-set',
        env: 'prod',
        message: 'prod frozen until 2026-11-20T14:00:00.000Z with pipelinectl: incident 4711',
        actor: ALICE,
      },
    ]);
    assert.deepEqual(await trail(store, 'other'), [], 'another pipeline is not covered');
  });

  it('--all covers every stored pipeline, paged through, each with its own entry', async () => {
    const store = await storeWith({ a: [], b: [], c: [] });
    const result = await setFreeze({ store }, request({ scope: { installation: true }, reason: 'release freeze' }));
    assert.equal(result.outcome, 'frozen');
    assert.deepEqual(result.outcome === 'frozen' && result.pipelines.map((key) => key.name), ['a', 'b', 'c']);
    for (const name of ['a', 'b', 'c']) {
      const [entry, ...rest] = await trail(store, name);
      assert.deepEqual(rest, []);
      assert.equal(entry?.type, 'freeze-set');
      assert.equal(entry?.env, undefined, 'every environment');
      assert.equal(entry?.actor, ALICE);
      assert.equal(
        entry?.message,
        'every environment frozen installation-wide until unfrozen with pipelinectl: release freeze',
      );
    }
    assert.deepEqual(await store.listFreezes(), [
      { scope: { installation: true }, reason: 'release freeze', by: ALICE, at: NOW.toISOString() },
    ]);
  });

  it('--all for one environment covers only the pipelines that have it, and warns when none has it', async () => {
    const store = await storeWith({ a: ['qa'], b: [] });
    const qa = await setFreeze({ store }, request({ scope: { installation: true }, env: 'qa' }));
    assert.equal(qa.outcome === 'frozen' && qa.pipelines.map((key) => key.name).join(), 'a');
    assert.deepEqual(qa.outcome === 'frozen' && qa.warnings, []);
    assert.equal((await trail(store, 'b')).length, 0);

    const nowhere = await setFreeze({ store }, request({ scope: { installation: true }, env: 'perf' }));
    assert.deepEqual(nowhere.outcome === 'frozen' && nowhere.warnings, ['environment-in-no-pipeline']);
    assert.deepEqual(nowhere.outcome === 'frozen' && nowhere.pipelines, []);
    assert.equal((await store.listFreezes()).length, 2, 'it is set all the same: a pipeline may get the environment');
  });

  it('replaces the switch of the same scope and environment, and says which', async () => {
    const store = await storeWith({ podinfo: [] });
    const first = await setFreeze({ store }, request({ env: 'prod', by: 'local:bob' }));
    const second = await setFreeze({ store }, request({ env: 'prod', reason: 'still broken' }));
    assert.ok(first.outcome === 'frozen' && second.outcome === 'frozen');
    assert.deepEqual(second.replaced, first.freeze);
    assert.deepEqual(await store.listFreezes(), [second.freeze]);
    const other = await setFreeze({ store }, request({ reason: 'every environment' }));
    assert.equal(other.outcome === 'frozen' && other.replaced, undefined, 'another environment is another slot');
    assert.equal((await store.listFreezes()).length, 2);
  });

  it('stores recurring windows as given and names them in the entry', async () => {
    const store = await storeWith({ podinfo: [] });
    const window = { from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' };
    const result = await setFreeze(
      { store },
      request({ scope: { installation: true }, env: 'prod', windows: [window] }),
    );
    assert.deepEqual(result.outcome === 'frozen' && result.freeze.windows, [window]);
    assert.equal(
      (await trail(store, 'podinfo'))[0]?.message,
      'prod frozen installation-wide within Fri 16:00–Mon 08:00 Europe/Berlin until unfrozen with pipelinectl: ' +
        'incident 4711',
    );
  });

  it('refuses, writing nothing and asking no identity, what it cannot take', async () => {
    const past = new Date(NOW.getTime() - 1);
    const window = (from: string, to: string, timeZone = 'Europe/Berlin') => [{ from, to, timeZone }];
    const cases: [string, Partial<SetFreezeRequest>, SetFreezeResult][] = [
      [
        'an unknown pipeline',
        { scope: { pipeline: { namespace: 'flux-system', name: 'nope' } } },
        { outcome: 'unknown-pipeline' },
      ],
      ['an unknown environment', { env: 'qa' }, { outcome: 'unknown-environment', environments: ['dev', 'prod'] }],
      ['until in the past', { until: past }, { outcome: 'until-passed' }],
      ['until now', { until: NOW }, { outcome: 'until-passed' }],
      ['an empty reason', { reason: '  ' }, { outcome: 'invalid-reason', problem: 'empty' }],
      [
        'a reason that moves the cursor',
        { reason: 'oops\u001b[2J' },
        { outcome: 'invalid-reason', problem: 'unprintable' },
      ],
      ['a reason of two lines', { reason: 'a\nb' }, { outcome: 'invalid-reason', problem: 'unprintable' }],
      ['a too long reason', { reason: 'x'.repeat(501) }, { outcome: 'invalid-reason', problem: 'too-long' }],
      ['an environment with a space', { env: 'pro d' }, { outcome: 'invalid-environment', problem: 'not-a-name' }],
      [
        'a bad start',
        { windows: window('Fry 16:00', 'Mon 08:00') },
        { outcome: 'invalid-windows', problem: 'bad-from', index: 0 },
      ],
      [
        'a bad end',
        { windows: window('Fri 16:00', '24:00') },
        { outcome: 'invalid-windows', problem: 'bad-to', index: 0 },
      ],
      [
        'mixed ends',
        { windows: window('Fri 16:00', '08:00') },
        { outcome: 'invalid-windows', problem: 'mixed-ends', index: 0 },
      ],
      [
        'an empty window',
        { windows: window('16:00', '16:00') },
        { outcome: 'invalid-windows', problem: 'empty', index: 0 },
      ],
      [
        'an unknown zone',
        { windows: window('16:00', '08:00', 'Mars/Olympus') },
        { outcome: 'invalid-windows', problem: 'unknown-time-zone', index: 0 },
      ],
      [
        'windows that never end',
        { windows: [...window('00:00', '12:00'), ...window('12:00', '00:00')] },
        { outcome: 'invalid-windows', problem: 'holds-forever' },
      ],
    ];
    for (const [what, overrides, expected] of cases) {
      const store = await storeWith({ podinfo: [] });
      let asked = false;
      const by = () => {
        asked = true;
        return Promise.resolve(ALICE);
      };
      assert.deepEqual(await setFreeze({ store }, request({ ...overrides, by })), expected, what);
      assert.deepEqual(await store.listFreezes(), [], `${what}: no switch`);
      assert.deepEqual(await trail(store, 'podinfo'), [], `${what}: no audit entry`);
      assert.equal(asked, false, `${what}: the identity is not read`);
    }
  });
});

describe('untilOf', () => {
  it('takes a time with its zone or a duration from now', () => {
    const cases: [string, string][] = [
      ['2h', '2026-11-20T14:00:00.000Z'],
      ['30m', '2026-11-20T12:30:00.000Z'],
      ['1h30m', '2026-11-20T13:30:00.000Z'],
      ['2d', '2026-11-22T12:00:00.000Z'],
      ['1d12h', '2026-11-22T00:00:00.000Z'],
      ['2026-11-24T08:00:00Z', '2026-11-24T08:00:00.000Z'],
      ['2026-11-24T09:00+01:00', '2026-11-24T08:00:00.000Z'],
      ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ];
    for (const [text, expected] of cases) assert.equal(untilOf(text, NOW)?.toISOString(), expected, text);
  });

  it('refuses what is neither, and a time without its zone', () => {
    for (const text of [
      '',
      'tomorrow',
      '2026-11-24',
      '2026-11-24T08:00:00',
      '2h later',
      'd',
      '-2h',
      '2026-13-40T08:00Z',
    ]) {
      assert.equal(untilOf(text, NOW), undefined, JSON.stringify(text));
    }
  });
});

describe('windowOf', () => {
  it('splits a range at its dash, in the zone given', () => {
    assert.deepEqual(windowOf('Fri 16:00-Mon 08:00', 'Europe/Berlin'), {
      from: 'Fri 16:00',
      to: 'Mon 08:00',
      timeZone: 'Europe/Berlin',
    });
    assert.deepEqual(windowOf(' 22:00 – 06:00 ', 'UTC'), { from: '22:00', to: '06:00', timeZone: 'UTC' });
    for (const text of ['Fri 16:00', '-08:00', 'Fri 16:00-', '16:00-17:00-18:00']) {
      assert.equal(windowOf(text, 'UTC'), undefined, text);
    }
  });
});
