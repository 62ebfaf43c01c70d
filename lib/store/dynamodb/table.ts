// The single-table layout (docs/architecture.md has the full key design) and what every entity module shares.
// Key parts are URI-encoded, so a `#` or `/` inside a revision or an environment name cannot split a key.
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pollGroupOf, type AppKey, type ObjectKey } from '../../pipeline/model.js';
import { DEFAULT_RETENTION_DAYS } from '../retention.js';

/** Attribute and index names; the CDK table (infra/) declares the same. */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  index: 'gsi1',
  indexPartitionKey: 'gsi1pk',
  indexSortKey: 'gsi1sk',
  /** Epoch seconds; DynamoDB's TTL removes the item some time after. */
  ttlAttribute: 'expiresAt',
} as const;

const part = (value: string): string => encodeURIComponent(value);
const objectPart = (key: ObjectKey): string => `${part(key.namespace)}/${part(key.name)}`;

/** Every key of the table, by entity. */
export const keys = {
  pipeline: (key: ObjectKey) => ({ pk: `PIPELINE#${objectPart(key)}`, sk: 'DEF' }),
  pipelinesIndex: 'PIPELINES',
  approval: (key: ObjectKey, env: string) => ({ pk: `PIPELINE#${objectPart(key)}`, sk: `APPROVAL#${part(env)}` }),
  approvalPrefix: 'APPROVAL#',
  promotion: (key: ObjectKey, env: string, revision: string) => ({
    pk: `PIPELINE#${objectPart(key)}`,
    sk: `PROMOTION#${part(env)}#${part(revision)}`,
  }),
  promotionPrefix: 'PROMOTION#',
  verification: (key: ObjectKey, env: string) => ({ pk: `PIPELINE#${objectPart(key)}`, sk: `VERIFY#${part(env)}` }),
  verificationPrefix: 'VERIFY#',
  servedInput: (key: ObjectKey, env: string) => ({ pk: `PIPELINE#${objectPart(key)}`, sk: `SERVED#${part(env)}` }),
  servedInputPrefix: 'SERVED#',
  promotionEvidence: (key: ObjectKey, env: string, revision: string) => ({
    pk: `PIPELINE#${objectPart(key)}`,
    sk: `EVIDENCE#${part(env)}#${part(revision)}`,
  }),
  cluster: (key: ObjectKey) => ({ pk: `CLUSTER#${objectPart(key)}`, sk: 'DEF' }),
  clustersIndex: 'CLUSTERS',
  objectSortKey: objectPart,
  app: (app: AppKey) => `APP#${objectPart(app.cluster)}/${part(app.kind)}/${part(app.namespace)}/${part(app.name)}`,
  targetStatus: (app: AppKey) => ({ pk: keys.app(app), sk: 'STATUS' }),
  /** `slot`: a listed target's position, `@{clusterNs}/{cluster}` for a selected one (configuration.ts). */
  indexEntry: (app: AppKey, pipeline: ObjectKey, env: string, slot: string) => ({
    pk: keys.app(app),
    sk: `TARGET#${objectPart(pipeline)}#${part(env)}#${part(slot)}`,
  }),
  indexEntryPrefix: 'TARGET#',
  /** An apply of a pipeline under way (or cut off): what it may have written to the apps index. */
  applyIntent: (pipeline: ObjectKey, applyId: string) => ({
    pk: keys.applyIntentPartition,
    sk: `${keys.applyIntentPrefix(pipeline)}${part(applyId)}`,
  }),
  applyIntentPartition: 'APPLYING',
  applyIntentPrefix: (pipeline: ObjectKey) => `${objectPart(pipeline)}#`,
  usagePartition: 'USAGE',
  usage: (cluster: ObjectKey, kind: string, namespace: string) => ({
    pk: 'USAGE',
    sk: `${keys.usagePrefix(cluster, kind)}${part(namespace)}`,
  }),
  /** The sort-key prefix of one (cluster, kind)'s usage items. */
  usagePrefix: (cluster: ObjectKey, kind: string) => `${objectPart(cluster)}/${part(kind)}/`,
  audit: (key: ObjectKey) => `AUDIT#${objectPart(key)}`,
  configSource: (key: ObjectKey) => ({ pk: `CONFIGSOURCE#${objectPart(key)}`, sk: 'DEF' }),
  configSourcesIndex: 'CONFIGSOURCES',
  configAudit: (key: ObjectKey) => `CONFIGAUDIT#${objectPart(key)}`,
  pipelineSet: (key: ObjectKey) => ({ pk: `PIPELINESET#${objectPart(key)}`, sk: 'DEF' }),
  pipelineSetsIndex: 'PIPELINESETS',
  /** The configuration generation (poll-digests.ts). */
  configurationGeneration: { pk: 'CONFIG', sk: 'GENERATION' },
  /** What the poller last listed of the pairs in use. */
  pollPlan: { pk: 'CONFIG', sk: 'POLLPLAN' },
  /** The partition of a poll group's digests (pollGroupOf), one item per (cluster, kind), sorted by cluster. */
  pollDigestGroup: (group: number) => `POLLDIGESTS#${group}`,
  pollDigest: (cluster: ObjectKey, kind: string) => ({
    pk: keys.pollDigestGroup(pollGroupOf(cluster)),
    sk: `${keys.pollDigestPrefix(cluster)}${part(kind)}`,
  }),
  /** The sort-key prefix of one cluster's digests in its group. */
  pollDigestPrefix: (cluster: ObjectKey) => `${objectPart(cluster)}/`,
};

