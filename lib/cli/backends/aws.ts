// A deployed stack as a Backend: the store is the DynamoDB table, messages go to the SQS queue, Secrets are Secrets
// Manager secrets `<prefix><ns>/<name>` holding the JSON object of their keys, tagged with their purpose, and the
// caller's identity is its STS ARN; `check` reads the Secrets and the EKS clusters with the caller's credentials.
// Names come from the stack's outputs (`--stack`) or from flags; the clients are injectable, so tests point them at
// local stand-ins.
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { EksAccess } from '../../clusters/eks.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { SqsQueue } from '../../queue/sqs.js';
import { masterKeysFromValues, type MasterKeys } from '../../secrets/master-keys.js';
import { DEFAULT_SECRETS_PREFIX } from '../../secrets/prefix.js';
import { secretKeyNames } from '../../secrets/port.js';
import { SecretsManagerSecretSource } from '../../secrets/secrets-manager.js';
import { RECEIVER_READABLE_PURPOSES, SECRET_PURPOSE_TAG, type SecretPurpose } from '../../secrets/tags.js';
import { createDynamoStore } from '../../store/index.js';
import { parseNotificationSinks } from '../../runtime/notification-sinks.js';
import type { Backend, NotificationSinksInfo } from '../backend.js';
import { CliError } from '../errors.js';
import { parseObjectKey } from '../flags.js';
import { purposeConflict, purposeTagValue } from '../../secrets/uses.js';
import { SqsDeadLetterQueue } from './sqs-dead-letters.js';
import { errorMessage } from '../../util/error-message.js';

/** Where the deployed stack's resources are: from the stack's outputs, or named one by one. */
export interface AwsBackendOptions {
  /** Read the table, queues and secret from this CloudFormation stack's outputs. */
  stack?: string;
  table?: string;
  queueUrl?: string;
  deadLetterQueueUrl?: string;
  masterKeySecretId?: string;
  secretsPrefix?: string;
  region?: string;
  defaultCluster?: ObjectKey;
}

/** The AWS clients the backend uses; any left out is created for `options.region`. */
export interface AwsClients {
  dynamodb?: DynamoDBClient;
  sqs?: SQSClient;
  secretsManager?: SecretsManagerClient;
  cloudFormation?: CloudFormationClient;
  sts?: STSClient;
}

/** The stack outputs the backend reads (infra/outputs.ts `OUTPUTS`, published by the construct). */
interface StackOutputs {
  TableName?: string;
  QueueUrl?: string;
  DeadLetterQueueUrl?: string;
  MasterKeySecretArn?: string;
  /** `ns/name`, present when the stack was deployed with a default cluster. */
  DefaultCluster?: string;
  /** The kinds of its notification sinks, or `none`; absent from a stack deployed by an older version. */
  NotificationSinks?: string;
}

