// Only the controller and the CLI of the user who owns the data directory reach the local store: `serve`'s dynalite
// takes a request only when it is signed with the access key made at this start, which only serve.json (mode 0600,
// in the 0700 data directory) holds. Anything else gets 403 before dynalite sees it, and writes nothing.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DynamoDBClient, GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_TABLE_NAME } from '../../lib/local/data-dir.js';
import { localDynamoClient } from '../../lib/local/dynamo.js';
import { clusterWithKubeconfigYaml, pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed } from '../loop/harness.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { scanClient } from './store-items.js';

const FORGED_ITEM = {
  pk: { S: 'PIPELINE#flux-system/podinfo' },
  sk: { S: 'APPROVAL#prod' },
  revision: { S: '6.9.2' },
  approvedBy: { S: 'nobody' },
};

interface ServeJson {
  pid: number;
  dynamoEndpoint: string;
  dynamoAccessKey: string;
}

async function readServeJson(dataDir: string): Promise<ServeJson> {
  return JSON.parse(await readFile(join(dataDir, 'serve.json'), 'utf8')) as ServeJson;
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

/** A DynamoDB PutItem as a plain HTTP client sends it, with whatever Authorization header it chooses. */
function putItemRequest(endpoint: string, authorization?: string): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.PutItem',
    'x-amz-date': '20261124T000000Z',
  };
  if (authorization) headers.authorization = authorization;
  return fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ TableName: LOCAL_TABLE_NAME, Item: FORGED_ITEM }),
  });
}

