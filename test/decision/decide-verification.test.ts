// decide() with verification checks (docs/verification.md): an environment whose targets all run the candidate
// passes only once its checks have held for its `for`; and recordEvaluation, the rule folding each evaluation into
// the environment's record.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordEvaluation, type VerificationRecord } from '../../lib/decision/verification.js';
import type { CheckResult, Verification } from '../../lib/pipeline/verification.js';
import {
  NOW,
  healthy,
  minutesFromNow,
  pipeline,
  pullRequest,
  record as promotionRecord,
  runRows,
  unsettled,
} from './fixtures.js';

const verification: Verification = {
  for: '10m',
  onInconclusive: 'wait',
  checks: [
    { name: 'errors', cloudwatchAlarms: { alarmNames: ['podinfo-5xx'] } },
    { name: 'smoke', http: { url: 'https://staging.acme.example/healthz' } },
  ],
};

function verified(on: 'dev' | 'staging', settings: Verification = verification, rollback = false) {
  return pipeline({
    promotion: pullRequest,
    environments: [
      { name: 'dev', targets: ['flux-system/dev apps'], ...(on === 'dev' ? { verification: settings } : {}) },
      {
        name: 'staging',
        targets: ['flux-system/staging apps'],
        ...(on === 'staging' ? { verification: settings } : {}),
        ...(rollback ? { rollback: { strategy: 'pull-request' as const, after: '10m' } } : {}),
      },
      { name: 'prod', targets: ['flux-system/prod apps'] },
    ],
  });
}

function result(
  name: string,
  verdict: CheckResult['verdict'],
  value = verdict === 'passed' ? 'OK' : 'ALARM',
): CheckResult {
  const kind = name === 'errors' ? 'cloudwatchAlarms' : 'http';
  const reason: CheckResult['reason'] =
    verdict === 'passed'
      ? 'AlarmsOK'
      : verdict === 'failed'
        ? 'InAlarm'
        : verdict === 'pending'
          ? 'CanaryProgressing'
          : 'Unreachable';
  return { name, kind, verdict, reason, value, message: `${name}: ${value}`, checkedAt: NOW.toISOString() };
}

function record(fields: Partial<VerificationRecord> & Pick<VerificationRecord, 'results'>): VerificationRecord {
  return { env: 'staging', revision: '6.9.2', startedAt: minutesFromNow(-5), checkedAt: minutesFromNow(-2), ...fields };
}

const allPassed = [result('errors', 'passed'), result('smoke', 'passed')];
const onCandidate = {
  'flux-system/dev apps': healthy('6.9.2'),
  'flux-system/staging apps': healthy('6.9.2'),
  'flux-system/prod apps': healthy('6.9.1'),
};
const stagingVerifying = { dev: 'source', staging: 'verifying', prod: 'not-reached' } as const;
const verifyStaging = [{ type: 'verify' as const, env: 'staging', revision: '6.9.2' }];

