// The `prometheus` check's verdicts against a Prometheus API (and AMP's SigV4) behaving as the real ones: one value on
// the right side of its threshold passes, on the wrong side fails; whatever keeps the query from giving one number is
// inconclusive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PrometheusCheck } from '../../lib/pipeline/verification.js';
import { FAKE_AMP_CREDENTIALS, FakePrometheus } from '../../lib/testing/fake-prometheus.js';
import { sendOutboundRequest } from '../../lib/verification/outbound-request.js';
import {
  evaluatePrometheusCheck,
  instantQueryEndpoint,
  MAX_QUERY_URL_LENGTH,
  type PrometheusCheckContext,
} from '../../lib/verification/prometheus-check.js';

const CONTEXT: PrometheusCheckContext = { outbound: { timeoutMs: 120_000, allowLoopbackHttp: true } };
const ERROR_RATE =
  'sum(rate(http_requests_total{app="podinfo",code=~"5.."}[5m])) / sum(rate(http_requests_total{app="podinfo"}[5m]))';

describe('a prometheus check', () => {
  let prometheus: FakePrometheus;
  before(async () => (prometheus = await FakePrometheus.start()));
  after(() => prometheus.stop());

  const evaluate = (check: Omit<PrometheusCheck, 'url'>, context: PrometheusCheckContext = CONTEXT) =>
    evaluatePrometheusCheck('error-rate', { url: prometheus.url, ...check }, context);

  it('passes below its threshold and fails above it, with the value seen', async () => {
    prometheus.script('low', { value: 0.004 }).script('high', { value: 0.023 });
    const low = await evaluate({ query: 'low', below: 0.01 });
    assert.deepEqual(
      [low.verdict, low.reason, low.value],
      ['passed', 'WithinThreshold', '0.004 (below 0.01 required)'],
    );
    const high = await evaluate({ query: 'high', below: 0.01 });
    assert.deepEqual(
      [high.verdict, high.reason, high.value],
      ['failed', 'ThresholdCrossed', '0.023 (below 0.01 required)'],
    );
    assert.equal(high.kind, 'prometheus');
    assert.match(high.message, /returned 0\.023/);
  });

  it('compares with above, the threshold itself not holding', async () => {
    prometheus.script('availability', { value: 0.999 }).script('at-threshold', { scalar: 0.99 });
    assert.equal((await evaluate({ query: 'availability', above: 0.99 })).verdict, 'passed');
    const equal = await evaluate({ query: 'at-threshold', above: 0.99 });
    assert.deepEqual([equal.verdict, equal.value], ['failed', '0.99 (above 0.99 required)']);
  });

  it('sends the query as written, with or without a slash after the URL', async () => {
    prometheus.script(ERROR_RATE, { value: 0 });
    for (const url of [prometheus.url, `${prometheus.url}/`]) {
      const result = await evaluatePrometheusCheck('error-rate', { url, query: ERROR_RATE, below: 0.01 }, CONTEXT);
      assert.equal(result.verdict, 'passed', result.message);
      assert.equal(prometheus.requests.at(-1)?.query, ERROR_RATE);
      assert.match(prometheus.requests.at(-1)?.path ?? '', /^\/api\/v1\/query\?query=/);
    }
  });

  it('is inconclusive without exactly one number', async () => {
    prometheus
      .script('nothing', { noData: true })
      .script('per-pod', { series: [0.001, 0.002, 0.05] })
      .script('nan', { value: Number.NaN });
    const cases = [
      ['nothing', 'NoData'],
      ['per-pod', 'NotOneValue'],
      ['nan', 'NotOneValue'],
      ['never-scripted', 'NoData'],
    ] as const;
    for (const [query, reason] of cases) {
      const result = await evaluate({ query, below: 0.01 });
      assert.deepEqual([result.verdict, result.reason], ['inconclusive', reason], query);
    }
  });

  it('is inconclusive when Prometheus refuses the query, fails or is slow', async () => {
    prometheus
      .script('sum(rate(', {
        error: {
          status: 400,
          errorType: 'bad_data',
          error: 'invalid parameter "query": 1:10: parse error: unclosed left parenthesis',
        },
      })
      .script('overloaded', { status: 503, body: 'Service Unavailable' })
      .script('slow', { value: 0 }, 'never');
    const rejected = await evaluate({ query: 'sum(rate(', below: 1 });
    assert.deepEqual(
      [rejected.verdict, rejected.reason, rejected.value],
      ['inconclusive', 'QueryRejected', 'HTTP 400'],
    );
    assert.match(rejected.message, /bad_data: invalid parameter "query": 1:10: parse error/);
    const overloaded = await evaluate({ query: 'overloaded', below: 1 });
    assert.deepEqual(
      [overloaded.verdict, overloaded.reason, overloaded.value],
      ['inconclusive', 'ServerError', 'HTTP 503'],
    );
    const slow = await evaluate({ query: 'slow', below: 1 }, { outbound: { ...CONTEXT.outbound, timeoutMs: 200 } });
    assert.deepEqual([slow.verdict, slow.reason], ['inconclusive', 'Timeout']);
  });

  it('answers a POST form as it answers a GET', async () => {
    prometheus.script('up', { value: 1 });
    const outcome = await sendOutboundRequest(
      {
        method: 'POST',
        url: instantQueryEndpoint(prometheus.url),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: 'up' }).toString(),
      },
      CONTEXT.outbound,
    );
    assert.ok(outcome.ok && outcome.status === 200, JSON.stringify(outcome));
    assert.match(outcome.body, /"value":\[[\d.]+,"1"\]/);
  });
});

