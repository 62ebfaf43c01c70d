// The three Lambda bundles as Lambda runs them: built with the construct's settings (infra/bundling.ts, as `npm run
// bundle` builds the packed ones) into a directory with no node_modules on its way up, imported by the Node running
// this file, and their `handler` called with the events Lambda passes, against dynalite, fauxqs and the AWS stand-in
// (Secrets Manager) in place of DynamoDB, SQS and Secrets Manager. scripts/node22-checks.sh runs this file on Node 22,
// the functions' runtime (nodejs22.x); the default run checks the same on the machine's Node.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { interceptLocalhostDns, startFauxqs, type FauxqsServer } from 'fauxqs';
import { BUNDLE_FILE, ENTRIES, esbuildOptions, type FunctionName } from '../../infra/bundling.js';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { encodeMessage } from '../../lib/queue/index.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { EVENT_A_HELM_UPGRADE } from '../fixtures/flux-events.js';
import { functionUrlRequestContext } from '../fixtures/function-url.js';
import { DEV, DEV_CLUSTER, pipelineDocument } from '../verifier/world.js';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const MASTER_KEY = 'master-key-for-the-bundle-test';

interface Handlers {
  receiver: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
  verifier: (event: SQSEvent, context: Context) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
  poller: () => Promise<{ polls: number }>;
}

/** A function URL's POST of Flux's event about the dev cluster, with the given `X-Signature` (or none). */
function fluxEvent(signature: string | undefined): APIGatewayProxyEventV2 {
  const path = `/v1/events/${DEV_CLUSTER.namespace}/${DEV_CLUSTER.name}`;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...(signature && { 'x-signature': signature }) },
    body: EVENT_A_HELM_UPGRADE,
    isBase64Encoded: false,
    requestContext: functionUrlRequestContext('POST', path),
  };
}

