// WebhookSink against a local node:http endpoint: the request is what Flux's generic / generic-hmac Provider sends
// (docs/flux-status.md, "The request"), and each kind of failure maps to a PromotionError that says whether to retry, without
// repeating the URL's path or query or any header value.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PromotionError } from '../../lib/promotion/index.js';
import {
  encodeEvent,
  parseRetryAfter,
  promotionEvent,
  WebhookSink,
  type PromotionEvent,
} from '../../lib/promotion/notification-strategy/index.js';
import { promotionRequest } from './promoter-contract.js';
import { startLocalServer, type LocalServer, type Reply } from './notification-servers.js';

const HMAC_KEY = 'hmac-Key-not-for-messages';
const QUERY_SECRET = 'query-token-not-for-messages';
const PATH_SECRET = 'T000/B000/path-secret-not-for-messages';
const HEADER_SECRET = 'Bearer header-token-not-for-messages';
const SECRETS = [HMAC_KEY, QUERY_SECRET, PATH_SECRET, 'path-secret', HEADER_SECRET, 'header-token', '?'];

const event: PromotionEvent = promotionEvent(promotionRequest('6.9.2'), new Date('2026-03-14T09:26:53Z'), {
  instance: 'promoter-1',
});

function rejectsWith(promise: Promise<unknown>, retryable: boolean, retryAfterMs?: number): Promise<PromotionError> {
  return promise.then(
    () => assert.fail('expected a PromotionError'),
    (error: unknown) => {
      assert.ok(error instanceof PromotionError, `not a PromotionError: ${String(error)}`);
      assert.equal(error.retryable, retryable, error.message);
      assert.equal(error.retryAfterMs, retryAfterMs);
      return error;
    },
  );
}

function assertNoSecrets(error: Error): void {
  const shown = [error.message, String(error), inspect(error, { depth: 10 })];
  for (const text of shown) for (const secret of SECRETS) assert.ok(!text.includes(secret), `"${secret}" in: ${text}`);
}

