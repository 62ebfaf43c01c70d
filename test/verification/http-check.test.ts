// The `http` check's verdicts: the service's own answers pass or fail it; the way to it and our credentials being
// refused leave it inconclusive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HttpCheck } from '../../lib/pipeline/verification.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import type { CheckContext } from '../../lib/verification/check-context.js';
import { evaluateHttpCheck } from '../../lib/verification/http-check.js';

const NOW = new Date('2026-11-29T10:00:00Z');
const CONTEXT: CheckContext = { outbound: { timeoutMs: 120_000, allowLoopbackHttp: true }, now: () => NOW };

describe('an http check', () => {
  let service: FakeHttpTarget;
  before(async () => (service = await FakeHttpTarget.start()));
  after(() => service.stop());

  const evaluate = (check: Omit<HttpCheck, 'url'> & { path: string }, context: CheckContext = CONTEXT) => {
    const { path, ...rest } = check;
    return evaluateHttpCheck('smoke', { ...rest, url: `${service.url}${path}` }, context);
  };

  it('passes on the expected status and text', async () => {
    service.route('/healthz', { body: '{"status":"ok","version":"6.9.2"}' });
    const result = await evaluate({ path: '/healthz', bodyContains: '"status":"ok"' });
    assert.deepEqual(
      { verdict: result.verdict, reason: result.reason, value: result.value, kind: result.kind, name: result.name },
      { verdict: 'passed', reason: 'AsExpected', value: 'HTTP 200', kind: 'http', name: 'smoke' },
    );
    assert.equal(result.checkedAt, NOW.toISOString());
  });

  it('fails when the service answers another status, a 5xx included', async () => {
    service.route('/down', { status: 503, body: 'no healthy upstream' });
    const result = await evaluate({ path: '/down' });
    assert.equal(result.verdict, 'failed');
    assert.equal(result.reason, 'UnexpectedStatus');
    assert.equal(result.value, 'HTTP 503');
    assert.match(result.message, /503, 200 expected/);
  });

  it('fails when the expected text is missing', async () => {
    service.route('/degraded', { body: '{"status":"degraded"}' });
    const result = await evaluate({ path: '/degraded', bodyContains: '"status":"ok"' });
    assert.equal(result.verdict, 'failed');
    assert.equal(result.reason, 'BodyMismatch');
    assert.equal(result.value, 'HTTP 200');
  });

  it('takes another expected status, a redirect included, as the answer', async () => {
    service.route('/teapot', { status: 418 });
    service.route('/login', { status: 302, redirectTo: '/sso' });
    assert.equal((await evaluate({ path: '/teapot', expectStatus: 418 })).verdict, 'passed');
    const redirect = await evaluate({ path: '/login', expectStatus: 302 });
    assert.equal(redirect.verdict, 'passed', redirect.message);
    assert.equal(service.requests.at(-1)?.path, '/login', 'the redirect was not followed');
  });

  it('sends a bearer token or basic credentials from the Secret named', async () => {
    service.route('/private', { body: 'ok' });
    const secrets = { 'smoke-token': { token: 't0ken-value' }, 'smoke-basic': { username: 'probe', password: 'pa55' } };
    await evaluate({ path: '/private', secretRef: { name: 'smoke-token' } }, { ...CONTEXT, secrets });
    assert.equal(service.requests.at(-1)?.headers.authorization, 'Bearer t0ken-value');
    await evaluate({ path: '/private', secretRef: { name: 'smoke-basic' } }, { ...CONTEXT, secrets });
    assert.equal(
      service.requests.at(-1)?.headers.authorization,
      `Basic ${Buffer.from('probe:pa55').toString('base64')}`,
    );
  });

  it('is inconclusive when the Secret is missing or lacks the keys, without calling', async () => {
    const before = service.requests.length;
    const missing = await evaluate({ path: '/private', secretRef: { name: 'absent' } }, { ...CONTEXT, secrets: {} });
    const empty = await evaluate(
      { path: '/private', secretRef: { name: 'empty' } },
      { ...CONTEXT, secrets: { empty: { user: 'x' } } },
    );
    for (const result of [missing, empty]) {
      assert.equal(result.verdict, 'inconclusive');
      assert.equal(result.reason, 'SecretMissing');
    }
    assert.match(missing.message, /Secret absent not found/);
    assert.equal(service.requests.length, before);
  });

  it('is inconclusive when our credentials are refused or the service throttles, never failed', async () => {
    service.route('/refused', { status: 401 });
    service.route('/forbidden', { status: 403 });
    service.route('/throttled', { status: 429 });
    const secrets = { probe: { token: 'wr0ng-token-value' } };
    for (const [path, reason] of [
      ['/refused', 'Unauthorized'],
      ['/forbidden', 'Unauthorized'],
      ['/throttled', 'ServerError'],
    ] as const) {
      const result = await evaluate({ path, secretRef: { name: 'probe' } }, { ...CONTEXT, secrets });
      assert.equal(result.verdict, 'inconclusive', path);
      assert.equal(result.reason, reason, path);
      assert.ok(!result.message.includes('wr0ng'), result.message);
    }
  });

  it('is inconclusive when the way to the service fails', async () => {
    service.route('/never', { delayMs: 'never' });
    const timedOut = await evaluate(
      { path: '/never' },
      { ...CONTEXT, outbound: { ...CONTEXT.outbound, timeoutMs: 200 } },
    );
    assert.equal(timedOut.verdict, 'inconclusive');
    assert.equal(timedOut.reason, 'Timeout');

    const metadata = await evaluateHttpCheck('smoke', { url: 'https://169.254.169.254/latest/meta-data/' }, CONTEXT);
    assert.equal(metadata.verdict, 'inconclusive');
    assert.equal(metadata.reason, 'AddressRefused');
  });
});