/** What the entity modules share: the document client and the table's name. */
export interface TableContext {
  documents: DynamoDBDocumentClient;
  tableName: string;
  /** How long audit entries and finished promotion records are kept, in days. */
  retentionDays: number;
}

export function tableContext(
  client: DynamoDBClient,
  tableName: string,
  retentionDays = DEFAULT_RETENTION_DAYS,
): TableContext {
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  // The SDK's logger middleware copies every request and every answer through a filter of sensitive fields for a
  // logger the store never configures (the SDK's default logs nothing): for a BatchGetItem of a pipeline's statuses
  // that copy is about a third of the SDK's CPU per item, and about a tenth for a PutItem. The document client sends
  // through `client`'s middleware stack, so it goes from there.
  documents.middlewareStack.remove('loggerMiddleware');
  return { documents, tableName, retentionDays };
}

export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/**
 * The answer to a conditional write, or undefined when its condition did not hold (another writer came first); any
 * other failure is thrown.
 */
export async function unlessConditionFailed<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Whether a conditional write was made: false when its condition did not hold. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  return (await unlessConditionFailed(write.then(() => true))) ?? false;
}

/** Epoch seconds `days` after `now`, for the TTL attribute. */
export function expiresAfter(now: Date, days: number): number {
  return Math.floor(now.getTime() / 1000) + days * 86_400;
}

/** A page cursor is the opaque, URL-safe form of DynamoDB's LastEvaluatedKey. */
export function encodeCursor(lastKey: Record<string, unknown> | undefined): string | undefined {
  return lastKey ? Buffer.from(JSON.stringify(lastKey)).toString('base64url') : undefined;
}

export function decodeCursor(cursor: string | undefined): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new Error('invalid page cursor');
}

/** Creates the table as the CDK stack does (for the local mode and tests), and waits until it is active. */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const s = TABLE_SCHEMA;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: s.partitionKey, AttributeType: 'S' },
        { AttributeName: s.sortKey, AttributeType: 'S' },
        { AttributeName: s.indexPartitionKey, AttributeType: 'S' },
        { AttributeName: s.indexSortKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: s.partitionKey, KeyType: 'HASH' },
        { AttributeName: s.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: s.index,
          KeySchema: [
            { AttributeName: s.indexPartitionKey, KeyType: 'HASH' },
            { AttributeName: s.indexSortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
}
