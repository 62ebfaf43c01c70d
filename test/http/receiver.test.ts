// The receiver end to end: real HTTP (startHttpServer), a real store (dynalite), an embedded queue.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { GitopsClusterDocument, PipelineDocument } from '../../lib/config/schema.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import type { HmacAlgorithm } from '../../lib/signing/hmac.js';
import { startHttpServer } from '../../lib/http/node-server.js';
import type { RunningHttpServer } from '../../lib/http/node-server.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { ApprovalPolicy } from '../../lib/pipeline/environment-policies.js';
import { decodeMessage, EmbeddedQueue } from '../../lib/queue/index.js';
import type { QueueMessage } from '../../lib/queue/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { createDynamoStore, createReceiverStore } from '../../lib/store/index.js';
import type { ReceiverStore, Store } from '../../lib/store/port.js';
import { startDynalite } from '../support/dynalite.js';
import type { LocalDynamo } from '../support/dynalite.js';
import {
  EVENT_A_HELM_UPGRADE,
  EVENT_C_KUSTOMIZATION_SUCCEEDED,
  EVENT_D_HELM_UPGRADE_FAILED,
} from '../fixtures/flux-events.js';

const MASTER_KEYS = { current: 'current-master-key-4d1f9a', previous: 'previous-master-key-8c2e7b' };
const WEAVE_KEY = 'weave-hmac-key-5b7e2c';
const NOW = new Date('2025-10-01T12:00:00Z');

const FLEET_EU: ObjectKey = { namespace: 'flux-system', name: 'fleet-eu' };
const FLEET_US: ObjectKey = { namespace: 'flux-system', name: 'fleet-us' };
const PODINFO: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };

/** The key a leaf cluster's Flux Secret holds, from the current master key unless told otherwise. */
const clusterKey = (cluster: ObjectKey, master = MASTER_KEYS.current) => deriveClusterKey(master, cluster);

function clusterDocument(name: string): GitopsClusterDocument {
  return {
    apiVersion: 'gitops.weave.works/v1alpha1',
    kind: 'GitopsCluster',
    metadata: { name, namespace: 'flux-system' },
    spec: { secretRef: { name: `${name}-kubeconfig` } },
  };
}

function pipelineDocument(
  name: string,
  secretRef?: string,
  approval?: ApprovalPolicy,
  appRef: PipelineDocument['spec']['appRef'] = {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    name: 'podinfo',
  },
): PipelineDocument {
  const target = (namespace: string, cluster: string) => ({
    namespace,
    clusterRef: { kind: 'GitopsCluster' as const, name: cluster },
  });
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      appRef,
      environments: [
        { name: 'dev', targets: [target('apps', 'fleet-eu')] },
        { name: 'staging', targets: [target('staging', 'fleet-eu')] },
        {
          name: 'prod',
          targets: [target('prod', 'fleet-us')],
          promotion: { manual: true, strategy: { notification: {} } },
          ...(approval && { approval }),
        },
      ],
      promotion: { strategy: { notification: {}, ...(secretRef && { secretRef: { name: secretRef } }) } },
    },
  };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  attributes: Record<string, unknown>;
}

let dynamo: LocalDynamo;
let store: Store;
/** What the receiver Lambda builds on the same table: only the reads of its routes and an approval's writes. */
let receiverStore: ReceiverStore;
let queue: EmbeddedQueue;
let server: RunningHttpServer;
const logs: LogLine[] = [];
/** Every answer of this file, checked at the end for fixed bodies. */
const answers: Answer[] = [];

/** Like Secrets Manager when the receiver's role may not read a Secret (it is not tagged for webhook use). */
class DenyingSecretSource extends StaticSecretSource {
  override getSecret(key: { namespace: string; name: string }) {
    if (key.name === 'untagged-webhook') {
      const denied = new Error('User is not authorized to perform: secretsmanager:GetSecretValue');
      denied.name = 'AccessDeniedException';
      return Promise.reject(denied);
    }
    return super.getSecret(key);
  }
}

function deps(): ReceiverDeps {
  return {
    store: receiverStore,
    queue,
    secrets: new DenyingSecretSource([
      { key: { namespace: 'flux-system', name: 'podinfo-webhook' }, values: { 'hmac-key': WEAVE_KEY } },
      { key: { namespace: 'flux-system', name: 'empty-webhook' }, values: { 'hmac-key': '' } },
    ]),
    masterKeys: () => Promise.resolve(MASTER_KEYS),
    logger: {
      info: (message, attributes = {}) => logs.push({ level: 'info', message, attributes }),
      warn: (message, attributes = {}) => logs.push({ level: 'warn', message, attributes }),
      error: (message, attributes = {}) => logs.push({ level: 'error', message, attributes }),
    },
    now: () => NOW,
  };
}

async function request(
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, { method, body, headers });
  const answer = { status: response.status, headers: response.headers, text: await response.text() };
  answers.push(answer);
  return answer;
}

/** POST a body to the events route of `cluster`, signed with `key` (none: unsigned). */
function postEvent(cluster: ObjectKey, body: string | Buffer, key?: string, algorithm: HmacAlgorithm = 'sha256') {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== undefined) headers['x-signature'] = signatureHeader(body, key, algorithm);
  return request('POST', `/v1/events/${cluster.namespace}/${cluster.name}`, body, headers);
}

function postWeave(path: string, body: string, signed: string | undefined, algorithm: HmacAlgorithm = 'sha256') {
  const headers: Record<string, string> = {};
  if (signed !== undefined) headers['x-signature'] = signatureHeader(signed, WEAVE_KEY, algorithm);
  return request('POST', path, body, headers);
}

