// The node:http adapter: what the handler receives, the body cap, and a handler that throws.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startHttpServer } from '../../lib/http/node-server.js';
import type { RunningHttpServer } from '../../lib/http/node-server.js';
import type { HttpRequest } from '../../lib/http/types.js';

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
