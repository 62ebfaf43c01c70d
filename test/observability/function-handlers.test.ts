// The receiver and poller Lambdas' handlers as deployed (lib/runtime/), against dynalite, fauxqs and the AWS stand-in
// (Secrets Manager) in place of DynamoDB, SQS and Secrets Manager: each invocation writes exactly one EMF line per
// set of dimensions, at its end, in the controller's namespace, under the function's own name as `service`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { interceptLocalhostDns, startFauxqs, type FauxqsServer } from 'fauxqs';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { pollerHandler } from '../../lib/runtime/poller.js';
import { receiverHandler } from '../../lib/runtime/receiver.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { EVENT_A_HELM_UPGRADE } from '../fixtures/flux-events.js';
import { functionUrlRequestContext } from '../fixtures/function-url.js';
import { DEV_CLUSTER, PIPELINE, pipelineDocument } from '../verifier/world.js';

/** Both handlers run in this process, as one function would: the name is the one Lambda would set. */
const FUNCTION_NAME = 'PipelineControllerStack-ControllerFunction1A2B3C-AbCdEf';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const MASTER_KEY = 'master-key-for-the-handler-test';

let dynamo: LocalDynamo;
let sqs: FauxqsServer;
let aws: AwsStandIn;
let store: Store;
let restoreDns: () => void;
const savedEnvironment = { ...process.env };

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe("the functions' handlers and what they measure", () => {
  before(async () => {
    dynamo = await startDynalite();
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName, retentionDays: 90 });
    aws = await startAwsStandIn();
    const secrets = new SecretsManagerClient({ endpoint: aws.endpoint, region: 'us-east-1', credentials: CREDENTIALS });
    const masterKey = await secrets.send(
      new CreateSecretCommand({ Name: 'master-key', SecretString: JSON.stringify({ current: MASTER_KEY }) }),
    );
    secrets.destroy();
    sqs = await startFauxqs({ port: 0, logger: false });
    // The function's SQS client sends to the queue URL's host, `sqs.<region>.localhost`: resolved to 127.0.0.1 here.
    restoreDns = interceptLocalhostDns();
    const endpoint = `http://127.0.0.1:${sqs.port}`;
    const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
    const queueUrl = async (name: string) => (await client.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl;
    const urls = { queue: await queueUrl('queue'), deadLetters: await queueUrl('dead-letters') };
    client.destroy();
    Object.assign(process.env, {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      // The queue URLs' own host, so the SDK has no other endpoint to warn about.
      AWS_ENDPOINT_URL_SQS: `http://sqs.us-east-1.localhost:${sqs.port}`,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
      AWS_LAMBDA_FUNCTION_NAME: FUNCTION_NAME,
      POWERTOOLS_METRICS_NAMESPACE: 'PipelineController',
      TABLE_NAME: dynamo.tableName,
      QUEUE_URL: urls.queue,
      DEAD_LETTER_QUEUE_URL: urls.deadLetters,
      MASTER_KEY_SECRET_ID: masterKey.ARN,
    });
    delete process.env.POWERTOOLS_DEV;
    delete process.env.POWERTOOLS_METRICS_DISABLED;
  });

  after(async () => {
    process.env = savedEnvironment;
    restoreDns();
    await aws.stop();
    await sqs.stop();
    await dynamo.stop();
  });

  /** Runs `work`, keeping the JSON lines written to stdout (EMF and Powertools' log lines); anything else goes through. */
  async function jsonLinesOf<T>(work: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
    const kept: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      if (typeof chunk === 'string' && chunk.startsWith('{')) return kept.push(chunk) > 0;
      return write(chunk, ...rest);
    };
    try {
      const result = await work();
      return {
        result,
        lines: kept
          .flatMap((chunk) => chunk.split('\n').filter(Boolean))
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      };
    } finally {
      process.stdout.write = write;
    }
  }

  type EmfLine = Record<string, unknown> & {
    _aws: {
      CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
    };
  };
  const emfLines = (lines: Record<string, unknown>[]) => lines.filter((line): line is EmfLine => '_aws' in line);

  describe('the receiver Lambda', () => {
    const cluster: GitopsClusterDocument = {
      apiVersion: 'gitops.weave.works/v1alpha1',
      kind: 'GitopsCluster',
      metadata: { ...DEV_CLUSTER },
      spec: { secretRef: { name: 'dev-kubeconfig' } },
    };
    const flux = (signingKey: string) => ({
      version: '2.0',
      routeKey: '$default',
      rawPath: `/v1/events/${DEV_CLUSTER.namespace}/${DEV_CLUSTER.name}`,
      rawQueryString: '',
      headers: {
        'content-type': 'application/json',
        'x-signature': signatureHeader(EVENT_A_HELM_UPGRADE, signingKey),
      },
      body: EVENT_A_HELM_UPGRADE,
      isBase64Encoded: false,
      requestContext: functionUrlRequestContext('POST', `/v1/events/${DEV_CLUSTER.namespace}/${DEV_CLUSTER.name}`),
    });

    it('an enqueued event, then a forged one: one EMF line each, the rejection under its reason', async () => {
      await store.applyCluster(cluster, new Date());
      const document = pipelineDocument();
      await store.applyPipeline(document, resolvePipeline(document), new Date());
      const handler = receiverHandler();

      const accepted = await jsonLinesOf(() => handler(flux(deriveClusterKey(MASTER_KEY, DEV_CLUSTER))));
      const forged = await jsonLinesOf(() => handler(flux('not-the-cluster-key')));

      assert.deepEqual([accepted.result.statusCode, forged.result.statusCode], [202, 401]);
      const [enqueued, ...moreAccepted] = emfLines(accepted.lines);
      assert.deepEqual(moreAccepted, []);
      assert.deepEqual(enqueued?._aws.CloudWatchMetrics, [
        {
          Namespace: 'PipelineController',
          Dimensions: [['service']],
          Metrics: [
            { Name: 'EventsReceived', Unit: 'Count' },
            { Name: 'EventsEnqueued', Unit: 'Count' },
          ],
        },
      ]);
      assert.equal(enqueued?.service, FUNCTION_NAME);
      const rejected = emfLines(forged.lines).map((line) => ({
        dimensions: line._aws.CloudWatchMetrics[0]?.Dimensions,
        metrics: line._aws.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name),
        reason: line.Reason,
      }));
      assert.deepEqual(
        rejected.sort((a, b) => String(a.reason).localeCompare(String(b.reason))),
        [
          { dimensions: [['service', 'Reason']], metrics: ['EventsRejected'], reason: 'bad-signature' },
          { dimensions: [['service']], metrics: ['EventsReceived'], reason: undefined },
        ],
      );
    });
  });

  describe('the poller Lambda', () => {
    it('writes one EMF line per run, with the poll and the waiting approvals, named after the function', async () => {
      const document = pipelineDocument({ manual: true });
      const now = new Date();
      await store.applyPipeline(document, resolvePipeline(document), now);
      await store.requestApproval(PIPELINE, 'prod', '6.9.2', new Date(now.getTime() - 3_600_000));

      const { result, lines } = await jsonLinesOf(() => pollerHandler()());

      assert.deepEqual(result, { polls: 2 }, 'one poll per cluster the pipeline uses (dev, prod)');
      const emf = emfLines(lines);
      assert.equal(emf.length, 1);
      const directive = emf[0]?._aws.CloudWatchMetrics[0];
      assert.equal(directive?.Namespace, 'PipelineController');
      assert.deepEqual(directive?.Metrics, [
        { Name: 'PollDuration', Unit: 'Milliseconds' },
        { Name: 'PollsEnqueued', Unit: 'Count' },
        { Name: 'ApprovalsWaiting', Unit: 'Count' },
        { Name: 'OldestApprovalAge', Unit: 'Seconds' },
      ]);
      const values: Record<string, unknown> = emf[0] ?? {};
      assert.equal(values.service, FUNCTION_NAME);
      assert.equal(values.PollsEnqueued, 2);
      assert.equal(values.ApprovalsWaiting, 1);
      assert.ok(
        Math.abs((values.OldestApprovalAge as number) - 3600) < 60,
        `about an hour: ${String(values.OldestApprovalAge)}`,
      );
      assert.equal(typeof values.PollDuration, 'number');
    });
  });
});
