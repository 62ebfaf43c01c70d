// `pipelinectl freeze`, `unfreeze` and `freezes` as a user runs them, on a local data directory made with `apply`:
// what the switch list shows, what the audit trail records and with whom, what still holds a pipeline once its own
// switch is lifted, and every refusal, each with a message naming what is wrong and nothing written.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFreezeFlags, targetOf, type FreezeFlags, type FreezeResultJson } from '../../lib/cli/operations/freeze.js';
import { CliError } from '../../lib/cli/errors.js';
import type { FreezesJson } from '../../lib/cli/operations/freezes.js';
import type { HistoryJson } from '../../lib/cli/operations/history.js';
import type { UnfreezeJson } from '../../lib/cli/operations/unfreeze.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, pipeline, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';

const HOUR = 3_600_000;

describe('pipelinectl freeze, unfreeze and freezes on a local data directory', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const identity = `local:${userInfo().username}`;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  /** Runs a command that must succeed and prints JSON. */
  const json = async <T>(...args: string[]): Promise<T> => {
    const run = await cli(...args, '-o', 'json');
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as T;
  };
  const trail = (type: string) => json<HistoryJson>('history', 'flux-system/podinfo', '--type', type);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-freeze-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
    });
    const applied = await cli('apply', '-f', join(root, 'config'));
    assert.equal(applied.code, 0, applied.stderr);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it("freezes a pipeline's prod for 2h: the list shows it, the history has freeze-set with who set it", async () => {
    const started = Date.now();
    const frozen = await json<FreezeResultJson>(
      'freeze',
      'flux-system/podinfo',
      '--env',
      'prod',
      '--reason',
      'incident 4711',
      '--until',
      '2h',
    );
    const until = Date.parse(frozen.freeze.until ?? '');
    assert.ok(until >= started + 2 * HOUR && until <= Date.now() + 2 * HOUR, `until ${frozen.freeze.until}`);
    assert.deepEqual(frozen, {
      freeze: {
        scope: 'pipeline',
        pipeline: 'flux-system/podinfo',
        env: 'prod',
        reason: 'incident 4711',
        by: identity,
        at: frozen.freeze.at,
        until: frozen.freeze.until,
        windows: null,
      },
      replaced: null,
      pipelines: ['flux-system/podinfo'],
      warnings: [],
    });

    const listed = await cli('freezes');
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row, ...rest] = lines(listed.stdout);
    assert.match(header ?? '', /^SCOPE\s+ENV\s+UNTIL\s+BY\s+REASON\s+WINDOWS$/);
    assert.deepEqual(rest, []);
    const untilMinutes = (frozen.freeze.until ?? '').replace(/:\d{2}\.\d{3}Z$/, 'Z');
    assert.match(
      row ?? '',
      new RegExp(
        `^flux-system/podinfo\\s+prod\\s+${untilMinutes} \\(in [12]h\\)\\s+${identity}\\s+incident 4711\\s+-$`,
      ),
    );

    const { entries } = await trail('freeze-set');
    assert.deepEqual(
      entries.map((entry) => [entry.pipeline, entry.env, entry.actor, entry.message]),
      [
        [
          'flux-system/podinfo',
          'prod',
          identity,
          `prod frozen until ${frozen.freeze.until} with pipelinectl: incident 4711`,
        ],
      ],
    );
  });

  it('freezes every pipeline with --all, listed first; one for an environment no pipeline has is set with a warning', async () => {
    const all = await cli('freeze', '--all', '--reason', 'release freeze');
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout, `every environment frozen installation-wide until unfrozen, set by ${identity}\n`);

    const weekly = await cli(
      'freeze',
      '--all',
      '--env',
      'qa',
      '--reason',
      'weekend',
      '--window',
      'Fri 16:00-Mon 08:00',
      '--time-zone',
      'Europe/Berlin',
    );
    assert.equal(weekly.code, 0, weekly.stderr);
    assert.equal(
      weekly.stderr,
      'warning: no stored pipeline has an environment "qa": the switch holds nothing until one has it\n',
    );

    const { freezes } = await json<FreezesJson>('freezes');
    assert.deepEqual(
      freezes.map((f) => [f.scope, f.pipeline, f.env, f.reason, f.by]),
      [
        ['installation', null, null, 'release freeze', identity],
        ['installation', null, 'qa', 'weekend', identity],
        ['pipeline', 'flux-system/podinfo', 'prod', 'incident 4711', identity],
      ],
    );
    assert.deepEqual(freezes[1]?.windows, [{ from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' }]);
  });

  it('unfreezes: the switch is gone, freeze-cleared names who lifted it, and what still holds is named', async () => {
    const lifted = await cli('unfreeze', 'flux-system/podinfo', '--env', 'prod');
    assert.equal(lifted.code, 0, lifted.stderr);
    assert.equal(
      lifted.stdout,
      `flux-system/podinfo: prod unfrozen as ${identity} (set by ${identity}: incident 4711)\n`,
    );
    const held =
      `still held by: every environment frozen installation-wide until unfrozen by ${identity} ` +
      '(lift it with pipelinectl unfreeze --all)';
    assert.deepEqual(lines(lifted.stderr), [
      `note: ${held}`,
      `note: pipelinectl serve is not running on local data directory ${dataDir}: promotions resume when it starts`,
    ]);

    const again = await cli('unfreeze', 'flux-system/podinfo', '--env', 'prod');
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `error: flux-system/podinfo has no stop switch of its own for prod; ${held}\n`);

    const everywhere = await json<UnfreezeJson>('unfreeze', '--all');
    assert.deepEqual(
      everywhere.removed.map((f) => [f.scope, f.env, f.reason]),
      [
        ['installation', null, 'release freeze'],
        ['installation', 'qa', 'weekend'],
      ],
    );
    assert.deepEqual(everywhere.pipelines, ['flux-system/podinfo']);
    assert.equal(everywhere.unfrozenBy, identity);
    assert.equal(everywhere.delivered, false, 'no serve runs on the data directory');

    // The trail, newest first: both switches set (the qa one covers no pipeline of podinfo's), both lifted.
    const history = await json<HistoryJson>('history', 'flux-system/podinfo');
    assert.deepEqual(
      history.entries.map((entry) => [entry.type, entry.env, entry.actor, entry.message]),
      [
        [
          'freeze-cleared',
          null,
          identity,
          `every environment frozen installation-wide until unfrozen lifted with pipelinectl (set by ${identity}: ` +
            'release freeze)',
        ],
        ['freeze-cleared', 'prod', identity, history.entries[1]?.message],
        [
          'freeze-set',
          null,
          identity,
          'every environment frozen installation-wide until unfrozen with pipelinectl: release freeze',
        ],
        ['freeze-set', 'prod', identity, history.entries[3]?.message],
      ],
    );
  });

  it('refuses an unknown pipeline or environment, an --until past, a bad --window, and writes nothing', async () => {
    // Refused before the data directory is opened: these can run side by side.
    const flagCases: [string[], string | RegExp][] = [
      [
        ['freeze', 'flux-system/podinfo', '--reason', 'x', '--until', '2020-01-01T00:00:00Z'],
        /^error: --until "2020-01-01T00:00:00Z" is not in the future \(it is \S+ now\): give a later time/,
      ],
      [
        ['freeze', '--all', '--reason', 'weekend', '--window', 'Fri 16:00-Mon 08:00'],
        'error: --window needs --time-zone: the IANA time zone it is in, such as Europe/Berlin or UTC',
      ],
      [
        ['freeze', '--all', '--reason', 'weekend', '--window', 'Fri 16:00', '--time-zone', 'Europe/Berlin'],
        'error: --window must be a range such as "Fri 16:00-Mon 08:00" (weekly) or "22:00-06:00" (daily) (got "Fri 16:00")',
      ],
    ];
    const flagRuns = await Promise.all(flagCases.map(([args]) => cli(...args)));
    flagCases.forEach(([args, expected], i) => {
      const run = flagRuns[i];
      assert.equal(run?.code, 1, args.join(' '));
      assert.equal(run.stdout, '', args.join(' '));
      const [first, ...rest] = lines(run.stderr);
      assert.deepEqual(rest, [], args.join(' '));
      if (typeof expected === 'string') assert.equal(first, expected, args.join(' '));
      else assert.match(first ?? '', expected, args.join(' '));
    });

    // Refused once the store is read.
    const storeCases: [string[], string][] = [
      [
        ['freeze', 'flux-system/nope', '--reason', 'x'],
        `error: pipeline flux-system/nope not found in local data directory ${dataDir}`,
      ],
      [
        ['freeze', 'flux-system/podinfo', '--env', 'qa', '--reason', 'x'],
        'error: pipeline flux-system/podinfo has no environment "qa" (it has dev, staging, prod)',
      ],
    ];
    for (const [args, expected] of storeCases) {
      const run = await cli(...args);
      assert.equal(run.code, 1, args.join(' '));
      assert.equal(run.stderr, `${expected}\n`, args.join(' '));
    }

    assert.deepEqual((await json<FreezesJson>('freezes')).freezes, [], 'no switch');
    assert.equal((await trail('freeze-set')).entries.length, 2, 'no entry but the two of the tests before');
  });
});

