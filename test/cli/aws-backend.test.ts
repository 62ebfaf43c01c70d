// The CLI's AWS backend, in this process, against stand-ins that speak the services' wire protocols: dynalite for
// DynamoDB, fauxqs for SQS, and test/support/aws-stand-in.ts for Secrets Manager, STS and CloudFormation. The real
// SDK clients are pointed at them; the backend finds the table and queues through the stack's outputs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { approveRevision } from '../../lib/cli/operations/approve.js';
import { freezePromotions, readFreezeFlags } from '../../lib/cli/operations/freeze.js';
import { rejectRevision } from '../../lib/cli/operations/reject.js';
import { unfreezePromotions } from '../../lib/cli/operations/unfreeze.js';
import { fluxConfig } from '../../lib/cli/operations/flux-config.js';
import type { Backend } from '../../lib/cli/backend.js';
import { openAwsBackend, type AwsClients } from '../../lib/cli/backends/aws.js';
import { CliError } from '../../lib/cli/errors.js';
import { deriveClusterKey } from '../../lib/signing/hmac.js';
import { decodeMessage } from '../../lib/queue/messages.js';
import { SqsDeadLetters } from '../../lib/queue/sqs.js';
import { SECRET_PURPOSE_TAG } from '../../lib/secrets/tags.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { tempFiles } from '../support/temp-files.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS, seed } from './fixtures.js';
import { runCli } from '../support/pipelinectl.js';

const STACK = 'PipelineControllerStack';
const PREFIX = 'pipeline-controller/';
const MASTER_KEY_ID = 'pipeline-controller-master-key';
const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

let dynamo: LocalDynamo;
let sqsServer: FauxqsServer;
let aws: AwsStandIn;
let clients: AwsClients;
let sqs: SQSClient;
let queueUrl = '';
let deadLetterQueueUrl = '';

