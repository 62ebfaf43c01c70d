// The node:http adapter: what the handler receives, the body cap, a handler that throws, and what is logged of the
// requests the adapter answers itself (413) or that the client gives up on.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startHttpServer } from '../../lib/http/node-server.js';
import type { RunningHttpServer } from '../../lib/http/node-server.js';
import type { HttpRequest } from '../../lib/http/types.js';
import { waitFor } from '../../lib/testing/wait-for.js';

describe('startHttpServer', () => {
  let server: RunningHttpServer;
  let seen: HttpRequest[] = [];

  before(async () => {
    server = await startHttpServer(
      (request) => {
        seen.push(request);
        if (request.path === '/throw') return Promise.reject(new Error('boom'));
        return Promise.resolve({ statusCode: 202, headers: { 'x-test': 'yes' }, body: '{"status":"accepted"}' });
      },
      { maxBodyBytes: 1024 },
    );
  });

  after(() => server.close());

  it('hands the handler the method, the encoded path without query, lower-case headers and the raw bytes', async () => {
    seen = [];
    const body = Buffer.from([0x7b, 0xff, 0x00, 0x7d]);
    const response = await fetch(`${server.url}/approval/a/b/c/1.0.0%2Bx?q=1`, {
      method: 'POST',
      body,
      headers: { 'X-Signature': 'sha256=00' },
    });
    assert.equal(response.status, 202);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('x-test'), 'yes');
    assert.equal(await response.text(), '{"status":"accepted"}');
    const [request] = seen;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/approval/a/b/c/1.0.0%2Bx');
    assert.equal(request?.headers['x-signature'], 'sha256=00');
    assert.deepEqual(request?.body, body);
  });

  it('answers 413 without calling the handler, by Content-Length or while a chunked body streams in', async () => {
    seen = [];
    const declared = await fetch(`${server.url}/x`, { method: 'POST', body: Buffer.alloc(1025) });
    assert.equal(declared.status, 413);
    assert.equal(await declared.text(), '{"error":"request body too large"}');

    // Chunked (no Content-Length), 64 KiB in 1 KiB pieces: the answer comes once the cap is passed.
    const chunked = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${server.url}/x`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      for (let i = 0; i < 64; i++) req.write(Buffer.alloc(1024));
      req.end();
    });
    assert.equal(chunked, 413);

    const exact = await fetch(`${server.url}/x`, { method: 'POST', body: Buffer.alloc(1024) });
    assert.equal(exact.status, 202);
    assert.equal(seen.length, 1);
  });

  it('answers 500 with a fixed body when the handler throws', async () => {
    const response = await fetch(`${server.url}/throw`, { method: 'POST', body: 'x' });
    assert.equal(response.status, 500);
    assert.equal(await response.text(), '{"error":"internal error"}');
  });
});

describe('startHttpServer with the default cap (3 MiB, as notification-controller forwards)', () => {
  const CAP = 3 * 1024 * 1024;
  let server: RunningHttpServer;
  const bodies: number[] = [];
  const tooLarge: Record<string, unknown>[] = [];

  before(async () => {
    server = await startHttpServer(
      (request) => {
        bodies.push(request.body.length);
        return Promise.resolve({ statusCode: 202, body: '{"status":"accepted"}' });
      },
      { logger: { debug() {}, warn: (_message, attributes = {}) => tooLarge.push(attributes) } },
    );
  });

  after(() => server.close());

  /** POSTs `total` bytes chunked (no Content-Length), in 16 KiB pieces, and resolves with the status. */
  function postChunked(total: number): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${server.url}/v1/events/flux-system/fleet-eu`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      for (let sent = 0; sent < total; sent += 16 * 1024) req.write(Buffer.alloc(Math.min(16 * 1024, total - sent)));
      req.end();
    });
  }

  it('hands a 564 KB body and one of exactly 3 MiB to the handler', async () => {
    bodies.length = 0;
    const changeSet = await fetch(`${server.url}/v1/events/flux-system/fleet-eu`, {
      method: 'POST',
      body: Buffer.alloc(564_000, 'c'),
    });
    assert.equal(changeSet.status, 202);
    assert.equal(await postChunked(CAP), 202);
    assert.deepEqual(bodies, [564_000, CAP]);
  });

  it('answers 413 to 3 MiB + 1, by Content-Length without reading the body, or chunked once past the cap', async () => {
    bodies.length = 0;
    tooLarge.length = 0;
    const declared = await fetch(`${server.url}/v1/events/flux-system/fleet-eu`, {
      method: 'POST',
      body: Buffer.alloc(CAP + 1),
    });
    assert.equal(declared.status, 413);
    await declared.arrayBuffer();
    // 5 MiB sent, but the server stops keeping bytes as soon as it is past the cap.
    assert.equal(await postChunked(5 * 1024 * 1024), 413);
    assert.deepEqual(bodies, []);
    assert.deepEqual(
      tooLarge.map(({ declaredBytes, receivedBytes }) => ({ declaredBytes, receivedBytes: receivedBytes === 0 })),
      [
        { declaredBytes: CAP + 1, receivedBytes: true },
        { declaredBytes: undefined, receivedBytes: false },
      ],
    );
    const received = tooLarge[1]?.receivedBytes as number;
    assert.ok(received > CAP && received <= CAP + 64 * 1024, String(received));
  });
});