describe("the local store refuses requests without this start's access key", () => {
  it('refuses a plain request, a forged signature and an SDK client with other credentials; the CLI still works', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.2', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const root = await tempFiles(t, {
      'config/fleet.yaml': yamlDocuments(
        clusterWithKubeconfigYaml('fleet', kube.kubeconfig()),
        pipelineYaml({
          name: 'podinfo',
          environments: [
            { name: 'dev', targets: [{ namespace: 'dev', cluster: 'fleet' }] },
            { name: 'prod', targets: [{ namespace: 'prod', cluster: 'fleet' }], manual: true },
          ],
          strategy: 'notification',
        }),
      ),
    });
    const dataDir = join(root, 'data');
    const args = ['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1s'];
    const serve = await startServe(t, args);

    // The data directory and the files holding keys are the user's alone.
    assert.equal(await mode(dataDir), 0o700);
    assert.equal(await mode(join(dataDir, 'serve.json')), 0o600);
    assert.equal(await mode(join(dataDir, 'master-key.json')), 0o600);
    const info = await readServeJson(dataDir);
    assert.match(info.dynamoAccessKey, /^[0-9a-f]{64}$/, 'a random 32-byte key, in hex');

    const owner = localDynamoClient(info.dynamoEndpoint, info.dynamoAccessKey);
    t.after(() => owner.destroy());
    // The approval request, and the facts that dev and prod passed (each recorded after the decision's actions, in
    // a write of its own): a still picture.
    await waitFor('the approval request for prod and the facts that dev and prod passed', async () => {
      const items = await scanClient(owner);
      const passed = new Set(
        items
          .filter((item) => item.entity?.S === 'audit' && item.type?.S === 'environment-passed')
          .map((item) => item.env?.S),
      );
      return items.some((item) => item.sk?.S === 'APPROVAL#prod') && passed.has('dev') && passed.has('prod');
    });
    // The poller's caches (the poll digests, the poll plan) are rewritten by serve's own polls, every second
    // here, whenever a full poll falls due: they are not part of the picture a forged request could change.
    const picture = async () =>
      (await scanClient(owner)).filter((item) => item.sk?.S !== 'POLLPLAN' && !item.pk?.S?.startsWith('POLLDIGESTS#'));
    const before = await picture();

    // 1. No credentials at all.
    const plain = await putItemRequest(info.dynamoEndpoint);
    assert.equal(plain.status, 403);
    assert.equal(
      ((await plain.json()) as { __type: string }).__type,
      'com.amazonaws.dynamodb.v20120810#UnrecognizedClientException',
    );
    // 2. A signature that names another key (dynalite itself never checks signatures).
    const forged = await putItemRequest(
      info.dynamoEndpoint,
      'AWS4-HMAC-SHA256 Credential=local/20261124/local/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
    );
    assert.equal(forged.status, 403);
    await forged.arrayBuffer();
    // 3. The AWS SDK with any other credentials, even a key of the right shape.
    for (const accessKeyId of ['local', 'a'.repeat(64), info.dynamoAccessKey.slice(0, 63)]) {
      const stranger = new DynamoDBClient({
        endpoint: info.dynamoEndpoint,
        region: 'local',
        credentials: { accessKeyId, secretAccessKey: info.dynamoAccessKey },
      });
      t.after(() => stranger.destroy());
      await assert.rejects(
        stranger.send(new PutItemCommand({ TableName: LOCAL_TABLE_NAME, Item: FORGED_ITEM })),
        (error: Error & { $metadata?: { httpStatusCode?: number } }) =>
          error.name === 'UnrecognizedClientException' && error.$metadata?.httpStatusCode === 403,
      );
      await assert.rejects(stranger.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME })), {
        name: 'UnrecognizedClientException',
      });
    }
    // 4. A client that gives up half-way through a body does not take the store down.
    await new Promise<void>((resolve, reject) => {
      const { port } = new URL(info.dynamoEndpoint);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999\r\n\r\n{');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      }).on('error', reject);
    });

    // Nothing was written, the approval still waits, and serve is alive.
    const approval = await owner.send(
      new GetItemCommand({ TableName: LOCAL_TABLE_NAME, Key: { pk: FORGED_ITEM.pk, sk: FORGED_ITEM.sk } }),
    );
    assert.equal(approval.Item?.approvedBy, undefined, 'no approval was forged');
    assert.deepEqual(await picture(), before);
    assert.equal((await fetch(`${serve.receiverUrl}/healthz`)).status, 200);

    // The CLI reads the key from the data directory: status and approve work against the running serve.
    const status = await runPipelinectl(['status', '--data-dir', dataDir]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /flux-system\/podinfo/);
    const approve = await runPipelinectl([
      'approve',
      'flux-system/podinfo',
      'prod',
      '--revision',
      '6.9.2',
      '--data-dir',
      dataDir,
    ]);
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /^approved flux-system\/podinfo prod 6\.9\.2 as local:/);

    // The key is made anew at each start: the last one opens nothing once serve has stopped and started again.
    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    await startServe(t, args);
    const next = await readServeJson(dataDir);
    assert.notEqual(next.dynamoAccessKey, info.dynamoAccessKey);
    const previous = localDynamoClient(next.dynamoEndpoint, info.dynamoAccessKey);
    t.after(() => previous.destroy());
    await assert.rejects(previous.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME })), {
      name: 'UnrecognizedClientException',
    });
  });

  it('tightens a data directory and key files that others could read', async (t) => {
    // apply makes a store in a new data directory; the other commands refuse one that holds none.
    const root = await tempFiles(t, {
      'secret.yaml':
        'apiVersion: v1\nkind: Secret\nmetadata: { name: s, namespace: flux-system }\nstringData: { token: t }\n',
    });
    const dataDir = join(root, 'data');
    await mkdir(dataDir, { mode: 0o755 });
    await chmod(dataDir, 0o755);
    const first = await runPipelinectl(['apply', '-f', join(root, 'secret.yaml'), '--data-dir', dataDir]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(await mode(dataDir), 0o700);
    assert.equal(await mode(join(dataDir, 'master-key.json')), 0o600, 'the store and its master key are made together');

    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, 'master-key.json'), 0o644);
    const again = await runPipelinectl(['get', 'pipelines', '--data-dir', dataDir]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /permissions .* tightened/);
    assert.equal(await mode(dataDir), 0o700);
    assert.equal(await mode(join(dataDir, 'master-key.json')), 0o600);
  });
});
