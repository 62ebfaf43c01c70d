// The AWS side of the controller in one process, for bench/cost-per-event.ts: the receiver's `handleRequest` and the
// verifier (`createVerifier` under `consumeBatch`, as lib/runtime/verifier.ts runs it) on the real adapters, a
// DynamoDB store on dynalite and an SqsQueue on fauxqs, with leaf clusters that are fake Kubernetes API servers. The
// Lambda event source mapping is played by `runEventSourceMapping`: ReceiveMessage (batch of up to 10), the batch
// handed to `consumeBatch`, DeleteMessageBatch of the records that did not fail, as Lambda does.
//
// Every DynamoDB request is counted by operation and by side (receiver or verifier), and made with
// `ReturnConsumedCapacity: 'TOTAL'` so that dynalite reports the capacity units it would consume (dynalite follows
// DynamoDB's rules: reads in 4 KB units, halved when eventually consistent; writes in 1 KB units, the larger of the
// old and new item). Every SQS request is counted by operation and side too.
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { KubernetesClusterReader } from '../lib/clusters/index.js';
import type { PipelineDocument } from '../lib/config/schema.js';
import { deriveClusterKey, handleRequest, signatureHeader } from '../lib/http/index.js';
import { resolvePipeline } from '../lib/pipeline/model.js';
import { enqueuePolls } from '../lib/poller/poller.js';
import { RecordingPromoter } from '../lib/testing/recording-promoter.js';
import { consumeBatch, SqsDeadLetters, SqsQueue, toSqsRecord } from '../lib/queue/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { createDynamoStore, type Store } from '../lib/store/index.js';
import { FakeKubeApi } from '../lib/testing/fake-kube-api.js';
import { createVerifier, DEFAULT_SETTINGS, RecentReads } from '../lib/verifier/index.js';
import { applyFakeClusters } from '../test/loop/harness.js';
import { countCapacityUnits, READ_OPERATIONS, WRITE_OPERATIONS, type CapacityUnits } from './dynamo.js';
import { startDynalite } from '../test/support/dynalite.js';
import { approximateQueueDepth } from '../test/support/sqs-depth.js';
import { silentLogger } from '../lib/logging/logger.js';

export type Side = 'receiver' | 'verifier' | 'setup';

/** What one side sent to DynamoDB: requests and capacity units by operation. */
export interface DynamoUsage extends CapacityUnits {
  /** Requests by operation, e.g. `GetItem` → 2. */
  requests: Map<string, number>;
  readRequests: number;
  writeRequests: number;
}

export interface Usage {
  dynamo: Record<Side, DynamoUsage>;
  /** SQS requests by side and operation. */
  sqs: Record<Side, Map<string, number>>;
}

const emptyDynamoUsage = (): DynamoUsage => ({
  requests: new Map(),
  readRequests: 0,
  writeRequests: 0,
  readUnits: 0,
  writeUnits: 0,
  failedConditionalWrites: 0,
  emptyQueries: 0,
});

const emptyUsage = (): Usage => ({
  dynamo: { receiver: emptyDynamoUsage(), verifier: emptyDynamoUsage(), setup: emptyDynamoUsage() },
  sqs: { receiver: new Map(), verifier: new Map(), setup: new Map() },
});

export const MASTER_KEY = 'bench-master-key';

export interface AwsWorld {
  store: Store;
  promoter: RecordingPromoter;
  cluster(name: string): FakeKubeApi;
  /** What was sent since the last `resetUsage`. */
  usage(): Usage;
  resetUsage(): void;
  /** POSTs a Flux event for `cluster` to the receiver, signed with its derived key; the HTTP status. */
  deliverEvent(cluster: string, body: string): Promise<number>;
  /** One poll of the event source mapping: the number of messages it received and handed to the verifier. */
  runEventSourceMapping(waitSeconds?: number): Promise<number>;
  /** Runs the poller once and the event source mapping until the queue is empty (setting the scene). */
  pollAndDrain(): Promise<void>;
  /** Messages visible, in flight or delayed (through an uncounted client). */
  queueDepth(): Promise<number>;
  stop(): Promise<void>;
}