describe('what startHttpServer logs of requests the handler never sees', () => {
  interface Line {
    level: string;
    message: string;
    attributes: Record<string, unknown>;
  }
  let server: RunningHttpServer;
  const lines: Line[] = [];
  const errors: unknown[] = [];
  let handled = 0;

  before(async () => {
    const record =
      (level: string) =>
      (message: string, attributes: Record<string, unknown> = {}) =>
        lines.push({ level, message, attributes });
    server = await startHttpServer(
      () => {
        handled++;
        return Promise.resolve({ statusCode: 202, body: '{"status":"accepted"}' });
      },
      {
        maxBodyBytes: 1024,
        onError: (error) => errors.push(error),
        logger: { debug: record('debug'), warn: record('warn') },
      },
    );
  });

  after(() => server.close());

  it('a body the client abandons half-way is logged at debug, never as an error, and not handled', async () => {
    lines.length = 0;
    const req = httpRequest(`${server.url}/v1/events/flux-system/fleet-eu`, {
      method: 'POST',
      headers: { 'content-length': '1000' },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(100, 'x'));
    // Once the server has the first bytes, the client goes away.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = new Promise((resolve) => req.on('close', resolve));
    req.destroy();
    await closed;
    // The server logs once it has seen the connection go: waited for, not guessed (a busy machine takes longer).
    await waitFor('the abandoned body logged', () => lines.length > 0);
    assert.deepEqual(errors, [], 'not an error of ours');
    assert.equal(handled, 0);
    assert.deepEqual(lines, [
      {
        level: 'debug',
        message: 'request body abandoned by the client',
        attributes: { route: 'events', method: 'POST', declaredBytes: 1000, receivedBytes: 100 },
      },
    ]);
  });

  it('a 413 is a warning with the route and the sizes, by Content-Length or while a chunked body streams in', async () => {
    lines.length = 0;
    const declared = await fetch(`${server.url}/promotion/flux-system/podinfo/dev`, {
      method: 'POST',
      body: Buffer.alloc(5000, 'z'),
    });
    assert.equal(declared.status, 413);
    await declared.arrayBuffer();
    const chunked = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${server.url}/nowhere`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      for (let i = 0; i < 4; i++) req.write(Buffer.alloc(512, 'z'));
      req.end();
    });
    assert.equal(chunked, 413);
    assert.equal(handled, 0);
    const rejected = { level: 'warn', message: 'request rejected' };
    const [first, second] = lines;
    assert.equal(lines.length, 2);
    assert.deepEqual(first, {
      ...rejected,
      attributes: {
        route: 'promotion',
        method: 'POST',
        status: 413,
        outcome: 'body-too-large',
        declaredBytes: 5000,
        receivedBytes: 0,
      },
    });
    assert.deepEqual(
      { ...second, attributes: { ...second?.attributes, receivedBytes: undefined } },
      {
        ...rejected,
        attributes: {
          route: 'unknown',
          method: 'POST',
          status: 413,
          outcome: 'body-too-large',
          receivedBytes: undefined,
        },
      },
    );
    // The chunked body is cut as soon as it passes the cap: what arrived is over 1024 bytes, at most all of it.
    const received = second?.attributes.receivedBytes as number;
    assert.ok(received > 1024 && received <= 2048, String(received));
    assert.ok(!JSON.stringify(lines).includes('zzzz'), 'never the body');
  });
});