/** Everything visible in the queue, decoded, and removed from it. */
async function drain(): Promise<QueueMessage[]> {
  const messages: QueueMessage[] = [];
  for (;;) {
    const records = await queue.receive(10);
    if (records.length === 0) return messages;
    for (const record of records) {
      const decoded = decodeMessage(record.body);
      assert.ok(decoded.ok);
      messages.push(decoded.message);
      await queue.delete(record.receiptHandle);
    }
  }
}

function assertNothingEnqueued(): void {
  assert.deepEqual(queue.stats(), { visible: 0, inFlight: 0, delayed: 0, deadLetters: 0 });
}

const ACCEPTED = '{"status":"accepted"}';
const UNAUTHORIZED = '{"error":"unauthorized"}';
const NOT_FOUND = '{"error":"not found"}';

function withEvent(changes: (event: Record<string, unknown>) => void): string {
  const event = JSON.parse(EVENT_A_HELM_UPGRADE) as Record<string, unknown>;
  changes(event);
  return JSON.stringify(event);
}

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe('the receiver', () => {
  before(async () => {
    dynamo = await startDynalite();
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    receiverStore = createReceiverStore({ client: dynamo.client, tableName: dynamo.tableName });
    await store.applyCluster(clusterDocument('fleet-eu'), NOW);
    await store.applyCluster(clusterDocument('fleet-us'), NOW);
    for (const document of [
      pipelineDocument('podinfo', 'podinfo-webhook'),
      pipelineDocument('unsigned'),
      pipelineDocument('missing-secret', 'no-such-secret'),
      pipelineDocument('empty-key', 'empty-webhook'),
      pipelineDocument('denied-secret', 'untagged-webhook'),
      pipelineDocument('two-approvers', 'podinfo-webhook', { required: 2 }),
      pipelineDocument('users-only', 'podinfo-webhook', { approvers: { users: ['alice'] } }),
      pipelineDocument('keyed', 'podinfo-webhook', { approvers: { keys: ['podinfo-webhook'] } }),
      pipelineDocument('apps', 'podinfo-webhook', undefined, {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        name: 'apps',
      }),
    ]) {
      await store.applyPipeline(document, resolvePipeline(document), NOW);
    }
    server = await startHttpServer((incoming) => handleRequest(incoming, deps()));
  });

  after(async () => {
    await server?.close();
    await dynamo?.stop();
  });

  beforeEach(async () => {
    queue = new EmbeddedQueue();
    await drain();
  });

  describe('POST /v1/events/{clusterNs}/{clusterName}', () => {
    it('accepts a signed event for an indexed HelmRelease and enqueues one check of it', async () => {
      const answer = await postEvent(FLEET_EU, EVENT_A_HELM_UPGRADE, clusterKey(FLEET_EU));
      assert.equal(answer.status, 202);
      assert.equal(answer.text, ACCEPTED);
      assert.equal(answer.headers.get('content-type'), 'application/json');
      const app = { cluster: FLEET_EU, kind: 'HelmRelease' as const, namespace: 'apps', name: 'podinfo' };
      assert.deepEqual(await drain(), [
        {
          type: 'check-app',
          app,
          cause: 'event',
          attempt: 0,
          hint: { revision: '6.9.2', reason: 'UpgradeSucceeded' },
          // What the index lists the app in, so the verifier does not look it up again.
          pipelines: (await store.findTargets(app)).map(({ pipeline }) => pipeline),
        },
      ]);
    });

    it('takes nothing from the payload but the object: a failure event is one check too', async () => {
      const answer = await postEvent(FLEET_EU, EVENT_D_HELM_UPGRADE_FAILED, clusterKey(FLEET_EU));
      assert.equal(answer.status, 202);
      const messages = await drain();
      assert.equal(messages.length, 1);
      assert.deepEqual(messages[0], {
        type: 'check-app',
        app: { cluster: FLEET_EU, kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' },
        cause: 'event',
        attempt: 0,
        hint: { revision: '6.9.3', reason: 'UpgradeFailed' },
        pipelines: (
          await store.findTargets({ cluster: FLEET_EU, kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' })
        ).map(({ pipeline }) => pipeline),
      });
    });

    it('accepts a key derived from the previous master key', async () => {
      const answer = await postEvent(FLEET_EU, EVENT_A_HELM_UPGRADE, clusterKey(FLEET_EU, MASTER_KEYS.previous));
      assert.equal(answer.status, 202);
      assert.equal((await drain()).length, 1);
    });

    it('answers the same 401 to every bad signature and an unknown cluster, and enqueues nothing', async () => {
      const body = EVENT_A_HELM_UPGRADE;
      const ghost = { namespace: 'flux-system', name: 'ghost' };
      const attempts = [
        postEvent(FLEET_EU, body),
        postEvent(FLEET_EU, body, 'not-the-key'),
        postEvent(FLEET_EU, body, MASTER_KEYS.current),
        postEvent(FLEET_EU, body, clusterKey(FLEET_EU), 'sha512'),
        postEvent(FLEET_EU, body, clusterKey(FLEET_US)),
        postEvent(FLEET_EU, body, clusterKey(FLEET_EU, 'some-other-master')),
        request('POST', '/v1/events/flux-system/fleet-eu', body, {
          'x-signature': signatureHeader(body, clusterKey(FLEET_EU)).replace('sha256=', 'sha1='),
        }),
        postEvent(ghost, body, clusterKey(ghost)),
        postEvent({ namespace: 'flux-system', name: 'Not_A_Name' }, body, clusterKey({ ...ghost, name: 'Not_A_Name' })),
      ];
      for (const answer of await Promise.all(attempts)) {
        assert.equal(answer.status, 401);
        assert.equal(answer.text, UNAUTHORIZED);
      }
      assertNothingEnqueued();
    });

    it('checks the signature before it looks anything up', async () => {
      dynamo.resetCounts();
      assert.equal((await postEvent(FLEET_EU, EVENT_A_HELM_UPGRADE, 'wrong')).status, 401);
      assert.equal(dynamo.operations.size, 0);
    });

    it('accepts and drops events about objects no pipeline targets', async () => {
      const key = clusterKey(FLEET_EU);
      const notIndexed = withEvent((event) => {
        (event.involvedObject as Record<string, unknown>).name = 'other';
      });
      const onOtherCluster = EVENT_A_HELM_UPGRADE;
      const gitRepository = withEvent((event) => {
        event.involvedObject = {
          kind: 'GitRepository',
          namespace: 'flux-system',
          name: 'flux-system',
          apiVersion: 'source.toolkit.fluxcd.io/v1',
        };
      });
      for (const answer of [
        await postEvent(FLEET_EU, notIndexed, key),
        await postEvent(FLEET_EU, EVENT_C_KUSTOMIZATION_SUCCEEDED, key),
        await postEvent(FLEET_EU, gitRepository, key),
        await postEvent(FLEET_US, onOtherCluster, clusterKey(FLEET_US)),
      ]) {
        assert.equal(answer.status, 202);
        assert.equal(answer.text, ACCEPTED);
      }
      assertNothingEnqueued();
    });

    it('answers 400 with a short reason to malformed JSON and to bodies that are not Flux events', async () => {
      const key = clusterKey(FLEET_EU);
      const cases: [string, string][] = [
        ['{"involvedObject":', 'malformed JSON'],
        ['', 'empty body'],
        ['[1,2]', 'not a Flux event: expected a JSON object'],
        ['{"hello":"world"}', 'not a Flux event: involvedObject is missing'],
        [
          withEvent((event) => {
            delete event.reason;
          }),
          'not a Flux event: reason is missing',
        ],
      ];
      for (const [body, reason] of cases) {
        const answer = await postEvent(FLEET_EU, body, key);
        assert.equal(answer.status, 400, body);
        assert.deepEqual(JSON.parse(answer.text), { error: reason });
      }
      assertNothingEnqueued();
    });

    it('accepts a 564 KB event (a Kustomization change set), as notification-controller forwards it', async () => {
      const changeSet = withEvent((event) => {
        event.message = 'Deployment/apps/podinfo configured\n'.repeat(Math.ceil(564_000 / 35));
      });
      assert.ok(Buffer.byteLength(changeSet) > 564_000);
      const answer = await postEvent(FLEET_EU, changeSet, clusterKey(FLEET_EU));
      assert.equal(answer.status, 202);
      assert.equal((await drain()).length, 1);
    });

    it('answers 413 to a body over 3 MiB (as Flux caps), and accepts one of exactly 3 MiB', async () => {
      const key = clusterKey(FLEET_EU);
      const base = Buffer.byteLength(withEvent((event) => (event.message = '')));
      const ofLength = (length: number) => withEvent((event) => (event.message = 'x'.repeat(length - base)));
      const over = ofLength(3 * 1024 * 1024 + 1);
      assert.equal(Buffer.byteLength(over), 3 * 1024 * 1024 + 1);
      const answer = await postEvent(FLEET_EU, over, key);
      assert.equal(answer.status, 413);
      assert.equal(answer.text, '{"error":"request body too large"}');
      assertNothingEnqueued();

      const exact = ofLength(3 * 1024 * 1024);
      assert.equal(Buffer.byteLength(exact), 3 * 1024 * 1024);
      assert.equal((await postEvent(FLEET_EU, exact, key)).status, 202);
      assert.equal((await drain()).length, 1);
    });

    it('answers 405 with Allow to another method', async () => {
      const answer = await request('GET', '/v1/events/flux-system/fleet-eu');
      assert.equal(answer.status, 405);
      assert.equal(answer.headers.get('allow'), 'POST');
      assert.equal(answer.text, '{"error":"method not allowed"}');
      assert.equal((await request('PUT', '/v1/events/flux-system/fleet-eu', EVENT_A_HELM_UPGRADE)).status, 405);
      assertNothingEnqueued();
    });
  });

  describe('other paths', () => {
    it('GET /healthz answers 200 without authentication', async () => {
      const answer = await request('GET', '/healthz');
      assert.equal(answer.status, 200);
      assert.equal(answer.text, '{"status":"ok"}');
      const post = await request('POST', '/healthz', '');
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET');
    });

    it('answers 404 to unknown paths and to missing, extra, empty or undecodable segments', async () => {
      for (const path of [
        '/',
        '/nope',
        '/v1/events',
        '/v1/events/flux-system',
        '/v1/events/flux-system/fleet-eu/extra',
        '/v1/events//fleet-eu',
        '/v1/events/flux-system/fleet-eu//',
        '/v2/events/flux-system/fleet-eu',
        '/promotion/flux-system/podinfo',
        '/promotion/flux-system/podinfo/dev/extra',
        '/approval/flux-system/podinfo/prod',
        '/approval/flux-system/podinfo/prod/1.0.0/extra',
        '/approval/flux-system/podinfo/prod/%E0%A4%A',
        '/approval/flux-system/podinfo/prod/',
        '/healthz//',
        '//healthz',
      ]) {
        const answer = await request('POST', path, '{}');
        assert.equal(answer.status, 404, path);
        assert.equal(answer.text, NOT_FOUND, path);
      }
      assertNothingEnqueued();
    });

    it('ignores the query string', async () => {
      assert.equal((await request('GET', '/healthz?probe=1')).status, 200);
    });

    it('serves every route with one trailing slash like the route without it', async () => {
      const event = EVENT_A_HELM_UPGRADE;
      const eventSignature = { 'x-signature': signatureHeader(event, clusterKey(FLEET_EU)) };
      const promotionSignature = { 'x-signature': signatureHeader(event, WEAVE_KEY) };
      const approvalSignature = { 'x-signature': signatureHeader('', WEAVE_KEY) };
      const cases: [method: string, path: string, body: string | undefined, headers: Record<string, string>][] = [
        ['POST', '/v1/events/flux-system/fleet-eu', event, eventSignature],
        ['POST', '/promotion/flux-system/podinfo/dev', event, promotionSignature],
        ['POST', '/approval/flux-system/podinfo/prod/0.0.9', '', approvalSignature],
        ['GET', '/healthz', undefined, {}],
        ['GET', '/v1/events/flux-system/fleet-eu', undefined, {}],
      ];
      for (const [method, path, body, headers] of cases) {
        const without = await request(method, path, body, headers);
        const enqueuedWithout = await drain();
        const withSlash = await request(method, `${path}/`, body, headers);
        const enqueuedWithSlash = await drain();
        assert.notEqual(without.status, 404, path);
        assert.deepEqual([withSlash.status, withSlash.text], [without.status, without.text], `${path}/`);
        assert.deepEqual(enqueuedWithSlash, enqueuedWithout, `${path}/`);
      }
    });
  });

  describe('POST /promotion/{ns}/{name}/{env} (Weave)', () => {
    it('enqueues a check of the environment for a request signed with sha256 or sha512', async () => {
      for (const algorithm of ['sha256', 'sha512'] as const) {
        const answer = await postWeave(
          '/promotion/flux-system/podinfo/dev',
          EVENT_A_HELM_UPGRADE,
          EVENT_A_HELM_UPGRADE,
          algorithm,
        );
        assert.equal(answer.status, 202, algorithm);
        assert.equal(answer.text, ACCEPTED);
        assert.deepEqual(await drain(), [
          { type: 'check-pipeline', pipeline: PODINFO, env: 'dev', cause: 'promotion-webhook', readTargets: true },
        ]);
      }
    });

    it('requires a valid signature: unsigned, wrong body, no secretRef, no Secret, unreadable Secret, empty key → 401', async () => {
      const body = EVENT_A_HELM_UPGRADE;
      for (const answer of [
        await postWeave('/promotion/flux-system/podinfo/dev', body, undefined),
        await postWeave('/promotion/flux-system/podinfo/dev', body, ''),
        await postWeave('/promotion/flux-system/podinfo/dev', body, `${body} `),
        await postWeave('/promotion/flux-system/unsigned/dev', body, body),
        await postWeave('/promotion/flux-system/unsigned/dev', body, undefined),
        await postWeave('/promotion/flux-system/missing-secret/dev', body, body),
        await postWeave('/promotion/flux-system/denied-secret/dev', body, body),
        await request('POST', '/promotion/flux-system/empty-key/dev', body, {
          'x-signature': signatureHeader(body, ''),
        }),
      ]) {
        assert.equal(answer.status, 401);
        assert.equal(answer.text, UNAUTHORIZED);
      }
      assertNothingEnqueued();
    });

    it('answers 422 to an unknown environment and 404 to an unknown pipeline', async () => {
      const body = EVENT_A_HELM_UPGRADE;
      const unknownEnv = await postWeave('/promotion/flux-system/podinfo/qa', body, body);
      assert.equal(unknownEnv.status, 422);
      assert.equal(unknownEnv.text, '{"error":"unknown environment"}');
      const unknownPipeline = await postWeave('/promotion/flux-system/nope/dev', '{}', '{}');
      assert.equal(unknownPipeline.status, 404);
      assert.equal(unknownPipeline.text, NOT_FOUND);
      assert.equal((await postWeave('/promotion/other-ns/podinfo/dev', '{}', '{}')).status, 404);
      assert.equal((await request('GET', '/promotion/flux-system/podinfo/dev')).status, 405);
      assertNothingEnqueued();
    });

    it('answers 400, as to an event, to a signed body that is not a Flux event', async () => {
      const cases: [string, string][] = [
        ['', 'empty body'],
        ['{"revision":', 'malformed JSON'],
        ['[]', 'not a Flux event: expected a JSON object'],
        ['{}', 'not a Flux event: involvedObject is missing'],
        [withEvent((event) => delete event.reason), 'not a Flux event: reason is missing'],
      ];
      for (const [body, reason] of cases) {
        const answer = await postWeave('/promotion/flux-system/podinfo/dev', body, body);
        assert.equal(answer.status, 400, body);
        assert.deepEqual(JSON.parse(answer.text), { error: reason });
      }
      assertNothingEnqueued();
    });

    it('checks the signature before the body: an unsigned non-event is a 401', async () => {
      const answer = await postWeave('/promotion/flux-system/podinfo/dev', 'not json', undefined);
      assert.equal(answer.status, 401);
      assertNothingEnqueued();
    });

    it("answers 422 to an event about another object than the pipeline's app in that environment", async () => {
      const about = (changes: Record<string, string>) =>
        withEvent((event) => Object.assign(event.involvedObject as Record<string, string>, changes));
      for (const body of [
        about({ kind: 'Kustomization', apiVersion: 'kustomize.toolkit.fluxcd.io/v1' }),
        about({ name: 'podinfo-canary' }),
        // staging's namespace: the object is the app, but not in the environment the path names.
        about({ namespace: 'staging' }),
        about({ apiVersion: 'example.com/v1' }),
        withEvent((event) => (event.involvedObject = { kind: 'GitRepository', namespace: 'apps', name: 'podinfo' })),
      ]) {
        const answer = await postWeave('/promotion/flux-system/podinfo/dev', body, body);
        assert.equal(answer.status, 422, body);
        assert.equal(answer.text, '{"error":"the event is not about the pipeline\'s app in that environment"}');
      }
      assertNothingEnqueued();
    });

    it('answers 422 to the last environment: there is nothing to promote to', async () => {
      const body = withEvent((event) => ((event.involvedObject as Record<string, string>).namespace = 'prod'));
      const answer = await postWeave('/promotion/flux-system/podinfo/prod', body, body);
      assert.equal(answer.status, 422);
      assert.equal(answer.text, '{"error":"cannot promote beyond the last environment"}');
      assertNothingEnqueued();
    });

    it("takes the event's revision as a hint only: any revision, or none, triggers the same check", async () => {
      const staging = (metadata: Record<string, string>) =>
        withEvent((event) => {
          (event.involvedObject as Record<string, string>).namespace = 'staging';
          event.metadata = metadata;
        });
      for (const body of [staging({ revision: '0.0.1-not-deployed' }), staging({})]) {
        const answer = await postWeave('/promotion/flux-system/podinfo/staging', body, body);
        assert.equal(answer.status, 202, body);
        assert.deepEqual(await drain(), [
          { type: 'check-pipeline', pipeline: PODINFO, env: 'staging', cause: 'promotion-webhook', readTargets: true },
        ]);
      }
    });
  });

  describe('POST /approval/{ns}/{name}/{env}/{revision} (Weave)', () => {
    const identity = 'hmac-key of Secret flux-system/podinfo-webhook';

    /** The audit trail of podinfo, oldest first. */
    async function auditTrail() {
      return (await store.listAudit(PODINFO)).items.reverse();
    }

    it('approves the waiting revision, signed over the empty body, and enqueues the promotion', async () => {
      assert.equal(await store.requestApproval(PODINFO, 'prod', '6.9.2', NOW), 'requested');
      const auditBefore = (await auditTrail()).length;
      // Weave signs "" whatever the body; a body sent along changes nothing.
      const answer = await postWeave('/approval/flux-system/podinfo/prod/6.9.2', 'ignored', '');
      assert.equal(answer.status, 202);
      assert.equal(answer.text, ACCEPTED);
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: PODINFO, env: 'prod', revision: '6.9.2' }]);
      const marker = await store.getApproval(PODINFO, 'prod');
      assert.equal(marker?.approvedBy, identity);
      assert.equal(marker?.approvedAt, NOW.toISOString());
      // The approval is in the audit trail, under the name of the key that signed it (as pipelinectl's is under
      // the caller's identity).
      const approved = {
        at: NOW.toISOString(),
        pipeline: PODINFO,
        type: 'approved',
        env: 'prod',
        revision: '6.9.2',
        message: '6.9.2 approved for prod with the approval webhook',
        actor: identity,
      };
      assert.deepEqual((await auditTrail()).slice(auditBefore), [approved]);

      // Approving again is harmless: the promotion record dedupes the second promote message.
      assert.equal((await postWeave('/approval/flux-system/podinfo/prod/6.9.2', '', '', 'sha384')).status, 202);
      assert.equal((await drain()).length, 1);
      assert.deepEqual((await auditTrail()).slice(auditBefore), [approved], 'approved once, recorded once');
    });

    it('rejects a signature over the body instead of the empty string', async () => {
      await store.requestApproval(PODINFO, 'prod', '6.9.4', NOW);
      const auditBefore = (await auditTrail()).length;
      const answer = await postWeave('/approval/flux-system/podinfo/prod/6.9.4', 'body', 'body');
      assert.equal(answer.status, 401);
      assert.equal((await postWeave('/approval/flux-system/unsigned/prod/6.9.4', '', '')).status, 401);
      assertNothingEnqueued();
      assert.equal((await store.getApproval(PODINFO, 'prod'))?.approvedAt, undefined);
      assert.equal((await auditTrail()).length, auditBefore, 'a refused approval is not audited');
    });

    it('answers 422 when nothing waits for that revision, or the environment is unknown', async () => {
      await store.requestApproval(PODINFO, 'prod', '6.9.5', NOW);
      const auditBefore = (await auditTrail()).length;
      const wrong = await postWeave('/approval/flux-system/podinfo/prod/6.9.1', '', '');
      assert.equal(wrong.status, 422);
      assert.equal(wrong.text, '{"error":"no approval is waiting for that revision"}');
      const nothingWaits = await postWeave('/approval/flux-system/podinfo/dev/6.9.5', '', '');
      assert.equal(nothingWaits.status, 422);
      const unknownEnv = await postWeave('/approval/flux-system/podinfo/qa/6.9.5', '', '');
      assert.equal(unknownEnv.status, 422);
      assert.equal(unknownEnv.text, '{"error":"unknown environment"}');
      assert.equal((await postWeave('/approval/flux-system/nope/prod/6.9.5', '', '')).status, 404);
      assertNothingEnqueued();
      assert.equal((await store.getApproval(PODINFO, 'prod'))?.approvedAt, undefined);
      assert.equal((await auditTrail()).length, auditBefore, 'nothing audited');
    });

    it('decodes the revision: + and encoded @ and : work', async () => {
      const chart = '6.9.6+0cc9a8446c95';
      await store.requestApproval(PODINFO, 'prod', chart, NOW);
      assert.equal(
        (await postWeave(`/approval/flux-system/podinfo/prod/${encodeURIComponent(chart)}`, '', '')).status,
        202,
      );
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: PODINFO, env: 'prod', revision: chart }]);

      // A Kustomization's revision is a source revision.
      const apps: ObjectKey = { namespace: 'flux-system', name: 'apps' };
      const commit = 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';
      await store.requestApproval(apps, 'staging', commit, NOW);
      const encoded = encodeURIComponent(commit);
      assert.match(encoded, /%40sha1%3A/);
      assert.equal((await postWeave(`/approval/flux-system/apps/staging/${encoded}`, '', '')).status, 202);
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: apps, env: 'staging', revision: commit }]);
      assert.equal((await store.getApproval(apps, 'staging'))?.approvedBy, identity);
    });

    it('takes a literal + in the path as part of the revision', async () => {
      await store.requestApproval(PODINFO, 'prod', '6.9.7+build.1', NOW);
      assert.equal((await postWeave('/approval/flux-system/podinfo/prod/6.9.7+build.1', '', '')).status, 202);
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: PODINFO, env: 'prod', revision: '6.9.7+build.1' }]);
    });
  });

  describe('POST /approval under an approval policy (docs/approval-policies.md)', () => {
    const identity = 'hmac-key of Secret flux-system/podinfo-webhook';
    const TWO_APPROVERS: ObjectKey = { namespace: 'flux-system', name: 'two-approvers' };
    const USERS_ONLY: ObjectKey = { namespace: 'flux-system', name: 'users-only' };
    const KEYED: ObjectKey = { namespace: 'flux-system', name: 'keyed' };
    const auditOf = async (key: ObjectKey) => (await store.listAudit(key)).items;

    it('counts the key as one of two approvers: 202 saying one more is needed, nothing enqueued yet', async () => {
      await store.requestApproval(TWO_APPROVERS, 'prod', '6.5.0', NOW);
      const counted = await postWeave('/approval/flux-system/two-approvers/prod/6.5.0', '', '');
      assert.equal(counted.status, 202);
      assert.deepEqual(JSON.parse(counted.text), {
        status: 'counted',
        approvals: '1',
        required: '2',
        message: '1 more approval needed before the promotion starts',
      });
      assertNothingEnqueued();
      assert.equal((await store.getApproval(TWO_APPROVERS, 'prod'))?.approvedAt, undefined);
      assert.deepEqual(
        (await auditOf(TWO_APPROVERS)).map(({ type, actor, message }) => ({ type, actor, message })),
        [{ type: 'approved', actor: identity, message: '6.5.0 approved for prod with the approval webhook (1 of 2)' }],
      );

      // The same key again counts once.
      const again = await postWeave('/approval/flux-system/two-approvers/prod/6.5.0', '', '');
      assert.equal(again.status, 202);
      assert.equal((JSON.parse(again.text) as { status: string }).status, 'already-counted');
      assertNothingEnqueued();
      assert.equal((await auditOf(TWO_APPROVERS)).length, 1);

      // A second person (pipelinectl, here through the store) completes it; the webhook then hands the promotion on.
      assert.equal(await store.approve(TWO_APPROVERS, 'prod', '6.5.0', 'local:alice', NOW, 2), 'approved');
      const approved = await postWeave('/approval/flux-system/two-approvers/prod/6.5.0', '', '');
      assert.equal(approved.status, 202);
      assert.equal(approved.text, ACCEPTED);
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: TWO_APPROVERS, env: 'prod', revision: '6.5.0' }]);
    });

    it('refuses a key the policy does not list: 403 naming the key and the list, nothing recorded or enqueued', async () => {
      await store.requestApproval(USERS_ONLY, 'prod', '6.5.0', NOW);
      const answer = await postWeave('/approval/flux-system/users-only/prod/6.5.0', '', '');
      assert.equal(answer.status, 403);
      assert.deepEqual(JSON.parse(answer.text), {
        error: 'not an approver of that environment',
        reason:
          `${identity} may not approve: the environment's approval policy has no approval.approvers.keys ` +
          '(add the name of the Secret whose hmac-key signs the webhook to it)',
      });
      assert.ok(!answer.text.includes(WEAVE_KEY));
      assert.equal(logs.at(-1)?.attributes.outcome, 'not-allowed');
      assert.equal(logs.at(-1)?.attributes.reason, 'door-closed');
      assertNothingEnqueued();
      assert.equal((await store.getApproval(USERS_ONLY, 'prod'))?.approvals, undefined);
      assert.deepEqual(await auditOf(USERS_ONLY), []);
    });

    it('approves with a key the policy lists', async () => {
      await store.requestApproval(KEYED, 'prod', '6.5.0', NOW);
      const answer = await postWeave('/approval/flux-system/keyed/prod/6.5.0', '', '');
      assert.equal(answer.status, 202);
      assert.equal(answer.text, ACCEPTED);
      assert.deepEqual(await drain(), [{ type: 'promote', pipeline: KEYED, env: 'prod', revision: '6.5.0' }]);
    });

    it('answers 409 for a rejected revision, and the approval does not count', async () => {
      await store.requestApproval(PODINFO, 'prod', '6.9.8', NOW);
      assert.equal(await store.reject(PODINFO, 'prod', '6.9.8', 'local:bob', 'breaks checkout', NOW), 'rejected');
      const auditBefore = (await store.listAudit(PODINFO)).items.length;
      const answer = await postWeave('/approval/flux-system/podinfo/prod/6.9.8', '', '');
      assert.equal(answer.status, 409);
      assert.equal(answer.text, '{"error":"the revision was rejected for that environment"}');
      assertNothingEnqueued();
      assert.equal((await store.getApproval(PODINFO, 'prod'))?.approvedAt, undefined);
      assert.equal((await store.listAudit(PODINFO)).items.length, auditBefore);
    });
  });

  describe('what the receiver says and logs', () => {
    const MARKER = 'zqmarker7x';

    it('never repeats request input in a response', async () => {
      const key = clusterKey(FLEET_EU);
      const event = (changes: (event: Record<string, unknown>) => void) => withEvent(changes);
      const results: [Answer, number][] = [
        [await request('POST', `/v1/events/${MARKER}/${MARKER}`, MARKER), 401],
        [
          await request('POST', '/v1/events/flux-system/fleet-eu', MARKER, {
            'x-signature': `sha256=${MARKER}`,
            [`x-${MARKER}`]: MARKER,
          }),
          401,
        ],
        [await postEvent(FLEET_EU, `{"${MARKER}":"${MARKER}"}`, key), 400],
        [await postEvent(FLEET_EU, `${MARKER}{`, key), 400],
        [
          await postEvent(
            FLEET_EU,
            event((e) => (e.metadata = { [MARKER]: 5 })),
            key,
          ),
          400,
        ],
        [
          await postEvent(
            FLEET_EU,
            event((e) => (e.involvedObject = { kind: MARKER, namespace: '', name: MARKER })),
            key,
          ),
          400,
        ],
        [
          await postEvent(
            FLEET_EU,
            event((e) => (e.involvedObject = { kind: MARKER, namespace: MARKER, name: MARKER })),
            key,
          ),
          202,
        ],
        [
          await postEvent(
            FLEET_EU,
            event((e) => (e.message = MARKER.repeat(320_000))),
            key,
          ),
          413,
        ],
        [await postWeave(`/promotion/flux-system/podinfo/${MARKER}`, MARKER, MARKER), 400],
        [await postWeave(`/promotion/flux-system/podinfo/${MARKER}`, EVENT_A_HELM_UPGRADE, EVENT_A_HELM_UPGRADE), 422],
        [
          await postWeave(
            '/promotion/flux-system/podinfo/dev',
            event((e) => (e.involvedObject = { kind: MARKER, namespace: MARKER, name: MARKER })),
            event((e) => (e.involvedObject = { kind: MARKER, namespace: MARKER, name: MARKER })),
          ),
          422,
        ],
        [await postWeave(`/promotion/flux-system/${MARKER}/dev`, MARKER, MARKER), 404],
        [await postWeave(`/approval/flux-system/podinfo/prod/${MARKER}`, MARKER, ''), 422],
        [await request('POST', `/${MARKER}`, MARKER), 404],
        [await request('GET', `/v1/events/${MARKER}/x`), 405],
        [await request('PATCH', `/v1/events/flux-system/fleet-eu?${MARKER}=${MARKER}`, MARKER), 405],
      ];
      for (const [answer, status] of results) {
        assert.equal(answer.status, status, answer.text);
        assert.ok(!answer.text.toLowerCase().includes(MARKER), answer.text);
        for (const [name, value] of answer.headers) {
          assert.ok(!`${name}: ${value}`.toLowerCase().includes(MARKER), name);
        }
      }
      // node:http refuses unknown methods itself, so this one goes to the handler directly.
      const method = await handleRequest(
        { method: MARKER, path: '/healthz', headers: { [MARKER]: MARKER }, body: Buffer.from(MARKER) },
        deps(),
      );
      assert.equal(method.statusCode, 405);
      assert.ok(!JSON.stringify(method).includes(MARKER));
      await drain();
    });

    it('answers 500 with a fixed body when a dependency fails, and logs only the error name and message', async () => {
      const failing: ReceiverDeps = {
        ...deps(),
        store: {
          ...receiverStore,
          getCluster: () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
        },
      };
      const body = Buffer.from(EVENT_A_HELM_UPGRADE);
      const before = logs.length;
      const answer = await handleRequest(
        {
          method: 'POST',
          path: '/v1/events/flux-system/fleet-eu',
          headers: { 'x-signature': signatureHeader(body, clusterKey(FLEET_EU)) },
          body,
        },
        failing,
      );
      assert.equal(answer.statusCode, 500);
      assert.equal(answer.body, '{"error":"internal error"}');
      const line = logs.at(-1);
      assert.equal(logs.length, before + 1);
      assert.equal(line?.level, 'error');
      assert.deepEqual(line?.attributes.error, { name: 'Error', message: 'ProvisionedThroughputExceededException' });
      assert.equal(line?.attributes.status, 500);

      const throwingKeys: ReceiverDeps = { ...deps(), masterKeys: () => Promise.reject(new TypeError('no secret')) };
      const keysAnswer = await handleRequest(
        { method: 'POST', path: '/v1/events/flux-system/fleet-eu', headers: {}, body },
        throwingKeys,
      );
      assert.equal(keysAnswer.statusCode, 500);
      assertNothingEnqueued();
    });

    it('checks a declared Content-Length and the actual length without HTTP', async () => {
      const small = Buffer.from(EVENT_A_HELM_UPGRADE);
      const headers = { 'x-signature': signatureHeader(small, clusterKey(FLEET_EU)), 'content-length': '3145729' };
      const declared = await handleRequest(
        { method: 'POST', path: '/v1/events/flux-system/fleet-eu', headers, body: small },
        deps(),
      );
      assert.equal(declared.statusCode, 413);
      const large = Buffer.alloc(100, 'x');
      const capped = await handleRequest(
        { method: 'POST', path: '/v1/events/flux-system/fleet-eu', headers: {}, body: large },
        { ...deps(), maxBodyBytes: 99 },
      );
      assert.equal(capped.statusCode, 413);
      assertNothingEnqueued();
    });

    it('logs a 413 as a warning with the route and the declared and received sizes, never the body', async () => {
      const body = Buffer.alloc(100, 'q');
      const before = logs.length;
      const declared = await handleRequest(
        { method: 'POST', path: '/promotion/flux-system/podinfo/dev', headers: { 'content-length': '3145729' }, body },
        deps(),
      );
      const received = await handleRequest(
        { method: 'POST', path: '/v1/events/flux-system/fleet-eu', headers: {}, body },
        { ...deps(), maxBodyBytes: 99 },
      );
      assert.deepEqual([declared.statusCode, received.statusCode], [413, 413]);
      const lines = logs.slice(before).map(({ level, message, attributes }) => {
        const { durationMs, ...rest } = attributes;
        assert.equal(typeof durationMs, 'number');
        return { level, message, attributes: rest };
      });
      const rejected = { level: 'warn', message: 'request rejected' };
      const common = { method: 'POST', status: 413, outcome: 'body-too-large' };
      assert.deepEqual(lines, [
        { ...rejected, attributes: { route: 'promotion', ...common, declaredBytes: 3145729, receivedBytes: 100 } },
        { ...rejected, attributes: { route: 'events', ...common, receivedBytes: 100 } },
      ]);
      assert.ok(!JSON.stringify(lines).includes('qqqq'));
    });

    it('logs one structured line per request, with the event hints but no secret or body', async () => {
      const body = withEvent((event) => (event.message = 'BODY-ONLY-7q3v'));
      const key = clusterKey(FLEET_EU);
      const signature = signatureHeader(body, key);
      const before = logs.length;
      await request('POST', '/v1/events/flux-system/fleet-eu', body, { 'x-signature': signature });
      await drain();
      assert.equal(logs.length, before + 1);
      const line = logs.at(-1);
      assert.equal(line?.level, 'info');
      assert.equal(line?.attributes.route, 'events');
      assert.equal(line?.attributes.status, 202);
      assert.equal(line?.attributes.cluster, 'flux-system/fleet-eu');
      assert.equal(line?.attributes.outcome, 'enqueued');
      assert.equal(typeof line?.attributes.durationMs, 'number');
      assert.deepEqual(line?.attributes.object, { kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' });
      assert.deepEqual(line?.attributes.hint, { revision: '6.9.2', reason: 'UpgradeSucceeded' });

      const weaveSignature = signatureHeader('', WEAVE_KEY);
      await request('POST', '/approval/flux-system/podinfo/prod/0.0.1', 'WEAVE-BODY-2k8d', {
        'x-signature': weaveSignature,
      });
      const approval = logs.at(-1);
      assert.equal(approval?.attributes.pipeline, 'flux-system/podinfo');
      assert.equal(approval?.attributes.status, 422);

      // Every line this file produced: no signature, key, master key, Secret value or body.
      const everything = JSON.stringify(logs);
      for (const secret of [
        signature.slice('sha256='.length),
        weaveSignature.slice('sha256='.length),
        key,
        clusterKey(FLEET_EU, MASTER_KEYS.previous),
        MASTER_KEYS.current,
        MASTER_KEYS.previous,
        WEAVE_KEY,
        EVENT_A_HELM_UPGRADE,
        'BODY-ONLY-7q3v',
        'WEAVE-BODY-2k8d',
        'Helm upgrade succeeded',
      ]) {
        assert.ok(!everything.includes(secret), secret);
      }
      assert.ok(logs.length >= answers.length);
    });

    it('only ever answered 200, 202 or 4xx with one of the fixed bodies', () => {
      const fixed = new Set([
        ACCEPTED,
        '{"status":"ok"}',
        UNAUTHORIZED,
        NOT_FOUND,
        '{"error":"method not allowed"}',
        '{"error":"request body too large"}',
        '{"error":"unknown environment"}',
        '{"error":"cannot promote beyond the last environment"}',
        '{"error":"the event is not about the pipeline\'s app in that environment"}',
        '{"error":"no approval is waiting for that revision"}',
        '{"error":"the revision was rejected for that environment"}',
      ]);
      for (const answer of answers) {
        assert.ok([200, 202, 400, 401, 403, 404, 405, 409, 413, 422].includes(answer.status), String(answer.status));
        if (answer.status === 400)
          assert.match(answer.text, /^\{"error":"(malformed JSON|empty body|not a Flux event: [^"]+)"\}$/);
        // An approval policy's answers name the key (a Secret the Pipeline names) and counts, nothing of the request.
        else if (answer.status === 403)
          assert.match(
            answer.text,
            /^\{"error":"not an approver of that environment","reason":"hmac-key of Secret [^"]+"\}$/,
          );
        else if (answer.text.startsWith('{"status":"counted"') || answer.text.startsWith('{"status":"already-counted"'))
          assert.match(
            answer.text,
            /^\{"status":"(already-)?counted","approvals":"\d+","required":"\d+","message":"[^"]+"\}$/,
          );
        else assert.ok(fixed.has(answer.text), answer.text);
      }
    });
  });
});