export async function startAwsWorld(pipeline: PipelineDocument, clusterNames: readonly string[]): Promise<AwsWorld> {
  let usage = emptyUsage();
  let side: Side = 'setup';

  // DynamoDB: dynalite, every request asking for its consumed capacity.
  const dynamo = await startDynalite();
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const counted = usage.dynamo[side];
      counted.requests.set(operation, (counted.requests.get(operation) ?? 0) + 1);
      if (WRITE_OPERATIONS.has(operation)) counted.writeRequests++;
      else if (READ_OPERATIONS.has(operation)) counted.readRequests++;
      return next(args);
    },
    { step: 'initialize', name: 'benchRequests' },
  );
  countCapacityUnits(dynamo.client, () => usage.dynamo[side]);
  const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });

  // SQS: fauxqs with the queue and its DLQ, as the CDK stack declares them.
  const fauxqs = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const sqsClient = (counted: boolean) => {
    const client = new SQSClient({
      endpoint: `http://127.0.0.1:${fauxqs.port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    });
    if (counted) {
      client.middlewareStack.add(
        (next, context) => (args) => {
          const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
          const bySide = usage.sqs[side];
          bySide.set(operation, (bySide.get(operation) ?? 0) + 1);
          return next(args);
        },
        { step: 'initialize', name: 'benchCountSqs' },
      );
    }
    return client;
  };
  const sqs = sqsClient(true);
  const inspector = sqsClient(false);
  const dlqUrl = (await inspector.send(new CreateQueueCommand({ QueueName: 'verifier-dlq' }))).QueueUrl ?? '';
  const dlqArn =
    (await inspector.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes
      ?.QueueArn ?? '';
  const queueUrl =
    (
      await inspector.send(
        new CreateQueueCommand({
          QueueName: 'verifier',
          Attributes: {
            VisibilityTimeout: '360',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 5 }),
          },
        }),
      )
    ).QueueUrl ?? '';
  const queueArn =
    (await inspector.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })))
      .Attributes?.QueueArn ?? '';
  const queue = new SqsQueue({ client: sqs, queueUrl });
  const deadLetters = new SqsDeadLetters({ client: sqs, queueUrl: dlqUrl });

  // Leaf clusters, their kubeconfig Secrets, and the configuration in the store.
  const fakes = new Map<string, FakeKubeApi>();
  for (const name of clusterNames) fakes.set(name, await new FakeKubeApi().start());
  const secrets = new StaticSecretSource();
  const now = new Date();
  await applyFakeClusters(store, secrets, fakes, now);
  secrets.set({ namespace: 'flux-system', name: 'webhook-hmac' }, { 'hmac-key': 'bench-webhook-key' });
  await store.applyPipeline(pipeline, resolvePipeline(pipeline), now);

  // As lib/runtime/assemble-verifier.ts builds it: cluster registrations remembered for 30 s in a warm container, and
  // handed over by the poll messages that carry them.
  const registrations = new RecentReads(
    async (key) => (await store.getCluster(key))?.document,
    DEFAULT_SETTINGS.pollPipelineMaxAgeMs,
    () => new Date(),
  );
  const clusters = new KubernetesClusterReader({
    getCluster: (key) => registrations.get(key),
    secrets,
    timeoutMs: 5000,
  });
  const promoter = new RecordingPromoter();
  const verifier = createVerifier({
    store,
    queue,
    clusters,
    promoter,
    logger: silentLogger,
    now: () => new Date(),
    workerId: 'bench-verifier',
    clusterRegistrations: registrations,
  });

  const deliverEvent = async (cluster: string, body: string): Promise<number> => {
    side = 'receiver';
    try {
      const key = deriveClusterKey(MASTER_KEY, { namespace: 'flux-system', name: cluster });
      const response = await handleRequest(
        {
          method: 'POST',
          path: `/v1/events/flux-system/${cluster}`,
          headers: {
            'content-type': 'application/json',
            'gotk-component': 'helm-controller',
            'x-signature': signatureHeader(body, key),
          },
          body: Buffer.from(body),
        },
        { store, queue, secrets, masterKeys: () => Promise.resolve({ current: MASTER_KEY }), logger: silentLogger },
      );
      return response.statusCode;
    } finally {
      side = 'setup';
    }
  };

  const runEventSourceMapping = async (waitSeconds = 1): Promise<number> => {
    side = 'verifier';
    try {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: waitSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) return 0;
      const records = Messages.map((message) => toSqsRecord(message, queueArn));
      const response = await consumeBatch({ Records: records }, verifier, { deadLetters, logger: silentLogger });
      const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      const done = records.filter((record) => !failed.has(record.messageId));
      if (done.length > 0) {
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: done.map((record, i) => ({ Id: String(i), ReceiptHandle: record.receiptHandle })),
          }),
        );
      }
      if (failed.size > 0) throw new Error(`${failed.size} message(s) failed in the verifier`);
      return Messages.length;
    } finally {
      side = 'setup';
    }
  };

  const queueDepth = () => approximateQueueDepth(inspector, queueUrl);

  const pollAndDrain = async (): Promise<void> => {
    await enqueuePolls({ store, queue });
    while ((await queueDepth()) > 0) await runEventSourceMapping(0);
  };

  return {
    store,
    promoter,
    cluster: (name) => {
      const fake = fakes.get(name);
      if (!fake) throw new Error(`no fake cluster ${name}`);
      return fake;
    },
    usage: () => usage,
    resetUsage: () => {
      usage = emptyUsage();
    },
    deliverEvent,
    runEventSourceMapping,
    pollAndDrain,
    queueDepth,
    stop: async () => {
      for (const fake of fakes.values()) await fake.stop();
      sqs.destroy();
      inspector.destroy();
      await fauxqs.stop();
      await dynamo.stop();
    },
  };
}
