// What a forged call to Weave's `/promotion` and `/approval` costs the receiver. Their key is per pipeline (the
// `hmac-key` of the Secret the Pipeline names), so it has to be read before a signature can be checked; a flood of
// forged calls must not become a flood of store and Secret reads. A header that cannot be a signature (wrong
// algorithm, wrong length, not hex, missing) is refused before anything is read; a well-formed one is checked
// against the key read within the last few seconds, and only a call that verifies under it reads again (so a
// correctly signed call always sees the pipeline and key as they are now). Reads are counted with the in-memory
// store (lib/testing/memory-store.ts) and a counting Secret source.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { WebhookKeyCache } from '../../lib/http/webhook-key-cache.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { signatureHeader } from '../../lib/signing/hmac.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { EVENT_A_HELM_UPGRADE } from '../fixtures/flux-events.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const WEBHOOK_SECRET: ObjectKey = { namespace: 'flux-system', name: 'podinfo-webhook' };
const KEY = 'podinfo-webhook-key-9c4e1a7b';
const ROTATED_KEY = 'podinfo-webhook-key-rotated-3f8d';
const PODINFO: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };
/** What Flux's helm-controller sends when podinfo in dev (namespace `apps`) is upgraded. */
const BODY = EVENT_A_HELM_UPGRADE;
const FLOOD = 200;

function pipelineDocument(name: string, secretRef?: string): PipelineDocument {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'fleet-eu' } }] },
        {
          name: 'prod',
          targets: [{ namespace: 'prod', clusterRef: { kind: 'GitopsCluster', name: 'fleet-us' } }],
          promotion: { manual: true, strategy: { notification: {} } },
        },
      ],
      promotion: { strategy: { notification: {}, ...(secretRef && { secretRef: { name: secretRef } }) } },
    },
  };
}

class CountingSecretSource extends StaticSecretSource {
  reads = 0;

  override getSecret(key: ObjectKey) {
    this.reads++;
    return super.getSecret(key);
  }
}

interface World {
  store: MemoryStore;
  secrets: CountingSecretSource;
  sent: QueueMessage[];
  logs: string[];
  deps: ReceiverDeps;
  /** Store and Secret reads so far. */
  reads(): { store: number; secrets: number };
}

async function world(webhookKeys?: WebhookKeyCache): Promise<World> {
  const store = new MemoryStore();
  for (const document of [pipelineDocument('podinfo', WEBHOOK_SECRET.name), pipelineDocument('keyless', 'empty')]) {
    await store.applyPipeline(document, resolvePipeline(document), NOW);
  }
  const secrets = new CountingSecretSource([{ key: WEBHOOK_SECRET, values: { 'hmac-key': KEY } }]);
  const sent: QueueMessage[] = [];
  const logs: string[] = [];
  const log = (message: string, attributes: Record<string, unknown> = {}) =>
    logs.push(JSON.stringify({ message, ...attributes }));
  const deps: ReceiverDeps = {
    store,
    queue: {
      send: (message) => Promise.resolve(void sent.push(message)),
      sendBatch: (messages) => Promise.resolve(void sent.push(...messages.map(({ message }) => message))),
    },
    secrets,
    masterKeys: () => Promise.resolve({ current: 'master-key' }),
    logger: { info: log, warn: log, error: log },
    now: () => NOW,
    ...(webhookKeys && { webhookKeys }),
  };
  const base = store.counts.reads;
  return {
    store,
    secrets,
    sent,
    logs,
    deps,
    reads: () => ({ store: store.counts.reads - base, secrets: secrets.reads }),
  };
}

const promotion = (signature: string | undefined, name = 'podinfo', body = BODY) => ({
  method: 'POST',
  path: `/promotion/flux-system/${name}/dev`,
  headers: signature === undefined ? {} : { 'x-signature': signature },
  body: Buffer.from(body),
});

const approval = (signature: string | undefined, revision = '6.9.2') => ({
  method: 'POST',
  path: `/approval/flux-system/podinfo/prod/${revision}`,
  headers: signature === undefined ? {} : { 'x-signature': signature },
  body: Buffer.alloc(0),
});

