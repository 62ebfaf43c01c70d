// POST /v1/config-sources/{ns}/{name} through the real receiver: node:http, the in-memory store, the local mode's
// Secrets (secrets.json in a data directory) and a queue that keeps what is sent. A Git host's push webhook is only
// a trigger: signed as the host signs, a push to the source's branch enqueues one sync; anything else changes nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ConfigSourceDocument } from '../../lib/config/schema.js';
import { startHttpServer, type RunningHttpServer } from '../../lib/http/node-server.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { writeSecrets, type StoredSecret } from '../../lib/local/data-dir.js';
import { DataDirSecretSource } from '../../lib/local/secrets.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import type { SecretSource } from '../../lib/secrets/port.js';
import { pushCredentialHeaders } from '../../lib/signing/push-signatures.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { NOT_A_PUSH_WEBHOOKS, PING_WEBHOOKS, pushWebhook, type PushWebhook } from '../fixtures/push-webhooks.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const NAMESPACE = 'flux-system';
const WEBHOOK_SECRET = 'fleet-webhook-secret-8d41';
const MAX_BODY_BYTES = 64 * 1024;

/** One source per host, each following `main` and naming a Secret of its own name. */
const SOURCES: Record<GitProviderType, { name: string; url: string; type?: GitProviderType }> = {
  github: { name: 'fleet-github', url: 'https://github.com/acme/fleet' },
  gitlab: { name: 'fleet-gitlab', url: 'https://gitlab.example.com/acme/fleet', type: 'gitlab' },
  'bitbucket-server': { name: 'fleet-bitbucket', url: 'https://bitbucket.example.com/scm/ACME/fleet.git' },
  'azure-devops': { name: 'fleet-azure', url: 'https://dev.azure.com/acme/platform/_git/fleet' },
};
const HOSTS = Object.keys(SOURCES) as GitProviderType[];
const keyOf = (name: string): ObjectKey => ({ namespace: NAMESPACE, name });

function sourceDocument(name: string, url: string, secretName: string, type?: GitProviderType): ConfigSourceDocument {
  return ConfigSourceDocument.parse({
    apiVersion: 'pipeline-controller.io/v1alpha1',
    kind: 'ConfigSource',
    metadata: { name, namespace: NAMESPACE },
    spec: { url, ...(type && { type }), branch: 'main', path: 'pipelines', secretRef: { name: secretName } },
  });
}

/** The data directory's Secrets: each source's token and webhook secret, and the broken cases. */
function secretsFile(webhookSecret = WEBHOOK_SECRET): Record<string, StoredSecret> {
  const secrets: Record<string, StoredSecret> = {};
  for (const { name } of Object.values(SOURCES)) {
    secrets[`${NAMESPACE}/${name}`] = {
      values: { token: `read-token-of-${name}`, 'webhook-secret': webhookSecret },
      purposes: ['config-source'],
    };
  }
  secrets[`${NAMESPACE}/token-only`] = { values: { token: 'read-token' }, purposes: ['config-source'] };
  secrets[`${NAMESPACE}/empty-secret`] = { values: { token: 'read-token', 'webhook-secret': '' }, purposes: [] };
  return secrets;
}

/** The data directory's Secrets, counting reads by name; `untagged` is refused as Secrets Manager refuses it. */
class ReceiverSecrets implements SecretSource {
  readonly reads: string[] = [];
  constructor(private readonly source: SecretSource) {}

  getSecret(key: ObjectKey) {
    this.reads.push(`${key.namespace}/${key.name}`);
    if (key.name === 'untagged') {
      const denied = new Error('User is not authorized to perform: secretsmanager:GetSecretValue');
      denied.name = 'AccessDeniedException';
      return Promise.reject(denied);
    }
    return this.source.getSecret(key);
  }
}

interface Answer {
  status: number;
  text: string;
}

let dataDir: string;
let store: MemoryStore;
let secrets: ReceiverSecrets;
let queue: RecordingQueue;
let server: RunningHttpServer;
let logs: string[];

async function post(path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', body, headers });
  return { status: response.status, text: await response.text() };
}