describe('a prometheus check behind a bearer token', () => {
  let prometheus: FakePrometheus;
  before(async () => (prometheus = await FakePrometheus.start({ requireAuthorization: 'Bearer pr0m-reader' })));
  after(() => prometheus.stop());

  it('passes with the Secret’s token and is Unauthorized with another', async () => {
    prometheus.script('up', { value: 1 });
    const check = { url: prometheus.url, query: 'up', above: 0, auth: { secretRef: { name: 'prometheus-reader' } } };
    const good = await evaluatePrometheusCheck('up', check, {
      ...CONTEXT,
      secrets: { 'prometheus-reader': { token: 'pr0m-reader' } },
    });
    assert.equal(good.verdict, 'passed', good.message);
    const refused = await evaluatePrometheusCheck('up', check, {
      ...CONTEXT,
      secrets: { 'prometheus-reader': { token: 'expired-t0ken' } },
    });
    assert.deepEqual([refused.verdict, refused.reason, refused.value], ['inconclusive', 'Unauthorized', 'HTTP 401']);
    assert.ok(!refused.message.includes('expired-t0ken'));
    const missing = await evaluatePrometheusCheck('up', check, { ...CONTEXT, secrets: {} });
    assert.deepEqual([missing.verdict, missing.reason], ['inconclusive', 'SecretMissing']);
  });
});

describe('a prometheus check on Amazon Managed Service for Prometheus', () => {
  let amp: FakePrometheus;
  before(async () => (amp = await FakePrometheus.start({ amp: { region: 'eu-west-1' } })));
  after(() => amp.stop());

  const check = (query: string): PrometheusCheck => ({
    url: amp.url,
    query,
    below: 0.01,
    auth: { sigv4: { region: 'eu-west-1' } },
  });

  it('signs the query with SigV4 for aps, accepted by the workspace', async () => {
    amp.script(ERROR_RATE, { value: 0.002 });
    const result = await evaluatePrometheusCheck('error-rate', check(ERROR_RATE), {
      ...CONTEXT,
      awsCredentials: () => Promise.resolve({ ...FAKE_AMP_CREDENTIALS }),
    });
    assert.equal(result.verdict, 'passed', result.message);
    const sent = amp.requests.at(-1);
    assert.equal(sent?.status, 200);
    assert.match(
      String(sent?.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIAFAKEPROMETHEUS01\/\d{8}\/eu-west-1\/aps\/aws4_request/,
    );
  });

  it('sends a long query as a signed POST form', async () => {
    const pods = Array.from({ length: 300 }, (_, index) => `podinfo-7d9f8c6b5-${String(index).padStart(5, '0')}`);
    const long = `sum(rate(http_requests_total{code=~"5..", pod=~"${pods.join('|')}"}[5m])) + 0`;
    assert.ok(long.length > MAX_QUERY_URL_LENGTH);
    amp.script(long, { value: 0.001 });
    const result = await evaluatePrometheusCheck('error-rate', check(long), {
      ...CONTEXT,
      awsCredentials: () => Promise.resolve({ ...FAKE_AMP_CREDENTIALS }),
    });
    assert.equal(result.verdict, 'passed', result.message);
    const sent = amp.requests.at(-1);
    assert.equal(sent?.method, 'POST');
    assert.equal(sent?.query, long);
    assert.equal(sent?.status, 200);
  });

  it('is Unauthorized with a wrong secret key, unsigned, or signed for another region, never showing the key', async () => {
    amp.script('up', { value: 0 });
    const wrongKey = await evaluatePrometheusCheck('up', check('up'), {
      ...CONTEXT,
      awsCredentials: () => Promise.resolve({ ...FAKE_AMP_CREDENTIALS, secretAccessKey: 'not-the-s3cret-key' }),
    });
    assert.deepEqual([wrongKey.verdict, wrongKey.reason, wrongKey.value], ['inconclusive', 'Unauthorized', 'HTTP 403']);
    assert.ok(!wrongKey.message.includes('s3cret'), wrongKey.message);
    assert.equal(amp.requests.at(-1)?.status, 403);

    const unsigned = await evaluatePrometheusCheck('up', { ...check('up'), auth: undefined }, CONTEXT);
    assert.deepEqual([unsigned.verdict, unsigned.reason], ['inconclusive', 'Unauthorized']);

    const otherRegion = await evaluatePrometheusCheck(
      'up',
      { ...check('up'), auth: { sigv4: { region: 'us-east-1' } } },
      {
        ...CONTEXT,
        awsCredentials: () => Promise.resolve({ ...FAKE_AMP_CREDENTIALS }),
      },
    );
    assert.deepEqual([otherRegion.verdict, otherRegion.reason], ['inconclusive', 'Unauthorized']);
  });

  it('is Unauthorized when signed with a stale clock', async () => {
    amp.script('up', { value: 0 });
    const stale = await evaluatePrometheusCheck('up', check('up'), {
      ...CONTEXT,
      now: () => new Date(Date.now() - 20 * 60_000),
      awsCredentials: () => Promise.resolve({ ...FAKE_AMP_CREDENTIALS }),
    });
    assert.deepEqual([stale.verdict, stale.reason], ['inconclusive', 'Unauthorized']);
  });

  it('is Unauthorized when the credentials cannot be loaded, without calling', async () => {
    const before = amp.requests.length;
    const result = await evaluatePrometheusCheck('up', check('up'), {
      ...CONTEXT,
      awsCredentials: () =>
        Promise.reject(Object.assign(new Error('Could not load credentials'), { name: 'CredentialsProviderError' })),
    });
    assert.deepEqual([result.verdict, result.reason], ['inconclusive', 'Unauthorized']);
    assert.match(result.message, /CredentialsProviderError/);
    assert.equal(amp.requests.length, before);
  });
});
