// The one way a check calls out: the URL, every address its name resolves to and every redirect held to the outbound
// rules; the answer capped in size and time; credentials only to the origin written.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { FAKE_CA_PEM, FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import { listenOnLoopback } from '../../lib/testing/listen.js';
import {
  sendOutboundRequest,
  type HostResolver,
  type OutboundRequestOptions,
} from '../../lib/verification/outbound-request.js';

/** Long enough never to be reached on a busy machine: these tests are about something else than time. */
const PATIENT: OutboundRequestOptions = { timeoutMs: 120_000, allowLoopbackHttp: true, ca: FAKE_CA_PEM };
const TOKEN = 'Bearer s3cr3t-token-value';

/** A resolver that knows only the names given, as a test's DNS. */
function resolverOf(names: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (hostname: string) => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) return Promise.reject(Object.assign(new Error(`no such name ${hostname}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const));
  };
  return Object.assign(resolve, { asked });
}

describe('an outbound request', () => {
  let plain: FakeHttpTarget;
  let secure: FakeHttpTarget;
  let other: FakeHttpTarget;
  before(async () => {
    [plain, secure, other] = await Promise.all([
      FakeHttpTarget.start(),
      FakeHttpTarget.start({ https: true }),
      FakeHttpTarget.start(),
    ]);
  });
  after(() => Promise.all([plain.stop(), secure.stop(), other.stop()]));

  it('answers with the status, headers and body', async () => {
    plain.route('/healthz', { status: 200, body: '{"status":"ok"}', headers: { 'x-served-by': 'fake' } });
    const outcome = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/healthz` }, PATIENT);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.status, 200);
    assert.equal(outcome.body, '{"status":"ok"}');
    assert.equal(outcome.headers['x-served-by'], 'fake');
  });

  it('refuses the metadata address written as a literal, and plain http elsewhere than loopback', async () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
      'http://example.com/',
    ]) {
      const outcome = await sendOutboundRequest({ method: 'GET', url }, PATIENT);
      assert.ok(!outcome.ok && outcome.reason === 'AddressRefused', `${url}: ${JSON.stringify(outcome)}`);
    }
  });

  it('refuses a name that resolves to the metadata address, even among allowed ones', async () => {
    const resolve = resolverOf({
      'metadata.attacker.example': ['169.254.169.254'],
      'mixed.attacker.example': ['10.0.0.1', '::ffff:169.254.169.254'],
    });
    for (const host of ['metadata.attacker.example', 'mixed.attacker.example']) {
      const outcome = await sendOutboundRequest({ method: 'GET', url: `https://${host}/` }, { ...PATIENT, resolve });
      assert.ok(!outcome.ok, host);
      assert.equal(outcome.reason, 'AddressRefused');
      assert.match(outcome.problem, /169\.254\.169\.254/);
    }
    assert.deepEqual(resolve.asked, ['metadata.attacker.example', 'mixed.attacker.example']);
  });

  it('connects to the address it checked, with the name as Host and TLS server name', async () => {
    secure.route('/pinned', { body: 'pinned' });
    const resolve = resolverOf({ localhost: ['127.0.0.1'] });
    const port = new URL(secure.url).port;
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: `https://localhost:${port}/pinned` },
      { ...PATIENT, resolve },
    );
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.body, 'pinned');
    assert.deepEqual(resolve.asked, ['localhost']);
    assert.equal(secure.requests.at(-1)?.headers.host, `localhost:${port}`);
  });

  it('refuses a plain http name that resolves to another address than loopback', async () => {
    const resolve = resolverOf({ 'sidecar.localhost': ['10.0.0.5'] });
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: 'http://sidecar.localhost:9090/' },
      { ...PATIENT, resolve },
    );
    assert.ok(!outcome.ok && outcome.reason === 'AddressRefused', JSON.stringify(outcome));
  });

  it('refuses a redirect to the metadata address, literal or behind a name', async () => {
    const resolve = resolverOf({ 'imds.localhost': ['169.254.169.254'] });
    plain.route('/to-literal', { redirectTo: 'https://169.254.169.254/latest/meta-data/iam/' });
    plain.route('/to-name', { status: 307, redirectTo: 'http://imds.localhost/latest/api/token' });
    for (const path of ['/to-literal', '/to-name']) {
      const outcome = await sendOutboundRequest({ method: 'GET', url: `${plain.url}${path}` }, { ...PATIENT, resolve });
      assert.ok(!outcome.ok, path);
      assert.equal(outcome.reason, 'AddressRefused', outcome.problem);
    }
  });

  it('refuses a redirect from https to plain http, even to loopback, without calling it', async () => {
    other.route('/downgraded', { body: 'should not be read' });
    secure.route('/downgrade', { redirectTo: `${other.url}/downgraded` });
    const before = other.requests.length;
    const outcome = await sendOutboundRequest({ method: 'GET', url: `${secure.url}/downgrade` }, PATIENT);
    assert.ok(!outcome.ok && outcome.reason === 'AddressRefused', JSON.stringify(outcome));
    assert.equal(other.requests.length, before, 'the http target was never called');
  });

  it('follows up to three redirects, then stops', async () => {
    plain.route('/hop1', { redirectTo: '/hop2' });
    plain.route('/hop2', { status: 301, redirectTo: '/hop3' });
    plain.route('/hop3', { status: 308, redirectTo: `${plain.url}/landed` });
    plain.route('/landed', { body: 'landed' });
    const followed = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/hop1` }, PATIENT);
    assert.ok(followed.ok && followed.body === 'landed', JSON.stringify(followed));

    plain.route('/loop', { redirectTo: '/loop' });
    const before = plain.requests.length;
    const looped = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/loop` }, PATIENT);
    assert.ok(!looped.ok && looped.reason === 'InvalidAnswer', JSON.stringify(looped));
    assert.equal(plain.requests.length - before, 4, 'the request and three redirects');
  });

  it('sends credentials to the origin written only, never to the one a redirect goes to', async () => {
    other.route('/elsewhere', { body: 'elsewhere' });
    plain.route('/away', { redirectTo: `${other.url}/elsewhere` });
    plain.route('/here', { redirectTo: '/landed' });
    const credentials = () => ({ authorization: TOKEN });

    const away = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/away`, credentials }, PATIENT);
    assert.ok(away.ok && away.body === 'elsewhere', JSON.stringify(away));
    assert.equal(plain.requests.at(-1)?.headers.authorization, TOKEN);
    assert.equal(other.requests.at(-1)?.path, '/elsewhere');
    assert.equal(other.requests.at(-1)?.headers.authorization, undefined);

    const here = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/here`, credentials }, PATIENT);
    assert.ok(here.ok, JSON.stringify(here));
    assert.equal(plain.requests.at(-1)?.path, '/landed');
    assert.equal(plain.requests.at(-1)?.headers.authorization, TOKEN, 'same origin: still sent');
  });

  it('stops reading past the size cap, declared or streamed', async () => {
    plain.route('/streamed', { streamedBytes: 3 * 1024 * 1024 });
    plain.route('/declared', { body: 'x'.repeat(2000) });
    plain.route('/small', { body: 'x'.repeat(1000) });
    const streamed = await sendOutboundRequest({ method: 'GET', url: `${plain.url}/streamed` }, PATIENT);
    assert.ok(!streamed.ok && streamed.reason === 'AnswerTooLarge', JSON.stringify(streamed));
    const declared = await sendOutboundRequest(
      { method: 'GET', url: `${plain.url}/declared` },
      { ...PATIENT, maxBytes: 1000 },
    );
    assert.ok(!declared.ok && declared.reason === 'AnswerTooLarge', JSON.stringify(declared));
    const small = await sendOutboundRequest(
      { method: 'GET', url: `${plain.url}/small` },
      { ...PATIENT, maxBytes: 1000 },
    );
    assert.ok(small.ok && small.body.length === 1000, JSON.stringify(small));
  });

  it('gives up on a service that never answers', async () => {
    plain.route('/never', { delayMs: 'never' });
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: `${plain.url}/never`, credentials: () => ({ authorization: TOKEN }) },
      { ...PATIENT, timeoutMs: 200 },
    );
    assert.ok(!outcome.ok && outcome.reason === 'Timeout', JSON.stringify(outcome));
    assert.ok(!outcome.problem.includes('s3cr3t'));
  });

  it('gives up on a name that never resolves', async () => {
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: 'https://slow-dns.example/' },
      { ...PATIENT, timeoutMs: 200, resolve: () => new Promise(() => undefined) },
    );
    assert.ok(!outcome.ok && outcome.reason === 'Timeout', JSON.stringify(outcome));
  });

  it('reports a port nobody listens on as unreachable, without the credential or the query', async () => {
    const server = createServer();
    const port = await listenOnLoopback(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const outcome = await sendOutboundRequest(
      {
        method: 'GET',
        url: `http://127.0.0.1:${port}/api?token=q-s3cr3t`,
        credentials: () => ({ authorization: TOKEN }),
      },
      PATIENT,
    );
    assert.ok(!outcome.ok && outcome.reason === 'Unreachable', JSON.stringify(outcome));
    assert.match(outcome.problem, /ECONNREFUSED/);
    assert.ok(!outcome.problem.includes('s3cr3t'), outcome.problem);
  });

  it('reports a certificate it does not trust as unreachable', async () => {
    secure.route('/untrusted', { body: 'untrusted' });
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: `${secure.url}/untrusted` },
      { ...PATIENT, ca: undefined },
    );
    assert.ok(!outcome.ok && outcome.reason === 'Unreachable', JSON.stringify(outcome));
  });

  it('reports a name that does not resolve as unreachable', async () => {
    const outcome = await sendOutboundRequest(
      { method: 'GET', url: 'https://nowhere.example/' },
      { ...PATIENT, resolve: resolverOf({}) },
    );
    assert.ok(!outcome.ok && outcome.reason === 'Unreachable', JSON.stringify(outcome));
  });
});
