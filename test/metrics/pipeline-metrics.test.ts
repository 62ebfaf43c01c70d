// The DORA metrics from audit trails written by hand: each metric's definition, case by case, over the same small
// notation (`at` in hours after T0), plus an empty trail and a pipeline of one environment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pipelineMetrics, type PipelineMetrics } from '../../lib/metrics/index.js';
import type { AuditEntry } from '../../lib/store/port.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
/** The window: the 10 days ending at T0 + 10d. */
const window = { end: T0 + 10 * DAY, lengthMs: 10 * DAY };

type Kind = 'passed' | 'regressed' | 'verification-failed' | 'promoted' | 'approved' | 'rollback';
const TYPE = {
  passed: 'environment-passed',
  regressed: 'environment-regressed',
  'verification-failed': 'verification-failed',
  promoted: 'promotion-succeeded',
  approved: 'approved',
  rollback: 'rollback-started',
} as const;

/** `[hours after T0, kind, env, revision?]` → an audit entry. */
type Row = readonly [number, Kind, string, string?];
const entries = (rows: readonly Row[]): AuditEntry[] =>
  rows.map(([hours, kind, env, revision]) => ({
    at: new Date(T0 + hours * HOUR).toISOString(),
    pipeline: PIPELINE,
    type: TYPE[kind],
    env,
    ...(revision === undefined ? {} : { revision }),
    message: `${kind} ${env}`,
  }));

const metricsOf = (rows: readonly Row[], environments = ['dev', 'prod'], failureWindowMs = HOUR): PipelineMetrics =>
  // Reversed: the store hands the trail newest first, and the order must not matter.
  pipelineMetrics({ environments, entries: entries(rows).reverse(), window, failureWindowMs });
const env = (metrics: PipelineMetrics, name: string) => {
  const found = metrics.environments.find((candidate) => candidate.env === name);
  assert.ok(found, `no metrics for ${name}`);
  return found;
};

