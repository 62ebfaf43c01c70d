// What `pipelinectl --aws` talks to, stood in for in this process: dynalite for the stack's table, fauxqs for its work
// queue and test/support/aws-stand-in.ts for STS (the caller's identity). `useDeployedStack()` starts them before a
// suite's tests and stops them after; `open()` is the CLI's AWS backend on them, as `--aws --stack` would build it.
import { after, before } from 'node:test';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import type { Backend } from '../../lib/cli/backend.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { startAwsStandIn, type AwsStandIn } from './aws-stand-in.js';
import { startDynalite, type LocalDynamo } from './dynalite.js';

const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export interface DeployedStack {
  dynamo: LocalDynamo;
  sqs: SQSClient;
  queueUrl: string;
  /** The table as the functions write it. */
  store: Store;
  /** The CLI's AWS backend on the stack; close it after use. */
  open(): Promise<Backend>;
}

/** Registers the suite's before/after hooks; the returned getter is valid inside its tests. */
export function useDeployedStack(): () => DeployedStack {
  let dynamo: LocalDynamo;
  let sqsServer: FauxqsServer;
  let aws: AwsStandIn;
  let sqs: SQSClient;
  let sts: STSClient;
  let stack: DeployedStack | undefined;

  before(async () => {
    [dynamo, sqsServer, aws] = await Promise.all([
      startDynalite(),
      startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }),
      startAwsStandIn(),
    ]);
    // An explicit endpoint for SQS: fauxqs's queue URLs name a host that does not resolve.
    sqs = new SQSClient({ endpoint: `http://127.0.0.1:${sqsServer.port}`, region, credentials });
    sts = new STSClient({ endpoint: aws.endpoint, region, credentials });
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
    stack = {
      dynamo,
      sqs,
      queueUrl,
      store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
      open: () => openAwsBackend({ table: dynamo.tableName, queueUrl }, { dynamodb: dynamo.client, sqs, sts }),
    };
  });
  after(async () => {
    sts.destroy();
    sqs.destroy();
    await Promise.all([dynamo.stop(), sqsServer.stop(), aws.stop()]);
  });
  return () => {
    if (!stack) throw new Error('the deployed stack is used outside its suite');
    return stack;
  };
}