/** POST a webhook to the source of `host` (or `name`), signed as that host signs with `secret` (null: unsigned). */
function deliver(
  host: GitProviderType,
  webhook: PushWebhook,
  secret: string | null = WEBHOOK_SECRET,
  name = SOURCES[host].name,
): Promise<Answer> {
  const credential = secret === null ? {} : pushCredentialHeaders(host, webhook.body, secret);
  return post(`/v1/config-sources/${NAMESPACE}/${name}`, webhook.body, {
    'content-type': 'application/json',
    ...webhook.headers,
    ...credential,
  });
}

const SYNC = (name: string) => ({ message: { type: 'sync-config-source', source: keyOf(name), cause: 'webhook' } });
const ACCEPTED = '{"status":"accepted"}';
const IGNORED = '{"status":"ignored","reason":"not a push to the ConfigSource\'s branch"}';
const PONG = '{"status":"ok"}';
const UNAUTHORIZED = '{"error":"unauthorized"}';
const NOT_FOUND = '{"error":"not found"}';

/** Store and Secret reads from here on. */
function readCounter(): () => { store: number; secrets: string[] } {
  const storeBase = store.counts.reads;
  const secretsBase = secrets.reads.length;
  return () => ({ store: store.counts.reads - storeBase, secrets: secrets.reads.slice(secretsBase) });
}