/** An SQS event source's batch of one record per body, as Lambda passes it. */
function sqsBatch(queueArn: string, bodies: readonly string[]): SQSEvent {
  return {
    Records: bodies.map((body, index) => ({
      messageId: `message-${index}`,
      receiptHandle: `receipt-${index}`,
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'AIDAEXAMPLE',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

const lambdaContext = (name: string): Context =>
  ({ awsRequestId: 'c0ffee00-0000-4000-8000-000000000000', functionName: name }) as Context;

describe(`the Lambda bundles on Node ${process.versions.node}`, () => {
  let directory: string;
  let dynamo: LocalDynamo;
  let sqs: FauxqsServer;
  let aws: AwsStandIn;
  let store: Store;
  let restoreDns: () => void;
  let queueArn: string;
  const handlers = {} as Handlers;
  const savedEnvironment = { ...process.env };

  before(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-bundles-'));
    const names = Object.keys(ENTRIES) as FunctionName[];
    await Promise.all(
      names.map((name) =>
        build({ ...esbuildOptions(name, path.join(directory, name, BUNDLE_FILE)), logLevel: 'warning' }),
      ),
    );
    [dynamo, sqs, aws] = await Promise.all([
      startDynalite(),
      startFauxqs({ port: 0, logger: false }),
      startAwsStandIn(),
    ]);
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName, retentionDays: 90 });
    const secrets = new SecretsManagerClient({ endpoint: aws.endpoint, region: 'us-east-1', credentials: CREDENTIALS });
    const masterKey = await secrets.send(
      new CreateSecretCommand({ Name: 'master-key', SecretString: JSON.stringify({ current: MASTER_KEY }) }),
    );
    secrets.destroy();
    const queue = sqs.createQueue('work');
    queueArn = queue.queueArn;
    // The functions send to the queue URL's host, `sqs.<region>.localhost`: resolved to 127.0.0.1 here.
    restoreDns = interceptLocalhostDns();
    Object.assign(process.env, {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SQS: `http://sqs.us-east-1.localhost:${sqs.port}`,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
      TABLE_NAME: dynamo.tableName,
      QUEUE_URL: queue.queueUrl,
      DEAD_LETTER_QUEUE_URL: sqs.createQueue('dead-letters').queueUrl,
      MASTER_KEY_SECRET_ID: masterKey.ARN,
      // Their log and metric lines are not what this file checks (test/observability does).
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    for (const name of names) {
      const bundle = pathToFileURL(path.join(directory, name, BUNDLE_FILE)).href;
      (handlers as Record<FunctionName, unknown>)[name] = ((await import(bundle)) as { handler: unknown }).handler;
    }
  });

  after(async () => {
    process.env = savedEnvironment;
    restoreDns?.();
    await Promise.all([aws?.stop(), sqs?.stop(), dynamo?.stop()]);
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const bodies = (queue: string) => (sqs.inspectQueue(queue)?.messages.ready ?? []).map((message) => message.body);

  it('the receiver answers an unsigned event 401, and enqueues a signed one with 202', async () => {
    const cluster: GitopsClusterDocument = {
      apiVersion: 'gitops.weave.works/v1alpha1',
      kind: 'GitopsCluster',
      metadata: { ...DEV_CLUSTER },
      spec: { secretRef: { name: 'dev-kubeconfig' } },
    };
    await store.applyCluster(cluster, new Date());
    const document = pipelineDocument();
    await store.applyPipeline(document, resolvePipeline(document), new Date());

    const unsigned = await handlers.receiver(fluxEvent(undefined));
    const forged = await handlers.receiver(fluxEvent(signatureHeader(EVENT_A_HELM_UPGRADE, 'not-the-cluster-key')));
    assert.deepEqual([unsigned.statusCode, forged.statusCode], [401, 401]);
    assert.deepEqual(bodies('work'), []);

    const key = deriveClusterKey(MASTER_KEY, DEV_CLUSTER);
    const signed = await handlers.receiver(fluxEvent(signatureHeader(EVENT_A_HELM_UPGRADE, key)));
    assert.equal(signed.statusCode, 202, signed.body);
    const enqueued = bodies('work').map((body) => JSON.parse(body) as { type: string });
    assert.deepEqual(
      enqueued.map((message) => message.type),
      ['check-app'],
    );
    sqs.reset();
  });

  it('the verifier dead-letters an undecodable record and reports no record to retry', async () => {
    const empty = await handlers.verifier(sqsBatch(queueArn, []), lambdaContext('verifier'));
    assert.deepEqual(empty, { batchItemFailures: [] });

    const batch = sqsBatch(queueArn, ['not a message']);
    const answer = await handlers.verifier(batch, lambdaContext('verifier'));
    assert.deepEqual(answer, { batchItemFailures: [] });
    assert.equal(bodies('dead-letters').length, 1, 'the record went to the dead-letter queue');
    sqs.reset();
  });

  it("the verifier reads a target's cluster through the Kubernetes client it loads on that first read", async () => {
    // The client is in a chunk of its own beside the entry (infra/bundling.ts): read from this directory, with no
    // node_modules in reach. The dev cluster's kubeconfig Secret does not exist, which the client's reader reports.
    const message = encodeMessage({ type: 'check-app', app: DEV, cause: 'event', attempt: 0 });
    const answer = await handlers.verifier(sqsBatch(queueArn, [message]), lambdaContext('verifier'));
    assert.deepEqual(answer, { batchItemFailures: [] });
    const recorded = await store.getTargetStatus(DEV);
    assert.equal(recorded?.status.reason, 'ClusterNotConfigured', JSON.stringify(recorded));
    assert.match(recorded?.status.message ?? '', /dev-kubeconfig/);
    sqs.reset();
  });

  it("the verifier's stack traces name the function and its file in lib/ (the bundle maps them itself)", async () => {
    // A verifier without its table's settings fails at its first invocation: where, the trace says.
    const script =
      `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(directory, 'verifier', BUNDLE_FILE)).href)});\n` +
      "await handler({ Records: [] }, { awsRequestId: 'r' }).catch((error) => process.stdout.write(error.stack));\n";
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script], {
      env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1' },
    });
    assert.match(stdout, /missing or invalid environment variables: TABLE_NAME/);
    assert.match(stdout, /\n +at readAwsEnvironment \(\S*\/lib\/runtime\/aws\.ts:\d+:\d+\)/, stdout);
  });

  it('the poller enqueues a poll of each cluster the stored pipeline uses', async () => {
    const answer = await handlers.poller();
    assert.deepEqual(answer, { polls: 2 }, 'dev and prod');
    const sent = bodies('work').map(
      (body) =>
        JSON.parse(body) as { type: string; clusters?: { cluster: { name: string }; kinds: { kind: string }[] }[] },
    );
    const polled = sent
      .filter((message) => message.type === 'poll-clusters')
      .flatMap((message) => message.clusters ?? [])
      .map(({ cluster, kinds }) => `${cluster.name} ${kinds.map(({ kind }) => kind).join()}`);
    // In the order of their poll groups (pollGroupOf), which is no concern here.
    assert.deepEqual(polled.sort(), ['dev HelmRelease', 'prod HelmRelease'], JSON.stringify(sent));
    sqs.reset();
  });
});
