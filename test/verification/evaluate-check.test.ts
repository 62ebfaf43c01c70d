// The dispatcher over the check kinds: an environment's checks each evaluated by its kind, in order; loopback http
// allowed only to the check that asks for it; CloudWatch alarms inconclusive until an evaluator is given; an evaluator
// that throws costs its own check only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineEnvironment } from '../../lib/pipeline/model.js';
import type { VerificationCheck } from '../../lib/pipeline/verification.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import { FakePrometheus } from '../../lib/testing/fake-prometheus.js';
import { evaluateChecks, type CheckEvaluationDeps } from '../../lib/verification/evaluate-check.js';

const NOW = new Date('2026-03-02T10:05:00Z');
const QUERY = 'sum(rate(http_requests_total{code=~"5.."}[5m]))';

function environment(checks: VerificationCheck[]): PipelineEnvironment {
  return {
    name: 'staging',
    targets: [{ namespace: 'apps', cluster: { namespace: 'flux-system', name: 'staging' } }],
    verification: { onInconclusive: 'wait', checks },
  };
}

const deps: CheckEvaluationDeps = {
  clusters: { getCanary: () => Promise.reject(new Error('no cluster in this test')) },
  targets: [],
  now: () => NOW,
};

const summary = (results: Awaited<ReturnType<typeof evaluateChecks>>) =>
  results.map(({ name, kind, verdict, reason }) => `${name} ${kind} ${verdict} ${reason}`);

describe('evaluating an environment’s checks', () => {
  let service: FakeHttpTarget;
  let prometheus: FakePrometheus;
  before(async () => {
    service = await FakeHttpTarget.start();
    prometheus = await FakePrometheus.start();
    service.route('/healthz', { status: 200, body: 'ok' });
    prometheus.script(QUERY, { value: 0.5 });
  });
  after(async () => {
    await service.stop();
    await prometheus.stop();
  });

  it('evaluates each check by its kind, in the environment’s order, stamped with the time', async () => {
    const results = await evaluateChecks(
      environment([
        { name: 'smoke', http: { url: `${service.url}/healthz`, allowInsecureLoopback: true } },
        { name: 'errors', prometheus: { url: prometheus.url, query: QUERY, below: 0.1, allowInsecureLoopback: true } },
      ]),
      '6.9.2',
      deps,
    );
    assert.deepEqual(summary(results), ['smoke http passed AsExpected', 'errors prometheus failed ThresholdCrossed']);
    assert.ok(results.every((result) => result.checkedAt === NOW.toISOString()));
  });

  it('allows plain http to loopback only to the check that asks for it', async () => {
    const sent = service.requests.length;
    const results = await evaluateChecks(
      environment([
        { name: 'allowed', http: { url: `${service.url}/healthz`, allowInsecureLoopback: true } },
        { name: 'not-allowed', http: { url: `${service.url}/healthz` } },
      ]),
      '6.9.2',
      deps,
    );
    assert.deepEqual(summary(results), [
      'allowed http passed AsExpected',
      'not-allowed http inconclusive AddressRefused',
    ]);
    assert.equal(service.requests.length, sent + 1, 'the check without the allowance sent nothing');
  });

  it('leaves CloudWatch alarms inconclusive until an evaluator is given, then uses it', async () => {
    const alarms: VerificationCheck = { name: 'alarms', cloudwatchAlarms: { alarmNames: ['podinfo-5xx'] } };
    const [unwired] = await evaluateChecks(environment([alarms]), '6.9.2', deps);
    assert.equal(unwired?.verdict, 'inconclusive');
    assert.match(unwired?.message ?? '', /CloudWatch alarms are not wired/);

    const [wired] = await evaluateChecks(environment([alarms]), '6.9.2', {
      ...deps,
      cloudwatchAlarms: (name) =>
        Promise.resolve({
          name,
          kind: 'cloudwatchAlarms',
          verdict: 'passed',
          reason: 'AlarmsOK',
          value: 'podinfo-5xx OK',
          message: 'every alarm OK',
          checkedAt: NOW.toISOString(),
        }),
    });
    assert.equal(wired?.reason, 'AlarmsOK');
  });

  it('turns an evaluator that throws into that check’s inconclusive result, the others evaluated', async () => {
    const results = await evaluateChecks(
      environment([
        { name: 'alarms', cloudwatchAlarms: { alarmNames: ['podinfo-5xx'] } },
        { name: 'smoke', http: { url: `${service.url}/healthz`, allowInsecureLoopback: true } },
      ]),
      '6.9.2',
      {
        ...deps,
        cloudwatchAlarms: () => Promise.reject(new Error(`socket hang up\n${'x'.repeat(1000)}`)),
      },
    );
    assert.deepEqual(summary(results), [
      'alarms cloudwatchAlarms inconclusive InvalidAnswer',
      'smoke http passed AsExpected',
    ]);
    const message = results[0]?.message ?? '';
    assert.match(message, /socket hang up/);
    assert.doesNotMatch(message, /\n/);
    assert.ok(message.length < 300, 'the error is clipped');
  });
});
