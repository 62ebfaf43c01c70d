// The Lambda function URL adapter, on realistic payload-format-2.0 events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { fromFunctionUrlEvent, toFunctionUrlResult } from '../../lib/http/function-url.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { verifySignature, EVENT_SIGNATURE_ALGORITHMS } from '../../lib/signing/hmac.js';
import { functionUrlRequestContext } from '../fixtures/function-url.js';
import { EVENT_A_HELM_UPGRADE, EVENT_A_HMAC_KEY, EVENT_A_SIGNATURE } from '../fixtures/flux-events.js';

/** What a function URL hands the Lambda for Flux's POST (docs/flux-status.md, "The request"). */
function functionUrlEvent(overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/v1/events/flux-system/fleet-eu',
    rawQueryString: '',
    headers: {
      'content-length': '508',
      'x-amzn-tls-version': 'TLSv1.3',
      'x-forwarded-proto': 'https',
      'x-forwarded-port': '443',
      'x-forwarded-for': '203.0.113.7',
      'accept-encoding': 'gzip',
      'x-amzn-tls-cipher-suite': 'TLS_AES_128_GCM_SHA256',
      'x-amzn-trace-id': 'Root=1-6720f1a2-1b2c3d4e5f6a7b8c9d0e1f2a',
      host: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws',
      'content-type': 'application/json',
      'gotk-component': 'helm-controller',
      'x-signature': EVENT_A_SIGNATURE,
      'user-agent': 'Go-http-client/1.1',
    },
    requestContext: functionUrlRequestContext('POST', '/v1/events/flux-system/fleet-eu'),
    body: Buffer.from(EVENT_A_HELM_UPGRADE, 'utf8').toString('base64'),
    isBase64Encoded: true,
    ...overrides,
  };
}

describe('fromFunctionUrlEvent', () => {
  it('decodes a base64-encoded body to the exact bytes that were signed', () => {
    const request = fromFunctionUrlEvent(functionUrlEvent());
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1/events/flux-system/fleet-eu');
    assert.equal(request.body.length, 508);
    assert.equal(request.body.toString('utf8'), EVENT_A_HELM_UPGRADE);
    assert.equal(request.headers['x-signature'], EVENT_A_SIGNATURE);
    assert.equal(
      verifySignature(request.headers['x-signature'], request.body, EVENT_A_HMAC_KEY, EVENT_SIGNATURE_ALGORITHMS),
      true,
    );
  });

  it('takes a text body as UTF-8', () => {
    const body = '{"message":"réussi ✓"}';
    const request = fromFunctionUrlEvent(functionUrlEvent({ body, isBase64Encoded: false }));
    assert.deepEqual(request.body, Buffer.from(body, 'utf8'));
  });

  it('gives an empty body when there is none, and keeps rawPath encoded without the query', () => {
    const event = functionUrlEvent({
      rawPath: '/approval/flux-system/podinfo/prod/6.9.2%2Bbuild.1',
      rawQueryString: 'x=1',
      isBase64Encoded: false,
    });
    delete event.body;
    event.requestContext.http.method = 'post';
    const request = fromFunctionUrlEvent(event);
    assert.equal(request.body.length, 0);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/approval/flux-system/podinfo/prod/6.9.2%2Bbuild.1');
  });

  it('lower-cases header names', () => {
    const request = fromFunctionUrlEvent(functionUrlEvent({ headers: { 'X-Signature': 'sha256=00' } }));
    assert.deepEqual(request.headers, { 'x-signature': 'sha256=00' });
  });
});

/** Dependencies for requests answered before any port is used: only the logger and the (default) cap are read. */
const untouchable = new Proxy({} as ReceiverDeps, {
  get: (_target, name) => {
    if (name === 'logger') return { info() {}, warn() {}, error() {} };
    if (name === 'maxBodyBytes' || name === 'onEvent') return undefined;
    return assert.fail(`used ${String(name)}`);
  },
});

describe('the body cap over a function URL (3 MiB, as notification-controller forwards)', () => {
  const CAP = 3 * 1024 * 1024;
  const withoutLength = (body: Buffer, isBase64Encoded = true) => {
    const event = functionUrlEvent({
      body: isBase64Encoded ? body.toString('base64') : body.toString('utf8'),
      isBase64Encoded,
    });
    delete event.headers['content-length'];
    return event;
  };

  it('decodes a 564 KB body and one of exactly 3 MiB', () => {
    assert.equal(fromFunctionUrlEvent(withoutLength(Buffer.alloc(564_000, 'c'))).body.length, 564_000);
    assert.equal(fromFunctionUrlEvent(withoutLength(Buffer.alloc(CAP, 'c'))).body.length, CAP);
    assert.equal(fromFunctionUrlEvent(withoutLength(Buffer.alloc(CAP, 'c'), false)).body.length, CAP);
  });

  it('does not decode a body over 3 MiB, and the receiver answers it 413', async () => {
    for (const isBase64Encoded of [true, false]) {
      for (const length of [CAP + 1, CAP + 2, CAP + 3, 4 * CAP]) {
        const request = fromFunctionUrlEvent(withoutLength(Buffer.alloc(length, 'c'), isBase64Encoded));
        assert.equal(request.body.length, 0, `${length} bytes left undecoded`);
        assert.equal(request.oversizedBodyBytes, length);
        const answer = await handleRequest(request, untouchable);
        assert.equal(answer.statusCode, 413);
        assert.equal(answer.body, '{"error":"request body too large"}');
      }
    }
  });
});

describe('trailing slashes over a function URL', () => {
  it('serves /healthz/ as /healthz', async () => {
    const event = functionUrlEvent({
      rawPath: '/healthz/',
      requestContext: functionUrlRequestContext('GET', '/healthz/'),
    });
    delete event.body;
    const answer = toFunctionUrlResult(await handleRequest(fromFunctionUrlEvent(event), untouchable));
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, '{"status":"ok"}');
  });
});

describe('toFunctionUrlResult', () => {
  it('returns the status, a JSON content type and the body', () => {
    const result = toFunctionUrlResult({ statusCode: 405, headers: { allow: 'POST' }, body: '{"error":"x"}' });
    assert.deepEqual(result, {
      statusCode: 405,
      headers: { 'content-type': 'application/json', allow: 'POST' },
      body: '{"error":"x"}',
      isBase64Encoded: false,
    });
  });
});