describe('decide: verification', () => {
  runRows([
    {
      name: 'every target Ready on the candidate, no evaluation yet: verify now, nothing promoted past it',
      pipeline: verified('staging'),
      observed: onCandidate,
      candidate: '6.9.2',
      actions: verifyStaging,
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationDue', prod: 'StoppedEarlier' },
      messages: { staging: ['verifying it (2 checks)'], prod: ['staging (verifying)'] },
      waitsFor: { prod: 'staging' },
    },
    {
      name: 'the checks hold, evaluated a moment ago: wait for the rest of `for`',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({ holdingSince: minutesFromNow(-4), checkedAt: minutesFromNow(-0.5), results: allPassed }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationHolding', prod: 'StoppedEarlier' },
      verificationEndsAt: { staging: '2025-10-01T12:06:00Z' },
    },
    {
      name: 'the checks hold, evaluated over a minute ago: evaluated again',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [record({ holdingSince: minutesFromNow(-4), results: allPassed })],
      candidate: '6.9.2',
      actions: verifyStaging,
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationHolding', prod: 'StoppedEarlier' },
    },
    {
      name: '`for` is over since the last evaluation: one more evaluation confirms it',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({ holdingSince: minutesFromNow(-11), checkedAt: minutesFromNow(-0.2), results: allPassed }),
      ],
      candidate: '6.9.2',
      actions: verifyStaging,
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationHolding', prod: 'StoppedEarlier' },
    },
    {
      name: 'verified: staging passed, prod is promoted',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({
          holdingSince: minutesFromNow(-11),
          outcome: 'passed',
          decidedAt: minutesFromNow(-1),
          results: allPassed,
        }),
      ],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'prod', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'passed', prod: 'promoting' },
      reasons: { dev: 'CandidateFound', staging: 'VerificationPassed', prod: 'PromotionDue' },
      messages: { staging: ['2 checks held for 10m'] },
      // The pull request into prod shows what staging's checks saw.
      evidence: {
        prod: {
          from: 'staging',
          targets: [{ name: 'flux-system/staging apps', phase: 'Ready', revision: '6.9.2' }],
          checks: allPassed.map(({ name, kind, verdict, value, checkedAt }) => ({
            name,
            kind,
            verdict,
            value,
            checkedAt,
          })),
        },
      },
    },
    {
      name: 'a check failed: staging failed for the candidate, naming the check and what it saw; nothing promoted',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({
          outcome: 'failed',
          decidedAt: minutesFromNow(-1),
          results: [result('errors', 'failed', 'podinfo-5xx ALARM'), result('smoke', 'passed')],
        }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'VerificationFailed', prod: 'StoppedEarlier' },
      messages: { staging: ['check errors', 'podinfo-5xx ALARM'], prod: ['verification failed'] },
    },
    {
      name: 'a check that cannot be evaluated keeps it waiting (onInconclusive: wait), evaluated again',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({ results: [result('errors', 'passed'), result('smoke', 'inconclusive', 'connection refused')] }),
      ],
      candidate: '6.9.2',
      actions: verifyStaging,
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationInconclusive', prod: 'StoppedEarlier' },
      messages: { staging: ['smoke could not be evaluated', 'connection refused'] },
    },
    {
      name: 'under onInconclusive: fail, a check that could not be evaluated failed it',
      pipeline: verified('staging', { ...verification, onInconclusive: 'fail' }),
      observed: onCandidate,
      verifications: [
        record({
          outcome: 'failed',
          decidedAt: minutesFromNow(-1),
          results: [result('errors', 'passed'), result('smoke', 'inconclusive', 'connection refused')],
        }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'VerificationInconclusive', prod: 'StoppedEarlier' },
    },
    {
      name: 'a check still deciding (a Canary analysing): waiting',
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({
          checkedAt: minutesFromNow(-0.5),
          results: [result('errors', 'passed'), result('smoke', 'pending', 'Progressing')],
        }),
      ],
      candidate: '6.9.2',
      actions: [],
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationPending', prod: 'StoppedEarlier' },
    },
    {
      name: "an older revision's record says nothing of the candidate: verified again",
      pipeline: verified('staging'),
      observed: onCandidate,
      verifications: [
        record({ revision: '6.9.1', outcome: 'passed', decidedAt: minutesFromNow(-60), results: allPassed }),
      ],
      candidate: '6.9.2',
      actions: verifyStaging,
      states: stagingVerifying,
      reasons: { dev: 'CandidateFound', staging: 'VerificationDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'not every target Ready on the candidate yet: no check runs',
      pipeline: verified('staging'),
      observed: { ...onCandidate, 'flux-system/staging apps': unsettled('6.9.2') },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'in-progress', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RollingOut', prod: 'StoppedEarlier' },
    },
    {
      name: 'the first environment verifies: it still supplies the candidate, nothing is promoted from it',
      pipeline: verified('dev'),
      observed: onCandidate,
      candidate: '6.9.2',
      actions: [{ type: 'verify', env: 'dev', revision: '6.9.2' }],
      states: { dev: 'verifying', staging: 'not-reached', prod: 'not-reached' },
      reasons: { dev: 'VerificationDue', staging: 'AwaitingVerification', prod: 'AwaitingVerification' },
      waitsFor: { staging: 'dev', prod: 'dev' },
    },
    {
      name: 'the first environment verified: staging is promoted',
      pipeline: verified('dev'),
      observed: { ...onCandidate, 'flux-system/staging apps': healthy('6.9.1') },
      verifications: [
        record({
          env: 'dev',
          outcome: 'passed',
          holdingSince: minutesFromNow(-11),
          decidedAt: NOW.toISOString(),
          results: allPassed,
        }),
      ],
      candidate: '6.9.2',
      actions: [{ type: 'promote', env: 'staging', revision: '6.9.2' }],
      states: { dev: 'source', staging: 'promoting', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'PromotionDue', prod: 'StoppedEarlier' },
    },
  ]);
});