describe('pipelinectl freeze: the flags', () => {
  const NOW = new Date('2026-11-20T12:00:00Z');
  const flags = (overrides: Partial<FreezeFlags>): FreezeFlags => ({ reason: 'weekend', windows: [], ...overrides });
  const refusal = (message: string) => (error: unknown) => error instanceof CliError && error.message === message;

  it('names the flag of every value it cannot take', () => {
    const cases: [Partial<FreezeFlags>, string][] = [
      [{ reason: ' ' }, '--reason must say why (it is shown wherever the switch holds a promotion back)'],
      [{ reason: 'x'.repeat(501) }, '--reason must be at most 500 characters'],
      [{ reason: 'two\nlines' }, '--reason must be one line of printable text'],
      [{ env: 'pro d' }, '--env must be the name of an environment (got "pro d")'],
      [
        { until: 'tomorrow' },
        '--until must be a time with its zone such as 2026-11-24T08:00:00Z, or a duration from now such as 2h, 30m ' +
          'or 2d (got "tomorrow")',
      ],
      [
        { until: '0s' },
        '--until "0s" is not in the future (it is 2026-11-20T12:00:00.000Z now): give a later time, or a duration ' +
          'such as 2h',
      ],
      [{ timeZone: 'UTC' }, '--time-zone is the zone of --window: give a --window too'],
      [
        { windows: ['Fri 16:00-Mon 25:00'], timeZone: 'UTC' },
        '--window "Fri 16:00-Mon 25:00": its end is not a time such as "Mon 08:00" or "08:00" (24-hour clock)',
      ],
      [
        { windows: ['Fry 16:00-Mon 08:00'], timeZone: 'UTC' },
        '--window "Fry 16:00-Mon 08:00": its start is not a time such as "Fri 16:00" or "16:00" (24-hour clock)',
      ],
      [
        { windows: ['22:00-06:00', 'Fri 16:00-08:00'], timeZone: 'UTC' },
        '--window "Fri 16:00-08:00": both ends name a weekday (weekly) or neither does (daily)',
      ],
      [{ windows: ['16:00-16:00'], timeZone: 'UTC' }, '--window "16:00-16:00": it starts and ends at the same time'],
      [
        { windows: ['00:00-12:00', '12:00-00:00'], timeZone: 'UTC' },
        '--window: the windows together leave no time free: freeze without --window instead',
      ],
      [
        { windows: ['Fri 16:00-Mon 08:00'], timeZone: 'Berlin' },
        '--time-zone must be an IANA time zone such as Europe/Berlin or UTC (got "Berlin")',
      ],
    ];
    for (const [overrides, message] of cases) {
      assert.throws(() => readFreezeFlags(flags(overrides), NOW), refusal(message), message);
    }
  });

  it('reads --until and --window as the switch stores them', () => {
    assert.deepEqual(
      readFreezeFlags(
        flags({ env: 'prod', until: '2h', windows: ['Fri 16:00-Mon 08:00'], timeZone: 'Europe/Berlin' }),
        NOW,
      ),
      {
        env: 'prod',
        reason: 'weekend',
        until: new Date('2026-11-20T14:00:00Z'),
        windows: [{ from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' }],
      },
    );
  });

  it('takes one pipeline or --all, exactly one', () => {
    assert.deepEqual(targetOf('flux-system/podinfo', undefined, 'freeze'), {
      pipeline: { namespace: 'flux-system', name: 'podinfo' },
    });
    assert.deepEqual(targetOf(undefined, true, 'unfreeze'), { all: true });
    assert.throws(
      () => targetOf('flux-system/podinfo', true, 'freeze'),
      refusal('freeze one pipeline or --all, not both'),
    );
    assert.throws(
      () => targetOf(undefined, undefined, 'unfreeze'),
      refusal('unfreeze what? Give a pipeline (NAMESPACE/NAME) or --all'),
    );
  });
});
