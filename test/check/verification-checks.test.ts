// `pipelinectl check`'s rows for verification checks: each check evaluated once, as the verifier will; an answer is
// ok (a failing one a warning), no answer a failure naming why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPipelines } from '../../lib/check/run-checks.js';
import type { CheckPorts } from '../../lib/check/ports.js';
import type { Pipeline } from '../../lib/pipeline/model.js';
import type { CheckResult, VerificationCheck } from '../../lib/pipeline/verification.js';

const pipeline: Pipeline = {
  namespace: 'flux-system',
  name: 'podinfo',
  appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
  environments: [
    {
      name: 'staging',
      targets: [],
      verification: {
        onInconclusive: 'wait',
        checks: [
          { name: 'errors', cloudwatchAlarms: { alarmNames: ['podinfo-5xx'] } },
          { name: 'rate', prometheus: { url: 'https://prom.example', query: 'up', below: 1 } },
          { name: 'smoke', http: { url: 'https://staging.example/healthz' } },
        ],
      },
    },
  ],
};

const answers: Record<string, Pick<CheckResult, 'verdict' | 'reason' | 'value' | 'message'>> = {
  errors: { verdict: 'passed', reason: 'AlarmsOK', value: '1 alarm OK', message: 'every alarm OK' },
  rate: { verdict: 'failed', reason: 'ThresholdCrossed', value: '1 (below 1 required)', message: 'up is 1' },
  smoke: { verdict: 'inconclusive', reason: 'Unreachable', value: 'ECONNREFUSED', message: 'connection refused' },
};

function ports(evaluateCheck?: CheckPorts['evaluateCheck']): CheckPorts {
  return {
    clusters: { getApp: () => Promise.resolve(undefined) },
    secrets: { get: () => Promise.resolve(undefined) } as unknown as CheckPorts['secrets'],
    gitHost: () => Promise.resolve(undefined),
    ...(evaluateCheck ? { evaluateCheck } : {}),
  };
}

describe('check: verification checks', () => {
  it('one row per check: ok when it answers, a warning when it fails now, failed when it cannot be evaluated', async () => {
    const asked: string[] = [];
    const evaluate = (_pipeline: Pipeline, env: { name: string }, check: VerificationCheck): Promise<CheckResult> => {
      asked.push(`${env.name}/${check.name}`);
      const answer = answers[check.name] ?? assert.fail(check.name);
      return Promise.resolve({ name: check.name, kind: 'http', checkedAt: '2026-11-29T00:00:00Z', ...answer });
    };
    const rows = (await checkPipelines([pipeline], ports(evaluate))).filter((row) => row.kind === 'verification-check');
    assert.deepEqual(asked, ['staging/errors', 'staging/rate', 'staging/smoke']);
    assert.deepEqual(
      rows.map((row) => [row.check?.name, row.outcome, row.reason]),
      [
        ['errors', 'ok', 'check-evaluates'],
        ['rate', 'warning', 'check-fails-now'],
        ['smoke', 'failed', 'check-not-evaluable'],
      ],
    );
    assert.match(
      rows[2]?.message ?? '',
      /check smoke \(http\) cannot be evaluated \(Unreachable\): connection refused/,
    );
  });

  it('a deployment that cannot evaluate checks from here says so on each row', async () => {
    const rows = (await checkPipelines([pipeline], ports())).filter((row) => row.kind === 'verification-check');
    assert.deepEqual(
      rows.map((row) => [row.outcome, row.reason]),
      Array.from({ length: 3 }, () => ['warning', 'check-not-wired']),
    );
  });
});