describe('decide: a failed verification under a rollback policy', () => {
  const failedOn692 = (decidedMinutesAgo: number) =>
    record({
      outcome: 'failed',
      decidedAt: minutesFromNow(-decidedMinutesAgo),
      results: [result('errors', 'failed', 'podinfo-5xx ALARM'), result('smoke', 'passed')],
    });
  const promotedHere = [
    promotionRecord('staging', '6.9.2', { state: 'succeeded', result: 'https://git.example/pr/7' }),
  ];
  runRows([
    {
      name: 'within the grace period: the rollback is due at its end',
      pipeline: verified('staging', verification, true),
      observed: onCandidate,
      verifications: [failedOn692(4)],
      promotions: promotedHere,
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'in-progress', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RollbackGracePeriod', prod: 'StoppedEarlier' },
      messages: { staging: ['verification failed on 6.9.2'] },
      rollbackAt: { staging: '2025-10-01T12:06:00Z' },
    },
    {
      name: 'past it: staging is rolled back to the last revision that passed there',
      pipeline: verified('staging', verification, true),
      observed: onCandidate,
      verifications: [failedOn692(11)],
      promotions: promotedHere,
      lastPassed: { staging: ['6.9.1', '6.9.0'] },
      candidate: '6.9.2',
      actions: [{ type: 'rollback', env: 'staging', revision: '6.9.1', from: '6.9.2' }],
      states: { dev: 'source', staging: 'rolling-back', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'RollbackDue', prod: 'StoppedEarlier' },
    },
    {
      name: 'a revision not promoted here is not rolled back: the failure stays for a person',
      pipeline: verified('staging', verification, true),
      observed: onCandidate,
      verifications: [failedOn692(11)],
      lastPassed: { staging: ['6.9.1'] },
      candidate: '6.9.2',
      actions: [],
      states: { dev: 'source', staging: 'failed', prod: 'not-reached' },
      reasons: { dev: 'CandidateFound', staging: 'VerificationFailed', prod: 'StoppedEarlier' },
    },
  ]);
});

describe('recordEvaluation: one evaluation folded into the record', () => {
  const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
  const fold = (previous: VerificationRecord | undefined, results: CheckResult[], minutes: number, v = verification) =>
    recordEvaluation(v, previous, 'staging', '6.9.2', results, at(minutes));

  it('every check passing starts `for`; holding through it passes; the first evaluation after it decides', () => {
    const first = fold(undefined, allPassed, 0);
    assert.equal(first.holdingSince, NOW.toISOString());
    assert.equal(first.outcome, undefined);
    const later = fold(first, allPassed, 9);
    assert.equal(later.holdingSince, NOW.toISOString());
    assert.equal(later.outcome, undefined);
    const done = fold(later, allPassed, 10);
    assert.equal(done.outcome, 'passed');
    assert.equal(done.startedAt, NOW.toISOString());
  });

  it('without `for`, one evaluation passing every check is enough', () => {
    const { for: _for, ...once } = verification;
    assert.equal(fold(undefined, allPassed, 0, once).outcome, 'passed');
  });

  it('a check not passing restarts `for`; a failure at any point decides it failed, for good', () => {
    const holding = fold(undefined, allPassed, 0);
    const pending = fold(holding, [result('errors', 'passed'), result('smoke', 'pending')], 5);
    assert.equal(pending.holdingSince, undefined);
    const again = fold(pending, allPassed, 6);
    assert.equal(again.holdingSince, at(6).toISOString());
    const failed = fold(again, [result('errors', 'failed'), result('smoke', 'passed')], 8);
    assert.equal(failed.outcome, 'failed');
    assert.equal(fold(failed, allPassed, 30), failed, 'a decided record is final');
  });

  it('a check that cannot be evaluated waits under onInconclusive: wait and fails under fail', () => {
    const results = [result('errors', 'passed'), result('smoke', 'inconclusive')];
    const waiting = fold(undefined, results, 0);
    assert.equal(waiting.outcome, undefined);
    assert.equal(waiting.holdingSince, undefined);
    assert.equal(fold(undefined, results, 0, { ...verification, onInconclusive: 'fail' }).outcome, 'failed');
  });

  it("another revision's record is replaced, not continued", () => {
    const old = { ...fold(undefined, allPassed, 0), revision: '6.9.1' };
    const fresh = fold(old, allPassed, 3);
    assert.equal(fresh.startedAt, at(3).toISOString());
    assert.equal(fresh.holdingSince, at(3).toISOString());
  });
});