export async function openAwsBackend(options: AwsBackendOptions, clients: AwsClients = {}): Promise<Backend> {
  const pool = new ClientPool(options.region);
  try {
    const dynamodb = pool.use(clients.dynamodb, (config) => new DynamoDBClient(config));
    if (!clients.dynamodb) await requireRegion(dynamodb);
    const deployed = await locateResources(options, () =>
      pool.use(clients.cloudFormation, (config) => new CloudFormationClient(config)),
    );
    const sqs = pool.use(clients.sqs, (config) => new SQSClient(config));
    const secretsManager = pool.use(clients.secretsManager, (config) => new SecretsManagerClient(config));
    const secrets = new SecretsManagerSecretSource({ client: secretsManager, prefix: deployed.prefix, cacheMs: 0 });
    const queue = new SqsQueue({ client: sqs, queueUrl: deployed.queueUrl });
    return {
      description: options.stack ? `stack ${options.stack} (table ${deployed.table})` : `table ${deployed.table}`,
      store: createDynamoStore({ client: dynamodb, tableName: deployed.table }),
      defaultCluster: defaultClusterOf(options, deployed.outputs),
      ...secretWrites(secretsManager, secrets, deployed.prefix),
      enqueue: async (message) => {
        await queue.send(message);
        return true;
      },
      masterKeys: () => readMasterKeys(secrets, deployed.masterKeySecretId),
      identity: callerIdentity(() => pool.use(clients.sts, (config) => new STSClient(config))),
      notificationSinks: () =>
        Promise.resolve(stackNotificationSinks(options.stack, deployed.outputs.NotificationSinks)),
      secrets,
      eksAccess: eksAccessOnFirstUse(),
      ...deadLettersOf(sqs, deployed),
      close: () => pool.close(),
    };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

/** The clients the caller gave, or made here for the region; only those made here are destroyed at close. */
class ClientPool {
  private readonly config: { region?: string };
  private readonly created: { destroy(): void }[] = [];

  constructor(region: string | undefined) {
    this.config = region ? { region } : {};
  }

  use<T extends { destroy(): void }>(given: T | undefined, make: (config: { region?: string }) => T): T {
    if (given) return given;
    const made = make(this.config);
    this.created.push(made);
    return made;
  }

  close(): Promise<void> {
    for (const each of this.created) each.destroy();
    return Promise.resolve();
  }
}

/** Where the deployment's resources are: each flag, else the stack's output. */
interface DeployedResources {
  table: string;
  queueUrl: string;
  deadLetterQueueUrl: string | undefined;
  masterKeySecretId: string | undefined;
  /** The Secrets Manager prefix of the configuration Secrets. */
  prefix: string;
  /** The stack's outputs; none without `--stack`. */
  outputs: StackOutputs;
}

/** The resources from the flags and, with `--stack`, the stack's outputs; fails without a table or a queue. */
async function locateResources(
  options: AwsBackendOptions,
  cloudFormation: () => CloudFormationClient,
): Promise<DeployedResources> {
  const outputs = options.stack ? await stackOutputs(cloudFormation(), options.stack) : {};
  const table = options.table ?? outputs.TableName;
  const queueUrl = options.queueUrl ?? outputs.QueueUrl;
  const deadLetterQueueUrl = options.deadLetterQueueUrl ?? outputs.DeadLetterQueueUrl;
  const masterKeySecretId = options.masterKeySecretId ?? outputs.MasterKeySecretArn;
  const prefix = options.secretsPrefix ?? DEFAULT_SECRETS_PREFIX;
  if (!table) throw new CliError('no table: pass --stack (or PIPELINES_STACK), or --table (or PIPELINES_TABLE)');
  if (!queueUrl) {
    throw new CliError('no queue: pass --stack (or PIPELINES_STACK), or --queue-url (or PIPELINES_QUEUE_URL)');
  }
  return { table, queueUrl, deadLetterQueueUrl, masterKeySecretId, prefix, outputs };
}

/** The dead-letter queue, when the deployment names one. */
function deadLettersOf(sqs: SQSClient, deployed: DeployedResources): Pick<Backend, 'deadLetters'> {
  const { deadLetterQueueUrl, queueUrl } = deployed;
  return deadLetterQueueUrl === undefined
    ? {}
    : { deadLetters: new SqsDeadLetterQueue({ client: sqs, deadLetterQueueUrl, queueUrl }) };
}

/** `--default-cluster`, else the stack's DefaultCluster output. */
function defaultClusterOf(options: AwsBackendOptions, outputs: StackOutputs): ObjectKey | undefined {
  return (
    options.defaultCluster ??
    (outputs.DefaultCluster === undefined
      ? undefined
      : parseObjectKey(outputs.DefaultCluster, `the output DefaultCluster of stack ${options.stack}`))
  );
}

/** Configuration Secrets as Secrets Manager secrets `<prefix><ns>/<name>`, tagged with their purpose. */
function secretWrites(
  secretsManager: SecretsManagerClient,
  secrets: SecretsManagerSecretSource,
  prefix: string,
): Required<Pick<Backend, 'putSecret' | 'secretKeys' | 'setSecretPurposes'>> {
  const tags = new PurposeTags(secretsManager);
  const secretId = (key: ObjectKey) => `${prefix}${objectKeyString(key)}`;
  return {
    putSecret: async (key, values, purposes) => {
      const tag = tagValue(key, purposes);
      const id = secretId(key);
      const current = await tags.describe(id);
      const text = JSON.stringify(values);
      if (!current) {
        await secretsManager.send(
          new CreateSecretCommand({
            Name: id,
            Description: `pipeline-controller: Secret ${objectKeyString(key)}`,
            SecretString: text,
            Tags: tag === undefined ? undefined : [{ Key: SECRET_PURPOSE_TAG, Value: tag }],
          }),
        );
        return;
      }
      if (current.deleted) {
        throw new CliError(
          `secret ${id} is scheduled for deletion in Secrets Manager: restore it ` +
            `(aws secretsmanager restore-secret --secret-id ${id}) and apply again`,
        );
      }
      // The receiver may read a secret while it is tagged webhook-hmac or config-source: a value of another kind
      // must never be there under such a tag, so the tag comes off before such a value goes in, and goes on only
      // after the value meant for the receiver went in.
      const receiverReads = tag !== undefined && RECEIVER_READABLE_PURPOSES.includes(tag);
      if (!receiverReads) await tags.set(id, current.tag, tag);
      // A value that is not a JSON object of strings (written by hand) is simply replaced.
      const stored = await secrets.getById(id).catch(() => undefined);
      if (!sameValues(stored, values)) {
        await secretsManager.send(new PutSecretValueCommand({ SecretId: id, SecretString: text }));
      }
      if (receiverReads) await tags.set(id, current.tag, tag);
    },
    secretKeys: (key) => secretKeyNames(secrets, key),
    setSecretPurposes: async (key, purposes) => {
      const tag = tagValue(key, purposes);
      const id = secretId(key);
      const current = await tags.describe(id);
      if (!current) return 'missing';
      return (await tags.set(id, current.tag, tag)) ? 'changed' : 'unchanged';
    },
  };
}

async function readMasterKeys(
  secrets: SecretsManagerSecretSource,
  masterKeySecretId: string | undefined,
): Promise<MasterKeys> {
  if (!masterKeySecretId) {
    throw new CliError(
      'no master key secret: pass --stack (or PIPELINES_STACK), or --master-key-secret (or PIPELINES_MASTER_KEY_SECRET)',
    );
  }
  return masterKeysFromValues(await secrets.getById(masterKeySecretId), `the master key secret ${masterKeySecretId}`);
}

/** The caller's STS ARN; the STS client is made at the first call. */
function callerIdentity(makeSts: () => STSClient): () => Promise<string> {
  let sts: STSClient | undefined;
  return async () => {
    sts ??= makeSts();
    const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
    if (!Arn) throw new Error('sts:GetCallerIdentity returned no ARN');
    return Arn;
  };
}

/** Only a check of EKS clusters loads the EKS and STS clients; each cluster names its own region. */
function eksAccessOnFirstUse(): () => Promise<EksAccess> {
  let eks: EksAccess | undefined;
  return async () => {
    const { EksAccess } = await import('../../clusters/eks.js');
    return (eks ??= new EksAccess());
  };
}

/** From the stack's NotificationSinks output; without `--stack` (tables named one by one) nothing can be told. */
function stackNotificationSinks(stack: string | undefined, output: string | undefined): NotificationSinksInfo {
  const remedy =
    'deploy the stack with a notification sink: context notificationWebhookUrl, notificationControllerUrl or ' +
    'notificationEventBusArn (infra/README.md)';
  if (stack === undefined) return { known: false, reason: 'no --stack names the deployment', remedy };
  if (output === undefined) {
    return { known: false, reason: `stack ${stack} has no NotificationSinks output: deploy this version`, remedy };
  }
  return { known: true, kinds: parseNotificationSinks(output), remedy };
}

/** The purposes as the tag value; a Secret may not be a webhook HMAC key and anything else at once. */
function tagValue(key: ObjectKey, purposes: readonly SecretPurpose[]): string | undefined {
  const conflict = purposeConflict(purposes);
  if (conflict) throw new CliError(`Secret ${objectKeyString(key)}: ${conflict}`);
  return purposeTagValue(purposes);
}

function sameValues(stored: Readonly<Record<string, string>> | undefined, values: Readonly<Record<string, string>>) {
  if (!stored) return false;
  const keys = Object.keys(values);
  return Object.keys(stored).length === keys.length && keys.every((key) => stored[key] === values[key]);
}

/** The purpose tag of the secrets: read with DescribeSecret, changed only when it differs. */
class PurposeTags {
  constructor(private readonly client: SecretsManagerClient) {}

  /** Undefined when there is no such secret. */
  async describe(id: string): Promise<{ tag?: string; deleted: boolean } | undefined> {
    try {
      const secret = await this.client.send(new DescribeSecretCommand({ SecretId: id }));
      const tag = secret.Tags?.find((each) => each.Key === SECRET_PURPOSE_TAG)?.Value;
      return { tag, deleted: secret.DeletedDate !== undefined };
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }

  /** Sets (or, for undefined, removes) the tag; false when it already was so. */
  async set(id: string, current: string | undefined, tag: string | undefined): Promise<boolean> {
    if (current === tag) return false;
    if (tag === undefined) {
      await this.client.send(new UntagResourceCommand({ SecretId: id, TagKeys: [SECRET_PURPOSE_TAG] }));
    } else {
      await this.client.send(new TagResourceCommand({ SecretId: id, Tags: [{ Key: SECRET_PURPOSE_TAG, Value: tag }] }));
    }
    return true;
  }
}

/** Fails with one line when the SDK finds no region (no --region, no AWS_REGION, none in the profile). */
async function requireRegion(client: DynamoDBClient): Promise<void> {
  try {
    await client.config.region();
  } catch {
    throw new CliError('no AWS region: pass --region, or set AWS_REGION (or a region in the AWS profile)');
  }
}

async function stackOutputs(client: CloudFormationClient, stack: string): Promise<StackOutputs> {
  let result;
  try {
    result = await client.send(new DescribeStacksCommand({ StackName: stack }));
  } catch (error) {
    const message = errorMessage(error);
    throw new CliError(`cannot read the outputs of stack ${stack}: ${message}`);
  }
  const outputs: Record<string, string> = {};
  for (const output of result.Stacks?.[0]?.Outputs ?? []) {
    if (output.OutputKey && output.OutputValue) outputs[output.OutputKey] = output.OutputValue;
  }
  return outputs;
}
