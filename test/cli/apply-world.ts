// What the `apply` tests run on: a table on dynalite, in this process, reached by the CLI's two backends (a data
// directory's Backend is the same store over its own dynalite; the AWS one is openAwsBackend, with fauxqs for SQS),
// writes that can be made to fail part-way, and a look at every item the table holds.
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import type { Backend } from '../../lib/cli/backend.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { QueueMessage } from '../../lib/queue/messages.js';
import { createDynamoStore } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';

export type BackendKind = 'data directory' | 'AWS';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/**
 * Makes every write fail once `batches` BatchWriteItem requests went through, until healed (the table unreachable),
 * or only the first such write (`once`: a write lost on the way).
 */
export interface WriteFault {
  failAfterBatches(batches: number, options?: { once?: boolean }): void;
  heal(): void;
  /** Writes refused since the fault was armed. */
  readonly refused: number;
}

export interface ApplyWorld {
  backend: Backend;
  dynamo: LocalDynamo;
  fault: WriteFault;
  /** Messages the backend handed to the verifier (the data directory's; the AWS one sends them to SQS). */
  sent: QueueMessage[];
  /** Every item of the table, unmarshalled. */
  items(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

export async function applyWorld(kind: BackendKind): Promise<ApplyWorld> {
  const dynamo = await startDynalite();
  let armed: number | undefined;
  let once = false;
  let batches = 0;
  let refused = 0;
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? '').replace(/Command$/, '');
      if (armed !== undefined && WRITES.has(name)) {
        if (batches >= armed) {
          refused += 1;
          if (once) armed = undefined;
          throw Object.assign(new Error('socket hang up (injected)'), { name: 'NetworkingError' });
        }
        if (name === 'BatchWriteItem') batches += 1;
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectWriteFault' },
  );
  const fault: WriteFault = {
    failAfterBatches(count, options = {}) {
      armed = count;
      once = options.once ?? false;
      batches = 0;
      refused = 0;
    },
    heal() {
      armed = undefined;
    },
    get refused() {
      return refused;
    },
  };
  const documents = DynamoDBDocumentClient.from(dynamo.client);
  const items = async () => {
    const all: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(new ScanCommand({ TableName: dynamo.tableName, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) all.push(item);
      start = page.LastEvaluatedKey;
    } while (start);
    return all;
  };

  const sent: QueueMessage[] = [];
  if (kind === 'AWS') {
    const sqsServer: FauxqsServer = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
    const sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${sqsServer.port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
    const backend = await openAwsBackend(
      { table: dynamo.tableName, queueUrl, region: 'us-east-1' },
      { dynamodb: dynamo.client, sqs },
    );
    return {
      backend,
      dynamo,
      fault,
      sent,
      items,
      stop: async () => {
        await backend.close();
        sqs.destroy();
        await Promise.all([dynamo.stop(), sqsServer.stop()]);
      },
    };
  }
  const secrets = new Map<string, Record<string, string>>();
  const id = (key: ObjectKey) => `${key.namespace}/${key.name}`;
  const backend: Backend = {
    description: `test table ${dynamo.tableName}`,
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    putSecret: (key, values) => Promise.resolve(void secrets.set(id(key), { ...values })),
    secretKeys: (key) => Promise.resolve(Object.keys(secrets.get(id(key)) ?? {})),
    enqueue: (message) => Promise.resolve(sent.push(message) > 0),
    masterKeys: () => Promise.reject(new Error('no master keys in this test')),
    identity: () => Promise.resolve('test'),
    close: () => Promise.resolve(),
  };
  return { backend, dynamo, fault, sent, items, stop: () => dynamo.stop() };
}

export const CLUSTER_YAML = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: flux-system}
spec: {eks: {clusterName: prod, region: eu-west-1}}
`;

/** A Pipeline `flux-system/<name>` for the HelmRelease `web`, one environment per list of namespaces on `prod`. */
export function pipelineYaml(name: string, environments: Record<string, readonly string[]>): string {
  const envs = Object.entries(environments).map(
    ([env, namespaces]) =>
      `    - name: ${env}\n      targets:\n` +
      namespaces
        .map((namespace) => `        - {namespace: ${namespace}, clusterRef: {kind: GitopsCluster, name: prod}}\n`)
        .join(''),
  );
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: web}
  environments:
${envs.join('')}`;
}

/** `prefix-0` … `prefix-(n-1)`. */
export const namespaces = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