describe('a forged /promotion or /approval call is cheap', () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  it(`a flood of ${FLOOD} well-formed, wrongly signed /promotion calls for one pipeline costs about one read`, async () => {
    for (let i = 0; i < FLOOD; i++) {
      const forged = signatureHeader(BODY, `guess-${i}`, i % 2 === 0 ? 'sha256' : 'sha512');
      assert.equal((await handleRequest(promotion(forged), w.deps)).statusCode, 401);
    }
    // One read of the pipeline and one of its Secret per few seconds (two if the flood straddles the expiry).
    const { store, secrets } = w.reads();
    assert.ok(store >= 1 && store <= 2, `${store} store reads for ${FLOOD} forged calls`);
    assert.ok(secrets >= 1 && secrets <= 2, `${secrets} Secret reads for ${FLOOD} forged calls`);
    assert.deepEqual(w.sent, []);
    assert.ok(!w.logs.join('\n').includes(KEY), 'the key is never logged');
  });

  it(`so does a flood of ${FLOOD} forged /approval calls, and of calls for a pipeline that has no key`, async () => {
    for (let i = 0; i < FLOOD; i++) {
      assert.equal((await handleRequest(approval(signatureHeader('', `guess-${i}`)), w.deps)).statusCode, 401);
      const keyless = promotion(signatureHeader(BODY, `guess-${i}`), 'keyless');
      assert.equal((await handleRequest(keyless, w.deps)).statusCode, 401);
      const unknown = promotion(signatureHeader(BODY, `guess-${i}`), 'nope');
      assert.equal((await handleRequest(unknown, w.deps)).statusCode, 404);
    }
    const { store, secrets } = w.reads();
    assert.ok(store >= 3 && store <= 6, `${store} store reads for ${3 * FLOOD} forged calls`);
    assert.ok(secrets >= 2 && secrets <= 4, `${secrets} Secret reads for ${3 * FLOOD} forged calls`);
    assert.equal((await w.store.getApproval(PODINFO, 'prod'))?.approvedAt, undefined);
  });

  it(`a burst of ${FLOOD} forged calls at once shares one read`, async () => {
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) => handleRequest(promotion(signatureHeader(BODY, `guess-${i}`)), w.deps)),
    );
    assert.ok(answers.every((answer) => answer.statusCode === 401));
    assert.deepEqual(w.reads(), { store: 1, secrets: 1 });
    // A correctly signed call in the middle of a burst is still accepted.
    const mixed = await Promise.all([
      handleRequest(promotion(signatureHeader(BODY, 'guess')), w.deps),
      handleRequest(promotion(signatureHeader(BODY, KEY)), w.deps),
      handleRequest(promotion(signatureHeader(BODY, 'guess')), w.deps),
    ]);
    assert.deepEqual(
      mixed.map((answer) => answer.statusCode),
      [401, 202, 401],
    );
  });

  it('a header that cannot be a signature costs no read at all, whatever the pipeline', async () => {
    const hex = (bytes: number) => 'ab'.repeat(bytes);
    const malformed = [
      undefined,
      '',
      ' ',
      hex(32),
      `sha256=${hex(31)}`,
      `sha256=${hex(32)}0`,
      `sha256=${hex(31)}zz`,
      `sha512=${hex(32)}`,
      `sha224=${hex(32)}`,
      `md5=${hex(16)}`,
      `sha1=${hex(20)}`,
      `SHA256=${hex(32)}`,
      `sha256=${hex(32)}, sha256=${hex(32)}`,
      `sha256:${hex(32)}`,
      'sha256=',
    ];
    for (const name of ['podinfo', 'keyless', 'nope', 'Not_A_Name']) {
      for (const signature of malformed) {
        const answers = [
          await handleRequest(promotion(signature, name), w.deps),
          await handleRequest({ ...approval(signature), path: `/approval/flux-system/${name}/prod/6.9.2` }, w.deps),
        ];
        for (const answer of answers) assert.equal(answer.statusCode, 401, `${name} ${signature}`);
      }
    }
    assert.deepEqual(w.reads(), { store: 0, secrets: 0 });
    assert.deepEqual(w.sent, []);
  });

  it('correctly signed calls still work, during a flood and after it, and each reads afresh', async () => {
    for (let i = 0; i < 20; i++) {
      await handleRequest(promotion(signatureHeader(BODY, `guess-${i}`)), w.deps);
      const signed = await handleRequest(promotion(signatureHeader(BODY, KEY, 'sha384')), w.deps);
      assert.equal(signed.statusCode, 202);
    }
    assert.equal(w.sent.length, 20);
    assert.deepEqual(w.sent[0], {
      type: 'check-pipeline',
      pipeline: PODINFO,
      env: 'dev',
      cause: 'promotion-webhook',
      readTargets: true,
    });
    assert.equal(w.reads().store, 20 + 1, 'each signed call read the pipeline; the forged ones once');

    assert.equal(await w.store.requestApproval(PODINFO, 'prod', '6.9.2', NOW), 'requested');
    assert.equal((await handleRequest(approval(signatureHeader('', KEY)), w.deps)).statusCode, 202);
    assert.equal(
      (await w.store.getApproval(PODINFO, 'prod'))?.approvedBy,
      'hmac-key of Secret flux-system/podinfo-webhook',
    );
  });
});

