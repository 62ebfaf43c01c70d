// The local store does not grow with the requests it answers: each Query or Scan dynalite answers reads through a
// LevelDB iterator, which must be closed once the answer is done, or it stays held by the database (with LevelDB's
// native iterator and snapshot) until serve stops. Events about apps no pipeline lists, which anyone holding a
// cluster's key can send without end, cost one Query each.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { handleRequest } from '../../lib/http/receiver.js';
import type { HttpRequest } from '../../lib/http/types.js';
import { startLocalDynamo } from '../../lib/local/dynamo.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { dynamoTable } from '../../lib/store/index.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { tempFiles } from '../support/temp-files.js';
import { silentLogger } from '../../lib/logging/logger.js';

const CLUSTER = { namespace: 'flux-system', name: 'dev' };
const MASTER_KEY = 'm'.repeat(64);
const EVENTS = 1_000;

function eventFor(name: string): HttpRequest {
  const body = JSON.stringify({
    involvedObject: { kind: 'HelmRelease', namespace: 'apps', name, apiVersion: 'helm.toolkit.fluxcd.io/v2' },
    severity: 'info',
    reason: 'UpgradeSucceeded',
    message: `Helm upgrade succeeded for release apps/${name}`,
    reportingController: 'helm-controller',
    timestamp: '2026-01-01T00:00:00Z',
    metadata: { revision: '1.0.0' },
  });
  return {
    method: 'POST',
    path: `/v1/events/${CLUSTER.namespace}/${CLUSTER.name}`,
    headers: { 'x-signature': signatureHeader(body, deriveClusterKey(MASTER_KEY, CLUSTER)) },
    body: Buffer.from(body),
    remoteAddress: '127.0.0.1',
  };
}

describe('the local store answering many requests', () => {
  it(`leaves no LevelDB iterator open after ${EVENTS} events about apps no pipeline lists`, async (t) => {
    const root = await tempFiles(t, {});
    const dynamo = await startLocalDynamo(join(root, 'data'), { env: { PIPELINES_HMAC_KEY: MASTER_KEY } });
    t.after(() => dynamo.stop().catch(() => undefined)); // the temporary directory may be gone by then
    const { store } = dynamoTable({ client: dynamo.client, tableName: dynamo.tableName });
    await store.applyCluster(
      {
        apiVersion: 'gitops.weave.works/v1alpha1',
        kind: 'GitopsCluster',
        metadata: CLUSTER,
        spec: { secretRef: { name: 'dev-kubeconfig' } },
      },
      new Date(),
    );
    const queue = new RecordingQueue();
    const deps = {
      store,
      queue,
      secrets: new StaticSecretSource(),
      masterKeys: () => Promise.resolve({ current: MASTER_KEY }),
      logger: silentLogger,
    };

    for (let i = 0; i < EVENTS; i += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, j) => handleRequest(eventFor(`unlisted-${i + j}`), deps)),
      );
      assert.deepEqual(new Set(answers.map((answer) => answer.statusCode)), new Set([202]));
    }
    assert.deepEqual(queue.sent, [], 'nothing enqueued: no pipeline lists these apps');
    assert.equal(dynamo.openIterators(), 0, 'every Query closed its iterator');

    // A Scan too (the CLI's `get` and backups read the store this way).
    await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
    assert.equal(dynamo.openIterators(), 0, 'the Scan closed its iterator');
  });
});