describe('metrics of a pipeline from its audit trail', () => {
  it('an empty trail: zero deployments, and n/a (null) wherever there is no sample', () => {
    const metrics = metricsOf([]);
    assert.deepEqual(metrics.leadTime, { revisions: 0, medianMs: null, p90Ms: null });
    assert.deepEqual(env(metrics, 'prod'), {
      env: 'prod',
      frequency: { deployments: 0, perDay: 0, promotions: 0 },
      changeFailureRate: { deployments: 0, failed: 0, pending: 0, rate: null },
      timeToRestore: { restores: 0, medianMs: null, unhealthySince: null },
    });
  });

  describe('deployment frequency: a revision new to the environment, first seen passed, in the window', () => {
    const cases: { name: string; rows: Row[]; deployments: number; promotions?: number }[] = [
      {
        name: 'three revisions',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [30, 'passed', 'prod', 'b'],
          [50, 'passed', 'prod', 'c'],
        ],
        deployments: 3,
      },
      {
        name: 'the same revision passed twice is one',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'passed', 'prod', 'a'],
        ],
        deployments: 1,
      },
      {
        name: 'passing again after a regression is no new deployment',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'regressed', 'prod', 'a'],
          [3, 'passed', 'prod', 'a'],
        ],
        deployments: 1,
      },
      {
        name: 'a rollback to an older revision is one',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'passed', 'prod', 'b'],
          [3, 'passed', 'prod', 'a'],
        ],
        deployments: 3,
      },
      {
        name: 'before the window: not counted',
        rows: [
          [-2, 'passed', 'prod', 'a'],
          [5, 'passed', 'prod', 'b'],
        ],
        deployments: 1,
      },
      {
        name: 'a promotion alone is no deployment, and is counted as a promotion',
        rows: [
          [1, 'promoted', 'prod', 'a'],
          [2, 'approved', 'prod', 'a'],
        ],
        deployments: 0,
        promotions: 1,
      },
      { name: "another environment's are not this one's", rows: [[1, 'passed', 'dev', 'a']], deployments: 0 },
    ];
    for (const { name, rows, deployments, promotions = 0 } of cases) {
      it(name, () => {
        const { frequency } = env(metricsOf(rows), 'prod');
        assert.deepEqual(frequency, { deployments, perDay: deployments / 10, promotions });
      });
    }
  });

  describe('lead time: first environment first passed → last environment first passed, per revision', () => {
    const cases: {
      name: string;
      rows: Row[];
      expected: { revisions: number; medianMs: number | null; p90Ms: number | null };
    }[] = [
      {
        name: 'one revision',
        rows: [
          [1, 'passed', 'dev', 'a'],
          [4, 'passed', 'prod', 'a'],
        ],
        expected: { revisions: 1, medianMs: 3 * HOUR, p90Ms: 3 * HOUR },
      },
      {
        name: 'median of an even sample is the mean of the middle two; p90 is nearest-rank',
        rows: [
          [1, 'passed', 'dev', 'a'],
          [2, 'passed', 'prod', 'a'], // 1h
          [10, 'passed', 'dev', 'b'],
          [12, 'passed', 'prod', 'b'], // 2h
          [20, 'passed', 'dev', 'c'],
          [24, 'passed', 'prod', 'c'], // 4h
          [30, 'passed', 'dev', 'd'],
          [40, 'passed', 'prod', 'd'], // 10h
        ],
        expected: { revisions: 4, medianMs: 3 * HOUR, p90Ms: 10 * HOUR },
      },
      {
        name: 'a revision the last environment skipped has none; passing again later does not restart it',
        rows: [
          [1, 'passed', 'dev', 'a'],
          [2, 'passed', 'dev', 'b'],
          [5, 'passed', 'prod', 'b'],
          [6, 'regressed', 'prod'],
          [9, 'passed', 'prod', 'b'],
        ],
        expected: { revisions: 1, medianMs: 3 * HOUR, p90Ms: 3 * HOUR },
      },
      {
        name: 'started before the window, arrived in it: counted from the real start',
        rows: [
          [-5, 'passed', 'dev', 'a'],
          [3, 'passed', 'prod', 'a'],
        ],
        expected: { revisions: 1, medianMs: 8 * HOUR, p90Ms: 8 * HOUR },
      },
      {
        name: 'arrived before the window: not counted',
        rows: [
          [-5, 'passed', 'dev', 'a'],
          [-1, 'passed', 'prod', 'a'],
        ],
        expected: { revisions: 0, medianMs: null, p90Ms: null },
      },
      {
        name: 'no recorded start in the first environment: left out rather than guessed',
        rows: [[3, 'passed', 'prod', 'a']],
        expected: { revisions: 0, medianMs: null, p90Ms: null },
      },
    ];
    for (const { name, rows, expected } of cases) {
      it(name, () => assert.deepEqual(metricsOf(rows).leadTime, expected));
    }
  });

  describe('change failure rate: a deployment that degraded the environment within the failure window', () => {
    /** Ten revisions passed an hour apart in prod, r0 at 1h to r9 at 10h. */
    const hourly: Row[] = Array.from({ length: 10 }, (_, index) => [index + 1, 'passed', 'prod', `r${index}`] as const);
    const cases: {
      name: string;
      rows: Row[];
      failureWindowMs?: number;
      /** [deployments, failed, pending, rate] */
      expected: [number, number, number, number | null];
    }[] = [
      { name: 'a quiet deployment succeeded', rows: [[1, 'passed', 'prod', 'a']], expected: [1, 0, 0, 0] },
      { name: 'ten healthy deployments an hour apart: 0%', rows: hourly, expected: [10, 0, 0, 0] },
      {
        name: 'one regression among ten hourly deployments: 10%',
        rows: [...hourly, [4.5, 'regressed', 'prod', 'r3']],
        expected: [10, 1, 0, 0.1],
      },
      {
        name: 'a regression within the window: failed',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.5, 'regressed', 'prod', 'a'],
        ],
        expected: [1, 1, 0, 1],
      },
      {
        name: 'a failed verification within the window: failed, as any regression',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.2, 'verification-failed', 'prod', 'a'],
        ],
        expected: [1, 1, 0, 1],
      },
      {
        name: 'a regression after the window: succeeded',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2.5, 'regressed', 'prod', 'a'],
        ],
        expected: [1, 0, 0, 0],
      },
      {
        name: 'a wider failure window catches it',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2.5, 'regressed', 'prod', 'a'],
        ],
        failureWindowMs: 2 * HOUR,
        expected: [1, 1, 0, 1],
      },
      {
        name: 'another revision within the window is no failure',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.5, 'passed', 'prod', 'b'],
        ],
        expected: [2, 0, 0, 0],
      },
      {
        name: 'a promotion of another revision within the window is no failure',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.5, 'promoted', 'prod', 'b'],
        ],
        expected: [1, 0, 0, 0],
      },
      {
        name: 'a fix after a regression: the regressed deployment failed, the fix did not',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.25, 'regressed', 'prod', 'a'],
          [1.5, 'passed', 'prod', 'b'],
        ],
        expected: [2, 1, 0, 0.5],
      },
      {
        name: "a regression on the next revision is that deployment's",
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.25, 'passed', 'prod', 'b'],
          [1.5, 'regressed', 'prod', 'b'],
        ],
        expected: [2, 1, 0, 0.5],
      },
      {
        name: "a regression naming no revision is the running deployment's",
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.25, 'passed', 'prod', 'b'],
          [1.5, 'regressed', 'prod'],
        ],
        expected: [2, 1, 0, 0.5],
      },
      {
        name: 'a rollback started for it within the window: failed',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2.5, 'passed', 'prod', 'b'],
          [3, 'rollback', 'prod', 'b'],
        ],
        expected: [2, 1, 0, 0.5],
      },
      {
        name: 'a regression and its rollback fail the deployment once',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.25, 'regressed', 'prod', 'a'],
          [1.5, 'rollback', 'prod', 'a'],
        ],
        expected: [1, 1, 0, 1],
      },
      {
        name: "a rollback of a revision the environment never passed on is no deployment's",
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.5, 'rollback', 'prod', 'b'],
        ],
        expected: [1, 0, 0, 0],
      },
      {
        name: 'a rollback after the window: succeeded',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2.5, 'rollback', 'prod', 'a'],
        ],
        expected: [1, 0, 0, 0],
      },
      {
        name: "a revision deployed again: a regression is the latest deployment's, not the first",
        rows: [
          [1, 'passed', 'prod', 'a'],
          [3, 'passed', 'prod', 'b'],
          [5, 'passed', 'prod', 'a'],
          [5.5, 'regressed', 'prod', 'a'],
        ],
        expected: [3, 1, 0, 1 / 3],
      },
      {
        name: "another environment's regression is not this one's",
        rows: [
          [1, 'passed', 'prod', 'a'],
          [1.5, 'regressed', 'dev', 'a'],
          [1.5, 'rollback', 'dev', 'a'],
        ],
        expected: [1, 0, 0, 0],
      },
      {
        name: 'a deployment whose window is still open is pending',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [239.5, 'passed', 'prod', 'b'],
        ],
        expected: [2, 0, 1, 0],
      },
      {
        name: 'a deployment followed by another within its open window is pending, not failed',
        rows: [
          [239.25, 'passed', 'prod', 'a'],
          [239.5, 'passed', 'prod', 'b'],
        ],
        expected: [2, 0, 2, null],
      },
      {
        name: 'a failure within an open window is a failure already',
        rows: [
          [239.5, 'passed', 'prod', 'b'],
          [239.75, 'regressed', 'prod', 'b'],
        ],
        expected: [1, 1, 0, 1],
      },
      { name: 'only pending: n/a', rows: [[239.5, 'passed', 'prod', 'b']], expected: [1, 0, 1, null] },
    ];
    for (const { name, rows, failureWindowMs, expected } of cases) {
      it(name, () => {
        const { deployments, failed, pending, rate } = env(
          metricsOf(rows, ['dev', 'prod'], failureWindowMs),
          'prod',
        ).changeFailureRate;
        assert.deepEqual([deployments, failed, pending, rate], expected);
      });
    }
  });

  describe('time to restore: regressed → passed again, any revision', () => {
    const cases: {
      name: string;
      rows: Row[];
      expected: { restores: number; medianMs: number | null; unhealthySince: number | null };
    }[] = [
      {
        name: 'restored on the same revision',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'regressed', 'prod', 'a'],
          [5, 'passed', 'prod', 'a'],
        ],
        expected: { restores: 1, medianMs: 3 * HOUR, unhealthySince: null },
      },
      {
        name: 'restored by a fix; a second regression of the spell does not restart it',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'regressed', 'prod', 'a'],
          [3, 'regressed', 'prod', 'a'],
          [4, 'passed', 'prod', 'b'],
        ],
        expected: { restores: 1, medianMs: 2 * HOUR, unhealthySince: null },
      },
      {
        name: 'median over several restores',
        rows: [
          [1, 'regressed', 'prod'],
          [2, 'passed', 'prod', 'a'],
          [3, 'regressed', 'prod'],
          [7, 'passed', 'prod', 'a'],
          [8, 'regressed', 'prod'],
          [10, 'passed', 'prod', 'b'],
        ],
        expected: { restores: 3, medianMs: 2 * HOUR, unhealthySince: null },
      },
      {
        name: 'unhealthy now: no restore, and since when',
        rows: [
          [1, 'passed', 'prod', 'a'],
          [2, 'regressed', 'prod', 'a'],
        ],
        expected: { restores: 0, medianMs: null, unhealthySince: T0 + 2 * HOUR },
      },
      {
        name: 'restored before the window: not counted',
        rows: [
          [-3, 'regressed', 'prod'],
          [-1, 'passed', 'prod', 'a'],
        ],
        expected: { restores: 0, medianMs: null, unhealthySince: null },
      },
    ];
    for (const { name, rows, expected } of cases) {
      it(name, () => assert.deepEqual(env(metricsOf(rows), 'prod').timeToRestore, expected));
    }
  });

  it('a pipeline of one environment: every lead time is zero, the other metrics as usual', () => {
    const metrics = metricsOf(
      [
        [1, 'passed', 'prod', 'a'],
        [1.5, 'regressed', 'prod', 'a'],
        [3, 'passed', 'prod', 'b'],
      ],
      ['prod'],
    );
    assert.deepEqual(metrics.leadTime, { revisions: 2, medianMs: 0, p90Ms: 0 });
    assert.deepEqual(
      metrics.environments.map(({ env: name, frequency, changeFailureRate }) => [
        name,
        frequency.deployments,
        changeFailureRate.failed,
      ]),
      [['prod', 2, 1]],
    );
  });
});