// One suite around the file: its hooks then run around its own tests only, in a process it shares with other
// files (test/support/run.mjs).
describe('pipelinectl on a deployed stack (--aws)', () => {
  before(async () => {
    [dynamo, sqsServer, aws] = await Promise.all([
      startDynalite(),
      startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }),
      startAwsStandIn(),
    ]);
    // Always an explicit endpoint for SQS: fauxqs's queue URLs name a host that does not resolve.
    sqs = new SQSClient({ endpoint: `http://127.0.0.1:${sqsServer.port}`, region, credentials });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
    deadLetterQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work-dlq' }))).QueueUrl ?? '';
    aws.stacks.set(STACK, {
      ReceiverUrl: 'https://abc.lambda-url.us-east-1.on.aws/',
      TableName: dynamo.tableName,
      QueueUrl: queueUrl,
      DeadLetterQueueUrl: deadLetterQueueUrl,
      MasterKeySecretArn: MASTER_KEY_ID,
    });
    aws.secrets.set(MASTER_KEY_ID, {
      name: MASTER_KEY_ID,
      arn: `arn:aws:secretsmanager:${region}:123456789012:secret:${MASTER_KEY_ID}-AbCdEf`,
      value: JSON.stringify({ current: 'aws-master-key' }),
      tags: new Map(),
      versions: 1,
    });
    const config = { endpoint: aws.endpoint, region, credentials };
    clients = {
      dynamodb: dynamo.client,
      sqs,
      secretsManager: new SecretsManagerClient(config),
      cloudFormation: new CloudFormationClient(config),
      sts: new STSClient(config),
    };
  });

  after(async () => {
    clients.secretsManager?.destroy();
    clients.cloudFormation?.destroy();
    clients.sts?.destroy();
    sqs.destroy();
    await Promise.all([dynamo.stop(), sqsServer.stop(), aws.stop()]);
  });

  const open = () => openAwsBackend({ stack: STACK, secretsPrefix: PREFIX }, clients);

  async function drain(url: string): Promise<string[]> {
    const bodies: string[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (Messages.length === 0) return bodies;
      bodies.push(...Messages.map((message) => message.Body ?? ''));
    }
  }

  const purposeTag = (name: string) => aws.secrets.get(`${PREFIX}${name}`)?.tags.get(SECRET_PURPOSE_TAG);

  describe('the AWS backend', { concurrency: false }, () => {
    let backend: Backend;
    before(async () => {
      backend = await open();
    });
    after(() => backend.close());

    it('reads the table and queues from the stack outputs, and says which stack it acts on', () => {
      assert.equal(backend.description, `stack ${STACK} (table ${dynamo.tableName})`);
      assert.ok(aws.calls.includes(`CloudFormation.DescribeStacks ${STACK}`));
      assert.equal(backend.defaultCluster, undefined, 'the stack has no DefaultCluster output');
    });

    it("the default cluster comes from the stack's DefaultCluster output unless --default-cluster names one", async () => {
      const outputs = aws.stacks.get(STACK) ?? {};
      aws.stacks.set(STACK, { ...outputs, DefaultCluster: 'flux-system/management' });
      try {
        const fromStack = await open();
        assert.deepEqual(fromStack.defaultCluster, { namespace: 'flux-system', name: 'management' });
        await fromStack.close();
        const given = { namespace: 'flux-system', name: 'prod' };
        const fromFlag = await openAwsBackend({ stack: STACK, secretsPrefix: PREFIX, defaultCluster: given }, clients);
        assert.deepEqual(fromFlag.defaultCluster, given);
        await fromFlag.close();
      } finally {
        aws.stacks.set(STACK, outputs);
      }
    });

    it('apply: Secrets in Secrets Manager as JSON, tagged by use; a check-pipeline on the queue', async (t) => {
      const root = await tempFiles(t, {
        'clusters.yaml': CLUSTERS,
        'secrets.yaml': SECRETS,
        'pipeline.yaml': pipeline('apps'),
      });
      const result = await applyConfiguration(backend, { source: { paths: [root] } });
      assert.ok(result.ok, JSON.stringify(result));
      assert.ok(result.lines.includes('pipeline flux-system/podinfo created'));
      assert.deepEqual(JSON.parse(aws.secrets.get(`${PREFIX}flux-system/github`)?.value ?? ''), { token: 'ghp_test' });
      assert.equal(purposeTag('flux-system/webhook-hmac'), 'webhook-hmac');
      assert.equal(purposeTag('flux-system/github'), 'git-credentials');
      assert.equal(purposeTag('flux-system/dev-kubeconfig'), 'kubeconfig');
      const bodies = await drain(queueUrl);
      assert.deepEqual(
        bodies.map((body) => decodeMessage(body)),
        [{ ok: true, message: { type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: true } }],
      );

      // Again: nothing changes, no new secret version, no tag written, no message.
      aws.calls.length = 0;
      const again = await applyConfiguration(backend, { source: { paths: [root] } });
      assert.ok(again.ok);
      assert.ok(again.lines.includes('pipeline flux-system/podinfo unchanged'));
      assert.deepEqual(
        aws.calls.filter((call) => /PutSecretValue|CreateSecret|TagResource|UntagResource/.test(call)),
        [],
      );
      assert.deepEqual(await drain(queueUrl), []);
    });

    it('refuses a Secret used as the webhook HMAC key and for anything else, and writes nothing', async (t) => {
      const shared = pipeline('apps').replace('secretRef: { name: github }', 'secretRef: { name: webhook-hmac }');
      const root = await tempFiles(t, {
        'secrets.yaml': SECRETS.replace('hmac-key: not-so-secret', 'hmac-key: not-so-secret, token: t2'),
        'pipeline.yaml': shared,
      });
      aws.calls.length = 0;
      const result = await applyConfiguration(backend, { source: { paths: [root] } });
      assert.equal(result.ok, false);
      assert.ok(!result.ok);
      assert.equal(result.problems.length, 1);
      assert.match(
        result.problems[0] ?? '',
        /secrets\.yaml:\d+: Secret flux-system\/webhook-hmac: it would hold the webhook HMAC key \(webhook-hmac\) and git-credentials: .*split it into one Secret per use; used by Pipeline flux-system\/podinfo \(webhook-hmac\), Pipeline flux-system\/podinfo \(git-credentials\)/,
      );
      assert.deepEqual(
        aws.calls.filter((call) => /PutSecretValue|CreateSecret|TagResource|UntagResource/.test(call)),
        [],
      );
      // The backend refuses it too, whoever calls it.
      await assert.rejects(
        backend.putSecret({ namespace: 'apps', name: 'both' }, { 'hmac-key': 'k' }, ['webhook-hmac', 'kubeconfig']),
        (error) => error instanceof CliError && /split it/.test(error.message),
      );
    });

    it('re-marks a Secret applied earlier when the pipelines using it change, untagging before a new value', async (t) => {
      // The pipeline stops using webhook-hmac as its HMAC key: the stored Secret loses the tag.
      const root = await tempFiles(t, {
        'pipeline.yaml': pipeline('apps').replace(/\n {6}secretRef: \{ name: webhook-hmac \}/, ''),
      });
      const result = await applyConfiguration(backend, { source: { paths: [root] } });
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.lines, [
        'pipeline flux-system/podinfo configured',
        'secret flux-system/webhook-hmac no longer marked for any use',
      ]);
      assert.equal(purposeTag('flux-system/webhook-hmac'), undefined);
      await drain(queueUrl);

      // The Secret now holds Git credentials: the tag changes before the value does, never after.
      aws.calls.length = 0;
      await backend.putSecret({ namespace: 'flux-system', name: 'github' }, { token: 'new' }, ['webhook-hmac']);
      const writes = aws.calls.filter((call) => /PutSecretValue|TagResource/.test(call));
      assert.deepEqual(writes, [
        `SecretsManager.PutSecretValue ${PREFIX}flux-system/github`,
        `SecretsManager.TagResource ${PREFIX}flux-system/github`,
      ]);
      aws.calls.length = 0;
      await backend.putSecret({ namespace: 'flux-system', name: 'github' }, { token: 'newer' }, ['git-credentials']);
      assert.deepEqual(
        aws.calls.filter((call) => /PutSecretValue|TagResource/.test(call)),
        [
          `SecretsManager.TagResource ${PREFIX}flux-system/github`,
          `SecretsManager.PutSecretValue ${PREFIX}flux-system/github`,
        ],
      );
      assert.equal(purposeTag('flux-system/github'), 'git-credentials');
      assert.deepEqual(await backend.secretKeys({ namespace: 'flux-system', name: 'github' }), ['token']);
      assert.equal(await backend.secretKeys({ namespace: 'flux-system', name: 'none' }), undefined);
    });

    it('approve: recorded under the caller ARN from STS, and a promote message on the queue', async () => {
      await seed(backend.store);
      const result = await approveRevision(backend, PIPELINE, 'staging', undefined);
      assert.deepEqual(result, {
        outcome: 'approved',
        revision: '6.9.2',
        by: 'arn:aws:iam::123456789012:user/alice',
        at: result.at,
        delivered: true,
        have: 1,
        need: 1,
      });
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      assert.equal(marker?.approvedBy, result.by);
      assert.equal(marker?.approvedAt, result.at, 'the approval is reported at the time the marker records');
      assert.deepEqual(
        (await drain(queueUrl)).map((body) => decodeMessage(body)),
        [{ ok: true, message: { type: 'promote', pipeline: PIPELINE, env: 'staging', revision: '6.9.2' } }],
      );
    });

    it('the CLI itself: status --aws, the stack named by PIPELINES_STACK, the region by --region', async () => {
      // The SDK's own endpoint variables point the CLI's clients at the stand-ins (SQS is not needed for status).
      const run = await runCli(['status', 'flux-system/podinfo', '--aws', '--region', region, '-o', 'json'], {
        env: {
          PIPELINES_STACK: STACK,
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          AWS_ENDPOINT_URL_CLOUDFORMATION: aws.endpoint,
          AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        },
      });
      assert.equal(run.code, 0, run.stderr);
      const status = JSON.parse(run.stdout) as StatusJson;
      const staging = status.pipelines[0]?.environments.find((env) => env.name === 'staging');
      assert.equal(status.pipelines[0]?.candidate, '6.9.2');
      assert.equal(staging?.approval?.approvedBy, 'arn:aws:iam::123456789012:user/alice');
      assert.equal(staging?.approval?.waiting, false);
    });

    it('flux-config: the token is derived from the master key the stack names', async () => {
      const text = await fluxConfig(backend, {
        cluster: { namespace: 'flux-system', name: 'dev' },
        url: 'https://abc.lambda-url.us-east-1.on.aws/',
      });
      const token = deriveClusterKey('aws-master-key', { namespace: 'flux-system', name: 'dev' });
      assert.match(text, new RegExp(`token: ${token}\\n`));
      assert.match(text, /address: https:\/\/abc\.lambda-url\.us-east-1\.on\.aws\/v1\/events\/flux-system\/dev\n/);
    });

    it('freeze, unfreeze and reject on a stack: the switch in the table, who from STS, the re-check on the queue', async () => {
      await drain(queueUrl);
      const now = new Date();
      const frozen = await freezePromotions(
        backend,
        { pipeline: PIPELINE },
        readFreezeFlags({ env: 'prod', reason: 'incident 4711', until: '2h', windows: [] }, now),
        now,
      );
      assert.equal(frozen.freeze.by, 'arn:aws:iam::123456789012:user/alice');
      assert.deepEqual(
        (await backend.store.listFreezes()).map(({ env, reason, by }) => ({ env, reason, by })),
        [{ env: 'prod', reason: 'incident 4711', by: 'arn:aws:iam::123456789012:user/alice' }],
      );
      const lifted = await unfreezePromotions(backend, { pipeline: PIPELINE }, 'prod');
      assert.equal(lifted.removed.length, 1);
      assert.deepEqual(await backend.store.listFreezes(), []);
      assert.deepEqual(
        (await drain(queueUrl)).map((body) => decodeMessage(body)),
        [{ ok: true, message: { type: 'check-pipeline', pipeline: PIPELINE, cause: 'unfreeze', readTargets: false } }],
        'unfreeze re-checks the pipeline through SQS',
      );
      const trail = await backend.store.listAudit(PIPELINE, { limit: 10 });
      assert.deepEqual(
        trail.items.filter((entry) => entry.type.startsWith('freeze')).map(({ type, actor }) => `${type} ${actor}`),
        ['freeze-cleared arn:aws:iam::123456789012:user/alice', 'freeze-set arn:aws:iam::123456789012:user/alice'],
      );

      assert.equal(await backend.store.requestApproval(PIPELINE, 'staging', '6.9.3', new Date()), 'requested');
      const rejected = await rejectRevision(backend, PIPELINE, 'staging', undefined, 'breaks checkout');
      assert.equal(rejected.outcome, 'rejected');
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      assert.equal(marker?.rejectedBy, 'arn:aws:iam::123456789012:user/alice');
      assert.equal(marker?.rejectionReason, 'breaks checkout');
    });

    it('dlq list shows the dead letters without their bodies and leaves them; redrive moves the valid ones', async () => {
      await sqs.send(new PurgeQueueCommand({ QueueUrl: deadLetterQueueUrl }));
      const promote = { type: 'promote', pipeline: PIPELINE, env: 'prod', revision: '6.9.2' } as const;
      await sqs.send(
        new SendMessageCommand({ QueueUrl: deadLetterQueueUrl, MessageBody: JSON.stringify({ v: 1, ...promote }) }),
      );
      await new SqsDeadLetters({ client: sqs, queueUrl: deadLetterQueueUrl }).deadLetter(
        '{"secret":"do-not-show"',
        'malformed JSON',
        { messageId: 'source-1', receiveCount: 1 },
      );
      const deadLetters = backend.deadLetters;
      assert.ok(deadLetters);

      const listed = await deadLetters.list(50);
      assert.equal(listed.length, 2);
      const byKind = new Map(listed.map((letter) => [letter.summary === 'undecodable' ? 'bad' : 'good', letter]));
      assert.equal(byKind.get('good')?.summary, 'promote flux-system/podinfo prod 6.9.2');
      assert.equal(byKind.get('good')?.reason, undefined);
      assert.equal(byKind.get('bad')?.reason, 'malformed JSON');
      assert.equal(byKind.get('bad')?.receiveCount, 1);
      assert.doesNotMatch(JSON.stringify(listed), /do-not-show/);
      assert.equal((await deadLetters.list(1)).length, 1, '--max is honoured');
      assert.equal((await deadLetters.list(50)).length, 2, 'listing leaves the messages in the queue');

      assert.deepEqual(await deadLetters.redrive(), { moved: 1, undecodable: 1 });
      assert.deepEqual(
        (await drain(queueUrl)).map((body) => decodeMessage(body)),
        [{ ok: true, message: promote }],
      );
      const left = await deadLetters.list(50);
      assert.deepEqual(
        left.map((letter) => letter.summary),
        ['undecodable'],
      );
    });
  });

  describe('opening the AWS backend', () => {
    it('fails with one clear line when the stack does not exist or names nothing', async () => {
      await assert.rejects(
        openAwsBackend({ stack: 'NoSuchStack' }, clients),
        (error) =>
          error instanceof CliError &&
          error.message === 'cannot read the outputs of stack NoSuchStack: Stack with id NoSuchStack does not exist',
      );
      await assert.rejects(
        openAwsBackend({ queueUrl }, clients),
        (error) => error instanceof CliError && /^no table: pass --stack/.test(error.message),
      );
    });

    it('takes explicit names without a stack, and has no dead-letter queue unless one is named', async () => {
      const backend = await openAwsBackend({ table: dynamo.tableName, queueUrl }, clients);
      try {
        assert.equal(backend.description, `table ${dynamo.tableName}`);
        assert.equal(backend.deadLetters, undefined);
        await assert.rejects(
          backend.masterKeys(),
          (error) => error instanceof CliError && /no master key secret/.test(error.message),
        );
        assert.equal((await backend.store.listPipelines()).items.length, 1);
      } finally {
        await backend.close();
      }
    });
  });
});