describe('WebhookSink', () => {
  let server: LocalServer;
  let sink: WebhookSink;

  before(async () => {
    server = await startLocalServer();
    sink = new WebhookSink({
      url: `${server.url}/services/${PATH_SECRET}?token=${QUERY_SECRET}`,
      hmacKey: HMAC_KEY,
      headers: { Authorization: HEADER_SECRET },
      // Long enough for a busy machine: only the test of a hanging endpoint waits for a timeout, with its own sink.
      timeoutMs: 10_000,
    });
  });
  beforeEach(() => {
    server.received = [];
    server.reply = () => ({ status: 200 });
  });
  after(() => server.stop());

  it('POSTs the compact event with the headers of a Flux generic-hmac Provider, signed over the body bytes', async () => {
    await sink.send(event);
    const [request] = server.received;
    assert.ok(request);
    assert.equal(server.received.length, 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, `/services/${PATH_SECRET}?token=${QUERY_SECRET}`);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['gotk-component'], 'pipeline-controller');
    assert.equal(request.headers.authorization, HEADER_SECRET);
    assert.equal(request.body.toString('utf8'), encodeEvent(event));
    assert.deepEqual(JSON.parse(request.body.toString('utf8')), event);

    const signature = request.headers['x-signature'];
    assert.equal(typeof signature, 'string');
    const match = /^sha256=([0-9a-f]{64})$/.exec(String(signature));
    assert.ok(match?.[1], `malformed signature ${String(signature)}`);
    const expected = createHmac('sha256', Buffer.from(HMAC_KEY, 'utf8')).update(request.body).digest();
    assert.ok(timingSafeEqual(Buffer.from(match[1], 'hex'), expected), 'the signature does not verify');
  });

  it('lets configured headers replace Content-Type but never X-Signature; without a key it does not sign', async () => {
    const custom = new WebhookSink({
      url: server.url,
      headers: { 'content-type': 'application/vnd.custom+json', 'X-Signature': 'sha256=forged', 'X-Extra': 'yes' },
      hmacKey: 'k',
    });
    await custom.send(event);
    const plain = new WebhookSink({ url: server.url });
    await plain.send(event);
    const [signed, unsigned] = server.received;
    assert.equal(signed?.headers['content-type'], 'application/vnd.custom+json');
    assert.equal(signed?.headers['x-extra'], 'yes');
    assert.equal(
      signed?.headers['x-signature'],
      `sha256=${createHmac('sha256', 'k').update(signed.body).digest('hex')}`,
    );
    assert.equal(unsigned?.headers['x-signature'], undefined);
    assert.equal(unsigned?.headers['content-type'], 'application/json');
    assert.equal(unsigned?.headers.authorization, undefined);
  });

  it('accepts any 2xx', async () => {
    for (const status of [200, 201, 202, 204]) {
      server.reply = () => ({ status, body: status === 204 ? undefined : 'ok' });
      await sink.send(event);
    }
    assert.equal(server.received.length, 4);
  });

  it('reports 5xx and 429 as retryable, with the delay of a Retry-After in seconds or as a date', async () => {
    server.reply = () => ({ status: 500 });
    assertNoSecrets(await rejectsWith(sink.send(event), true));
    server.reply = () => ({ status: 503, headers: { 'Retry-After': '7' } });
    const unavailable = await rejectsWith(sink.send(event), true, 7_000);
    assert.match(unavailable.message, /^webhook 127\.0\.0\.1:\d+: HTTP 503$/);
    server.reply = () => ({ status: 429, headers: { 'Retry-After': '120' } });
    await rejectsWith(sink.send(event), true, 120_000);

    server.reply = () => ({ status: 429, headers: { 'Retry-After': new Date(Date.now() + 30_000).toUTCString() } });
    const limited = await sink.send(event).catch((error: unknown) => error);
    assert.ok(limited instanceof PromotionError && limited.retryable);
    assert.ok(
      limited.retryAfterMs !== undefined && limited.retryAfterMs > 28_000 && limited.retryAfterMs <= 30_000,
      `retryAfterMs ${limited.retryAfterMs}`,
    );
    server.reply = () => ({ status: 502, headers: { 'Retry-After': 'soon' } });
    await rejectsWith(sink.send(event), true, undefined);
  });

  it('reports other 4xx, 501 and redirects as not retryable, and does not follow a redirect', async () => {
    for (const status of [400, 401, 403, 404, 422, 501]) {
      server.reply = () => ({ status, body: `echo: ${HEADER_SECRET} ${QUERY_SECRET}` });
      const error = await rejectsWith(sink.send(event), false);
      assert.ok(error.message.endsWith(`HTTP ${status}`), error.message);
      assertNoSecrets(error);
    }
    server.received = [];
    server.reply = (request): Reply =>
      request.url.startsWith('/elsewhere') ? { status: 200 } : { status: 302, headers: { Location: '/elsewhere' } };
    assertNoSecrets(await rejectsWith(sink.send(event), false));
    assert.equal(server.received.length, 1, 'the redirect was followed');
  });

  it('gives up on an endpoint that does not answer within the timeout, as retryable', async () => {
    server.reply = () => 'hang';
    const impatient = new WebhookSink({
      url: `${server.url}/services/${PATH_SECRET}?token=${QUERY_SECRET}`,
      hmacKey: HMAC_KEY,
      headers: { Authorization: HEADER_SECRET },
      timeoutMs: 250,
    });
    const error = await rejectsWith(impatient.send(event), true);
    assert.match(error.message, /no response within 250 ms/);
    assertNoSecrets(error);
  });

  it('reports an endpoint it cannot reach as retryable', async () => {
    const gone = await startLocalServer();
    await gone.stop();
    const unreachable = new WebhookSink({
      url: `${gone.url}/services/${PATH_SECRET}?token=${QUERY_SECRET}`,
      headers: { Authorization: HEADER_SECRET },
    });
    const error = await rejectsWith(unreachable.send(event), true);
    assert.match(error.message, /^webhook 127\.0\.0\.1:\d+: request failed \(ECONNREFUSED\)$/);
    assertNoSecrets(error);
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const fake = new WebhookSink({
      url: 'https://hooks.example.com/x?token=abc',
      fetch: (input) => {
        calls.push(input instanceof Request ? input.url : input.toString());
        return Promise.resolve(new Response(null, { status: 202 }));
      },
    });
    await fake.send(event);
    assert.deepEqual(calls, ['https://hooks.example.com/x?token=abc']);
    assert.equal(fake.name, 'webhook hooks.example.com');
  });

  it('refuses a URL that is not http(s) or carries credentials, without repeating it', () => {
    for (const url of ['ftp://hooks.example.com/x?token=secret', 'https://user:secret@hooks.example.com/', 'secret']) {
      assert.throws(
        () => new WebhookSink({ url }),
        (error: unknown) => error instanceof Error && !error.message.includes('secret'),
      );
    }
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates, and ignores anything else', () => {
    const now = Date.parse('2026-03-14T09:00:00Z');
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('42', now), 42_000);
    assert.equal(parseRetryAfter('Sat, 14 Mar 2026 09:01:30 GMT', now), 90_000);
    assert.equal(parseRetryAfter('Sat, 14 Mar 2026 08:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('-5', now), undefined);
    assert.equal(parseRetryAfter('later', now), undefined);
  });
});