/** The log lines of requests to this route, parsed. */
function routeLogs(): Record<string, unknown>[] {
  return logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.route === 'config-sources');
}

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe('POST /v1/config-sources/{ns}/{name}', () => {
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pipeline-controller-config-source-route-'));
    store = new MemoryStore();
    for (const { name, url, type } of Object.values(SOURCES)) {
      await store.applyConfigSource(sourceDocument(name, url, name, type), NOW);
    }
    const github = SOURCES.github.url;
    await store.applyConfigSource(sourceDocument('no-webhook-secret', github, 'token-only'), NOW);
    await store.applyConfigSource(sourceDocument('empty-webhook-secret', github, 'empty-secret'), NOW);
    await store.applyConfigSource(sourceDocument('missing-secret', github, 'no-such-secret'), NOW);
    await store.applyConfigSource(sourceDocument('denied-secret', github, 'untagged'), NOW);
    secrets = new ReceiverSecrets(new DataDirSecretSource(dataDir));
    const log = (message: string, attributes: Record<string, unknown> = {}) =>
      logs.push(JSON.stringify({ message, ...attributes }));
    const deps = (): ReceiverDeps => ({
      store,
      queue,
      secrets,
      masterKeys: () => Promise.resolve({ current: 'master-key' }),
      logger: { info: log, warn: log, error: log },
      maxBodyBytes: MAX_BODY_BYTES,
      now: () => NOW,
    });
    server = await startHttpServer((request) => handleRequest(request, deps()), { maxBodyBytes: MAX_BODY_BYTES });
  });

  after(async () => {
    await server?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await writeSecrets(dataDir, secretsFile());
    queue = new RecordingQueue();
    logs = [];
  });

  for (const host of HOSTS) {
    describe(host, () => {
      it('a signed push to the branch enqueues one sync of the source, and nothing of the payload', async () => {
        const answer = await deliver(host, pushWebhook(host, 'refs/heads/main'));
        assert.deepEqual(answer, { status: 202, text: ACCEPTED });
        assert.deepEqual(queue.sent, [SYNC(SOURCES[host].name)]);
        assert.equal(routeLogs()[0]?.outcome, 'enqueued');
      });

      it('a signed push to another branch or of a tag, or another event, is answered 200 and enqueues nothing', async () => {
        for (const webhook of [
          pushWebhook(host, 'refs/heads/feature/podinfo'),
          pushWebhook(host, 'refs/tags/v1.0.0'),
          NOT_A_PUSH_WEBHOOKS[host],
        ]) {
          assert.deepEqual(await deliver(host, webhook), { status: 200, text: IGNORED });
        }
        assert.deepEqual(queue.sent, []);
        // A tag push is another branch, or an event of its own where the host has one (GitLab's Tag Push Hook).
        const outcomes = routeLogs().map((line) => line.outcome);
        assert.equal(outcomes[0], 'other-branch');
        assert.ok(outcomes[1] === 'other-branch' || outcomes[1] === 'not-a-push', String(outcomes[1]));
        assert.equal(outcomes[2], 'not-a-push');
      });

      it('a push signed with another secret, unsigned, or signed as another host signs is a 401', async () => {
        const push = pushWebhook(host, 'refs/heads/main');
        const otherHost = HOSTS.find((other) => other !== host);
        const asOtherHost = pushCredentialHeaders(otherHost ?? 'github', push.body, WEBHOOK_SECRET);
        const answers = [
          await deliver(host, push, 'not-the-secret'),
          await deliver(host, push, `${WEBHOOK_SECRET}x`),
          await deliver(host, push, null),
          await post(`/v1/config-sources/${NAMESPACE}/${SOURCES[host].name}`, push.body, {
            ...push.headers,
            ...asOtherHost,
          }),
        ];
        for (const answer of answers) assert.deepEqual(answer, { status: 401, text: UNAUTHORIZED });
        assert.deepEqual(queue.sent, []);
      });
    });
  }

  it("GitHub's ping and Bitbucket Server's test connection are answered 200 once signed, and enqueue nothing", async () => {
    assert.deepEqual(await deliver('github', PING_WEBHOOKS.github), { status: 200, text: PONG });
    assert.deepEqual(await deliver('bitbucket-server', PING_WEBHOOKS['bitbucket-server']), { status: 200, text: PONG });
    assert.deepEqual(await deliver('github', PING_WEBHOOKS.github, 'not-the-secret'), {
      status: 401,
      text: UNAUTHORIZED,
    });
    assert.deepEqual(queue.sent, []);
  });

  it('a push whose branch cannot be told is a trigger all the same (the sync reads the head itself)', async () => {
    const unreadable = { headers: { 'x-github-event': 'push' }, body: '{"ref":{"name":"main"},"after":null}' };
    assert.deepEqual(await deliver('github', unreadable), { status: 202, text: ACCEPTED });
    assert.deepEqual(await deliver('gitlab', { headers: {}, body: 'not json' }), { status: 202, text: ACCEPTED });
    assert.deepEqual(queue.sent, [SYNC(SOURCES.github.name), SYNC(SOURCES.gitlab.name)]);
  });

  it('enqueues a trigger per webhook, ten for one commit: the sync, not the receiver, applies a commit once', async () => {
    const push = pushWebhook('github', 'refs/heads/main');
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver('github', push)));
    assert.ok(answers.every((answer) => answer.status === 202));
    assert.deepEqual(
      queue.sent,
      Array.from({ length: 10 }, () => SYNC(SOURCES.github.name)),
    );
  });

  it('reads nothing for a request without anything shaped like a credential', async () => {
    const reads = readCounter();
    const push = pushWebhook('github', 'refs/heads/main');
    const uncredentialed: Record<string, string>[] = [
      {},
      { 'x-hub-signature-256': 'sha256=abc' },
      { 'x-hub-signature': `sha1=${'0'.repeat(40)}` },
      { 'x-gitlab-token': '' },
      { authorization: 'Bearer token' },
      { 'x-signature': `sha256=${'0'.repeat(64)}` },
    ];
    for (const headers of uncredentialed) {
      const answer = await post(`/v1/config-sources/${NAMESPACE}/${SOURCES.github.name}`, push.body, headers);
      assert.deepEqual(answer, { status: 401, text: UNAUTHORIZED });
    }
    assert.deepEqual(reads(), { store: 0, secrets: [] });
    assert.deepEqual(queue.sent, []);
  });

  it('a bad signature reads the source and its Secret, nothing else, and enqueues nothing', async () => {
    const reads = readCounter();
    const answer = await deliver('github', pushWebhook('github', 'refs/heads/main'), 'guess');
    assert.deepEqual(answer, { status: 401, text: UNAUTHORIZED });
    assert.deepEqual(reads(), { store: 1, secrets: [`${NAMESPACE}/${SOURCES.github.name}`] });
    assert.deepEqual(queue.sent, []);
    assert.deepEqual(routeLogs()[0]?.outcome, 'bad-signature');
  });

  it('an unknown source is a 404 that reads no Secret; a name that cannot be one reads nothing', async () => {
    const push = pushWebhook('github', 'refs/heads/main');
    let reads = readCounter();
    assert.deepEqual(await deliver('github', push, WEBHOOK_SECRET, 'no-such-source'), {
      status: 404,
      text: NOT_FOUND,
    });
    assert.deepEqual(reads(), { store: 1, secrets: [] });
    reads = readCounter();
    assert.deepEqual(await deliver('github', push, WEBHOOK_SECRET, 'Not_A_Name'), { status: 404, text: NOT_FOUND });
    assert.deepEqual(reads(), { store: 0, secrets: [] });
    assert.deepEqual(queue.sent, []);
  });

  it('a source whose Secret is missing, unreadable or holds no webhook-secret takes no webhook: the same 401', async () => {
    const push = pushWebhook('github', 'refs/heads/main');
    const refusals: [string, string][] = [
      ['no-webhook-secret', 'no-webhook-secret'],
      ['empty-webhook-secret', 'no-webhook-secret'],
      ['missing-secret', 'no-webhook-secret'],
      ['denied-secret', 'webhook-secret-unreadable'],
    ];
    for (const [name] of refusals) {
      // Signed with the empty string too: an empty webhook-secret must not make every empty-key signature valid.
      for (const secret of [WEBHOOK_SECRET, '']) {
        assert.deepEqual(await deliver('github', push, secret, name), { status: 401, text: UNAUTHORIZED }, name);
      }
    }
    assert.deepEqual(queue.sent, []);
    const outcomes = routeLogs().map((line) => [line.configSource, line.outcome]);
    assert.deepEqual(
      outcomes,
      refusals.flatMap(([name, outcome]) => [
        [`${NAMESPACE}/${name}`, outcome],
        [`${NAMESPACE}/${name}`, outcome],
      ]),
    );
  });

  it('a rotated webhook-secret is used from the next request on; the old one is refused', async () => {
    const push = pushWebhook('gitlab', 'refs/heads/main');
    assert.equal((await deliver('gitlab', push)).status, 202);
    await writeSecrets(dataDir, secretsFile('rotated-webhook-secret'));
    assert.equal((await deliver('gitlab', push)).status, 401);
    assert.equal((await deliver('gitlab', push, 'rotated-webhook-secret')).status, 202);
    assert.deepEqual(queue.sent, [SYNC(SOURCES.gitlab.name), SYNC(SOURCES.gitlab.name)]);
  });

  it("a body over the receiver's limit is a 413 that reads nothing", async () => {
    const reads = readCounter();
    const push = pushWebhook('github', 'refs/heads/main');
    const body = JSON.stringify({ ...(JSON.parse(push.body) as object), padding: 'x'.repeat(MAX_BODY_BYTES) });
    const answer = await deliver('github', { ...push, body });
    assert.equal(answer.status, 413);
    assert.deepEqual(reads(), { store: 0, secrets: [] });
    assert.deepEqual(queue.sent, []);
  });

  it('answers 405 to another method, and serves the path with one trailing slash', async () => {
    const get = await fetch(`${server.url}/v1/config-sources/${NAMESPACE}/${SOURCES.github.name}`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const push = pushWebhook('github', 'refs/heads/main');
    const answer = await post(`/v1/config-sources/${NAMESPACE}/${SOURCES.github.name}/`, push.body, {
      ...push.headers,
      ...pushCredentialHeaders('github', push.body, WEBHOOK_SECRET),
    });
    assert.deepEqual(answer, { status: 202, text: ACCEPTED });
  });

  it('never logs or answers the webhook secret, the read token or the signature', async () => {
    const push = pushWebhook('gitlab', 'refs/heads/main');
    await deliver('gitlab', push);
    await deliver('gitlab', push, 'a-guessed-secret');
    await deliver('azure-devops', pushWebhook('azure-devops', 'refs/heads/main'));
    const written = logs.join('\n');
    for (const value of [WEBHOOK_SECRET, 'a-guessed-secret', `read-token-of-${SOURCES.gitlab.name}`, 'Basic ']) {
      assert.ok(!written.includes(value), `the log holds ${value}`);
    }
  });
});
