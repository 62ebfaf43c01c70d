// A ConfigSource on the AWS side, with the functions' adapters against the stand-ins: the table on dynalite, the
// work queue on fauxqs, the source's token in Secrets Manager (test/support/aws-stand-in.ts), the repository on the
// fake GitHub. The poller sends one sync per source, the verifier takes it from the queue as its Lambda does
// (consumeBatch over an SQS batch) and applies the folder; a poll with no new commit writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { applyConfiguration } from '../../lib/apply/index.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { consumeBatch, SqsDeadLetters, SqsQueue } from '../../lib/queue/index.js';
import { assembleVerifier } from '../../lib/runtime/assemble-verifier.js';
import { secretKeyNames } from '../../lib/secrets/port.js';
import { SecretsManagerSecretSource } from '../../lib/secrets/secrets-manager.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';

const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const PREFIX = 'pipeline-controller/';
const SOURCE = { namespace: 'flux-system', name: 'fleet' };

const PIPELINES = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod-eu, namespace: flux-system}
spec: {eks: {clusterName: prod-eu, region: eu-west-1}}
---
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: staging
      targets: [{namespace: staging, clusterRef: {kind: GitopsCluster, name: prod-eu}}]
    - name: prod
      targets: [{namespace: prod, clusterRef: {kind: GitopsCluster, name: prod-eu}}]
`;

describe('a ConfigSource on the AWS stand-ins', () => {
  let dynamo: LocalDynamo;
  let fauxqs: FauxqsServer;
  let aws: AwsStandIn;
  let github: FakeGitHub;
  let sqs: SQSClient;
  let secretsManager: SecretsManagerClient;
  let store: Store;
  let queueUrl: string;
  let verifier: ReturnType<ReturnType<typeof assembleVerifier>>;
  let queue: SqsQueue;
  let deadLetters: SqsDeadLetters;

  before(async () => {
    [dynamo, fauxqs, aws, github] = await Promise.all([
      startDynalite(),
      startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }),
      startAwsStandIn(),
      FakeGitHub.start(),
    ]);
    github.createRepository('acme', 'fleet', { 'pipelines/podinfo.yaml': PIPELINES });
    sqs = new SQSClient({ endpoint: `http://127.0.0.1:${fauxqs.port}`, region, credentials });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
    const deadLettersUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'dead' }))).QueueUrl ?? '';
    secretsManager = new SecretsManagerClient({ endpoint: aws.endpoint, region, credentials });
    // As `pipelinectl apply --aws` leaves it: the token under the prefix, tagged for the ConfigSource.
    await secretsManager.send(
      new CreateSecretCommand({
        Name: `${PREFIX}flux-system/fleet-config`,
        SecretString: JSON.stringify({ token: github.token }),
        Tags: [{ Key: 'pipeline-controller:purpose', Value: 'config-source' }],
      }),
    );
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    queue = new SqsQueue({ client: sqs, queueUrl });
    const secrets = new SecretsManagerSecretSource({ client: secretsManager, prefix: PREFIX });
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    verifier = assembleVerifier({
      store,
      queue,
      secrets,
      logger,
      now: () => new Date(),
      promotion: { githubApiUrl: github.url },
    })('test-worker');
    deadLetters = new SqsDeadLetters({ client: sqs, queueUrl: deadLettersUrl });
    const applied = await applyConfiguration(
      {
        description: 'the stand-in stack',
        store,
        putSecret: () => Promise.reject(new Error('no Secret in this configuration')),
        secretKeys: (key) => secretKeyNames(secrets, key),
        enqueue: async (message) => {
          await queue.send(message);
          return true;
        },
        identity: () => Promise.resolve('arn:aws:iam::123456789012:user/platform'),
      },
      {
        source: {
          text: `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: {name: fleet, namespace: flux-system}
spec: {url: 'https://github.com/acme/fleet', branch: main, path: pipelines, secretRef: {name: fleet-config}}
`,
          file: 'fleet-source.yaml',
        },
      },
    );
    assert.ok(applied.ok, JSON.stringify(applied));
  });

  after(async () => {
    sqs.destroy();
    secretsManager.destroy();
    await Promise.all([dynamo.stop(), fauxqs.stop(), aws.stop(), github.stop()]);
  });

  /** Every message in the queue handed to the verifier as the Lambda's event source would, until it is empty. */
  async function drain(): Promise<string[]> {
    const types: string[] = [];
    for (;;) {
      const received = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, AttributeNames: ['All'] }),
      );
      const messages: Message[] = received.Messages ?? [];
      if (messages.length === 0) return types;
      const event = { Records: messages.map(sqsRecord) } as SQSEvent;
      const result = await consumeBatch(event, verifier, { deadLetters });
      assert.deepEqual(result.batchItemFailures, []);
      for (const message of messages) {
        types.push((JSON.parse(message.Body ?? '{}') as { type: string }).type);
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      }
    }
  }

  it('applies the folder from the sync the apply and the poller send, and a steady poll writes nothing', async () => {
    // The sync the apply sent, then the check of the pipeline it applied.
    assert.deepEqual(await drain(), ['sync-config-source', 'check-pipeline']);
    const head = github.ref('acme', 'fleet', 'main');
    const stored = await store.getConfigSource(SOURCE);
    assert.equal(stored?.status.lastAppliedRevision, `main@sha1:${head}`);
    assert.deepEqual((await store.getPipeline({ namespace: 'flux-system', name: 'podinfo' }))?.owner, {
      configSource: SOURCE,
      revision: `main@sha1:${head}`,
    });

    await enqueuePolls({ store, queue });
    github.resetRequests();
    const before = JSON.stringify(await store.getConfigSource(SOURCE));
    const handled = await drain();
    assert.ok(handled.includes('sync-config-source'), handled.join(', '));
    assert.equal(github.count(), 1, 'one request: the branch head');
    assert.equal(JSON.stringify(await store.getConfigSource(SOURCE)), before, 'nothing written');

    github.commitFiles('acme', 'fleet', 'main', {
      'pipelines/podinfo.yaml': PIPELINES.replace('namespace: prod,', 'namespace: production,'),
    });
    await enqueuePolls({ store, queue });
    await drain();
    const after = await store.getConfigSource(SOURCE);
    assert.equal(after?.status.lastAppliedRevision, `main@sha1:${github.ref('acme', 'fleet', 'main')}`);
  });
});

function sqsRecord(message: Message) {
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: { ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1' },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:work',
    awsRegion: region,
  };
}