describe('what was read is forgotten after a few seconds', () => {
  const TTL_MS = 5_000;
  let clock = 0;
  const cache = () => new WebhookKeyCache({ ttlMs: TTL_MS, clock: () => clock });

  it('a rotated key: the old one stops working at once, the new one works once the TTL has passed', async () => {
    clock = 0;
    const w = await world(cache());
    // A forged call first, so that the old key is what was read last.
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, 'guess')), w.deps)).statusCode, 401);
    w.secrets.set(WEBHOOK_SECRET, { 'hmac-key': ROTATED_KEY });

    clock = 1_000;
    // The old key verifies under what was read, so the receiver reads again, and finds it rotated.
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY)), w.deps)).statusCode, 401);
    clock = 2_000;
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, ROTATED_KEY)), w.deps)).statusCode, 202);
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY)), w.deps)).statusCode, 401);
    assert.equal(w.sent.length, 1);
  });

  it('a rotated key signed before anyone re-read it is refused until the TTL has passed, then accepted', async () => {
    clock = 0;
    const w = await world(cache());
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, 'guess')), w.deps)).statusCode, 401);
    w.secrets.set(WEBHOOK_SECRET, { 'hmac-key': ROTATED_KEY });
    const readsBefore = w.reads();

    clock = TTL_MS - 1;
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, ROTATED_KEY)), w.deps)).statusCode, 401);
    assert.deepEqual(w.reads(), readsBefore, 'decided from what was read');
    clock = TTL_MS;
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, ROTATED_KEY)), w.deps)).statusCode, 202);
    assert.deepEqual(w.reads(), { store: readsBefore.store + 1, secrets: readsBefore.secrets + 1 });
  });

  it('a key or a pipeline that was missing is found once the TTL has passed', async () => {
    clock = 0;
    const w = await world(cache());
    const late = pipelineDocument('late', WEBHOOK_SECRET.name);
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'late'), w.deps)).statusCode, 404);
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'keyless'), w.deps)).statusCode, 401);
    await w.store.applyPipeline(late, resolvePipeline(late), NOW);
    w.secrets.set({ namespace: 'flux-system', name: 'empty' }, { 'hmac-key': KEY });

    clock = TTL_MS - 1;
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'late'), w.deps)).statusCode, 404);
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'keyless'), w.deps)).statusCode, 401);
    clock = TTL_MS;
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'late'), w.deps)).statusCode, 202);
    assert.equal((await handleRequest(promotion(signatureHeader(BODY, KEY), 'keyless'), w.deps)).statusCode, 202);
  });

  it('holds a bounded number of pipelines, the oldest read forgotten first', async () => {
    clock = 0;
    const bounded = new WebhookKeyCache({ ttlMs: TTL_MS, maxEntries: 3, clock: () => clock });
    const w = await world(bounded);
    for (let i = 0; i < 50; i++) {
      const name = `unknown-${i}`;
      assert.equal((await handleRequest(promotion(signatureHeader(BODY, 'guess'), name), w.deps)).statusCode, 404);
      assert.ok(bounded.size <= 3);
    }
    assert.equal(bounded.size, 3);
    const reads = w.reads().store;
    // The three newest are still known; the first was forgotten and is read again.
    await handleRequest(promotion(signatureHeader(BODY, 'guess'), 'unknown-49'), w.deps);
    assert.equal(w.reads().store, reads);
    await handleRequest(promotion(signatureHeader(BODY, 'guess'), 'unknown-0'), w.deps);
    assert.equal(w.reads().store, reads + 1);
  });
});
