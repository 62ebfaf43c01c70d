// GET /v1/inputs/{ns}/{pipeline}/{env} through the real receiver over node:http, against the contract of Flux
// Operator's ExternalService input provider (docs/external-service.md): GET with `Accept: application/json`, a bearer
// token or basic authentication, an answer `{"inputs": [...]}` whose inputs each have a unique string `id`, at most
// 900 KiB. A wrong or missing token is a 401 that names nothing of the pipeline.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startHttpServer, type RunningHttpServer } from '../../lib/http/node-server.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { deriveInputToken } from '../../lib/signing/hmac.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';

const PODINFO = { namespace: 'flux-system', name: 'podinfo' };
const MASTER_KEY = 'master-key-of-the-installation';
const PREVIOUS_MASTER_KEY = 'master-key-before-the-rotation';
const token = (env: string, masterKey = MASTER_KEY) => deriveInputToken(masterKey, PODINFO, env);
const PATH = (env: string) => `/v1/inputs/flux-system/podinfo/${env}`;

let store: MemoryStore;
let server: RunningHttpServer;
let logs: Record<string, unknown>[];

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

async function get(path: string, authorization?: string): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${server.url}${path}`, { headers });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

const bearer = (value: string) => `Bearer ${value}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('GET /v1/inputs/{ns}/{pipeline}/{env}', () => {
  before(async () => {
    store = new MemoryStore();
    await store.putServedInput(PODINFO, {
      env: 'prod',
      version: '6.5.0',
      previousVersion: '6.4.0',
      promotedAt: '2026-11-29T10:42:00.000Z',
      approvedBy: 'alice',
      servedSince: '2026-11-29T10:42:00.000Z',
    });
    await store.putServedInput(PODINFO, { env: 'staging', version: '6.4.0', servedSince: '2026-11-28T08:00:00.000Z' });
    const deps = (): ReceiverDeps => ({
      store,
      queue: new RecordingQueue(),
      secrets: { getSecret: () => Promise.reject(new Error('the inputs route reads no Secret')) },
      masterKeys: () => Promise.resolve({ current: MASTER_KEY, previous: PREVIOUS_MASTER_KEY }),
      logger: {
        info: (message, attributes = {}) => logs.push({ message, ...attributes }),
        warn: () => undefined,
        error: () => undefined,
      },
    });
    server = await startHttpServer((request) => handleRequest(request, deps()));
  });

  after(async () => {
    await server?.close();
  });

  beforeEach(() => {
    logs = [];
  });

  it('serves the promoted revision as one input, with a bearer token', async () => {
    const reads = store.counts.reads;
    const answer = await get(PATH('prod'), bearer(token('prod')));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(answer.text), {
      inputs: [
        {
          id: 'flux-system-podinfo-prod',
          pipeline: 'podinfo',
          environment: 'prod',
          version: '6.5.0',
          previousVersion: '6.4.0',
          promotedAt: '2026-11-29T10:42:00.000Z',
          approvedBy: 'alice',
        },
      ],
    });
    assert.equal(store.counts.reads - reads, 1, 'one store read per request');
  });

  it('serves the same with basic authentication, the token as the password', async () => {
    const answer = await get(PATH('prod'), basic('flux', token('prod')));
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.text) as { inputs: { version: string }[] }).inputs[0]?.version, '6.5.0');
  });

  it('takes a token derived from the previous master key during a rotation', async () => {
    const answer = await get(PATH('prod'), bearer(token('prod', PREVIOUS_MASTER_KEY)));
    assert.equal(answer.status, 200);
  });

  it('serves a revision the environment ran before its first promotion with empty promotion fields', async () => {
    const answer = await get(PATH('staging'), bearer(token('staging')));
    assert.deepEqual(JSON.parse(answer.text), {
      inputs: [
        {
          id: 'flux-system-podinfo-staging',
          pipeline: 'podinfo',
          environment: 'staging',
          version: '6.4.0',
          previousVersion: '',
          promotedAt: '',
          approvedBy: '',
        },
      ],
    });
  });

  it('serves no input for an environment with nothing known', async () => {
    const answer = await get(PATH('dev'), bearer(token('dev')));
    assert.deepEqual({ status: answer.status, text: answer.text }, { status: 200, text: '{"inputs":[]}' });
  });

  it("refuses a missing, wrong or other environment's token with the same 401, and reads nothing", async () => {
    const reads = store.counts.reads;
    const refused = [
      undefined,
      '',
      bearer(''),
      bearer(token('staging')),
      bearer(token('prod').toUpperCase()),
      bearer(`${token('prod')}0`),
      basic(token('prod'), 'wrong'),
      `Token ${token('prod')}`,
      basic('', '').replace('Basic ', 'Basic !'),
    ];
    for (const authorization of refused) {
      const answer = await get(PATH('prod'), authorization);
      assert.equal(answer.status, 401, String(authorization));
      assert.equal(answer.text, '{"error":"unauthorized"}');
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
      assert.ok(!answer.text.includes('podinfo') && !answer.text.includes('6.5.0'));
    }
    assert.equal(store.counts.reads, reads, 'a refused request reads nothing');
    assert.ok(logs.every((line) => line.outcome === 'bad-token'));
    assert.ok(!JSON.stringify(logs).includes(token('prod')), 'no token in the logs');
  });

  it('never answers more than the provider accepts (900 KiB): an oversized input is a 500 naming the limit', async () => {
    const answer = await get(PATH('prod'), bearer(token('prod')));
    assert.ok(Buffer.byteLength(answer.text) <= 900 * 1024);
    await store.putServedInput(PODINFO, {
      env: 'huge',
      version: 'v'.repeat(1024 * 1024),
      servedSince: '2026-11-29T10:42:00Z',
    });
    const huge = await get(PATH('huge'), bearer(token('huge')));
    assert.deepEqual(
      { status: huge.status, text: huge.text },
      {
        status: 500,
        text: '{"error":"the inputs exceed 921600 bytes"}',
      },
    );
  });

  it('answers only GET', async () => {
    const response = await fetch(`${server.url}${PATH('prod')}`, {
      method: 'POST',
      headers: { authorization: bearer(token('prod')) },
    });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET');
  });

  it('gives every environment its own id, so one provider per environment never sees two inputs alike', async () => {
    const ids = new Set<string>();
    for (const env of ['prod', 'staging']) {
      const { inputs } = JSON.parse((await get(PATH(env), bearer(token(env)))).text) as { inputs: { id: string }[] };
      for (const input of inputs) ids.add(input.id);
    }
    assert.equal(ids.size, 2);
  });
});
