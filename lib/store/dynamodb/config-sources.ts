// ConfigSources: one item per source (its document, generation and status, and the lease of a sync under way), and a
// trail of applied commits per source. A sync is claimed with one conditional update on the item, so of many
// webhooks and polls that saw one commit exactly one syncs it (docs/config-sources.md).
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConfigSourceDocument } from '../../config/schema.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { attemptKey, pendingStatus, syncedStatus } from '../config-sync-step.js';
import { ConcurrentChangeError } from '../errors.js';
import type {
  ConfigAuditEntry,
  ConfigSourceStatus,
  ConfigSources,
  ConfigSyncClaim,
  ConfigSyncResult,
  Page,
  PageRequest,
  StoredConfigSource,
} from '../port.js';
import { fingerprint } from './fingerprint.js';
import {
  conditionHeld,
  decodeCursor,
  encodeCursor,
  expiresAfter,
  keys,
  TABLE_SCHEMA,
  type TableContext,
} from './table.js';
import { queryIndexPage } from './query.js';

interface ConfigSourceItem {
  document: ConfigSourceDocument;
  generation: number;
  fingerprint: string;
  appliedAt: string;
  status?: ConfigSourceStatus;
  /** `attemptKey(generation, revision)` of the last attempt. */
  attempted?: string;
  /** The sync under way: its token, commit and the end of its lease (epoch ms). */
  leaseToken?: string;
  leaseRevision?: string;
  leaseUntil?: number;
}

export class DynamoConfigSources implements ConfigSources {
  constructor(private readonly table: TableContext) {}

  async applyConfigSource(document: ConfigSourceDocument, now: Date): Promise<{ changed: boolean }> {
    const key = keyOfMetadata(document.metadata);
    const existing = await this.getItem(key);
    const print = fingerprint(document);
    if (existing?.fingerprint === print) return { changed: false };
    const generation = (existing?.generation ?? 0) + 1;
    // Only the spec changes: one update of those fields, conditional on the generation read, never a put of the item
    // read, so a sync claimed or finished between that read and this write keeps its lease and its status.
    const written = await conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.configSource(key),
          UpdateExpression:
            'SET #indexPartition = :indexPartition, #indexSort = :indexSort, #entity = :entity, ' +
            '#document = :document, #fingerprint = :fingerprint, #generation = :generation, #appliedAt = :appliedAt, ' +
            '#status = if_not_exists(#status, :pending)',
          ConditionExpression:
            existing === undefined ? 'attribute_not_exists(pk)' : '#generation = :previousGeneration',
          ExpressionAttributeNames: {
            '#indexPartition': TABLE_SCHEMA.indexPartitionKey,
            '#indexSort': TABLE_SCHEMA.indexSortKey,
            '#entity': 'entity',
            '#document': 'document',
            '#fingerprint': 'fingerprint',
            '#generation': 'generation',
            '#appliedAt': 'appliedAt',
            '#status': 'status',
          },
          ExpressionAttributeValues: {
            ':indexPartition': keys.configSourcesIndex,
            ':indexSort': keys.objectSortKey(key),
            ':entity': 'config-source',
            ':document': document,
            ':fingerprint': print,
            ':generation': generation,
            ':appliedAt': now.toISOString(),
            ':pending': pendingStatus(now),
            ...(existing === undefined ? {} : { ':previousGeneration': existing.generation }),
          },
        }),
      ),
    );
    if (!written) throw new ConcurrentChangeError(`ConfigSource ${objectKeyString(key)}`);
    return { changed: true };
  }

  async getConfigSource(key: ObjectKey): Promise<StoredConfigSource | undefined> {
    const item = await this.getItem(key);
    return item && storedConfigSource(item);
  }

  async listConfigSources(page: PageRequest = {}): Promise<Page<StoredConfigSource>> {
    const { items, cursor } = await queryIndexPage(this.table, keys.configSourcesIndex, page);
    return { items: items.map((item) => storedConfigSource(item as ConfigSourceItem)), cursor };
  }

  async deleteConfigSource(key: ObjectKey): Promise<boolean> {
    const result = await this.table.documents.send(
      new DeleteCommand({ TableName: this.table.tableName, Key: keys.configSource(key), ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes !== undefined;
  }

  async claimConfigSync(
    source: ObjectKey,
    revision: string,
    generation: number,
    now: Date,
    leaseMs: number,
  ): Promise<ConfigSyncClaim | undefined> {
    const token = randomUUID();
    const claimed = await conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.configSource(source),
          UpdateExpression: 'SET leaseToken = :token, leaseRevision = :revision, leaseUntil = :until',
          ConditionExpression:
            'generation = :generation AND (attribute_not_exists(attempted) OR attempted <> :attempted) AND ' +
            '(attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
          ExpressionAttributeValues: {
            ':token': token,
            ':revision': revision,
            ':until': now.getTime() + leaseMs,
            ':generation': generation,
            ':attempted': attemptKey(generation, revision),
            ':now': now.getTime(),
          },
        }),
      ),
    );
    if (!claimed) return undefined;
    return { source, revision, generation, token };
  }

  async finishConfigSync(claim: ConfigSyncClaim, result: ConfigSyncResult, now: Date): Promise<boolean> {
    const item = await this.getItem(claim.source);
    if (!item || item.leaseToken !== claim.token) return false;
    const status = syncedStatus(item.status ?? pendingStatus(now), claim, result, now);
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.configSource(claim.source),
          UpdateExpression:
            `SET #status = :status${result.attempted ? ', attempted = :attempted' : ''} ` +
            'REMOVE leaseToken, leaseRevision, leaseUntil',
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': status,
            ':token': claim.token,
            ...(result.attempted ? { ':attempted': attemptKey(claim.generation, claim.revision) } : {}),
          },
        }),
      ),
    );
  }

  async appendConfigAudit(entry: ConfigAuditEntry): Promise<void> {
    await this.table.documents.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          pk: keys.configAudit(entry.configSource),
          // The random suffix keeps two entries of the same millisecond apart.
          sk: `${entry.at}#${randomBytes(4).toString('hex')}`,
          entity: 'config-audit',
          ...entry,
          [TABLE_SCHEMA.ttlAttribute]: expiresAfter(new Date(entry.at), this.table.retentionDays),
        },
      }),
    );
  }

  async listConfigAudit(source: ObjectKey, page: PageRequest = {}): Promise<Page<ConfigAuditEntry>> {
    const result = await this.table.documents.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.configAudit(source) },
        ScanIndexForward: false,
        Limit: page.limit,
        ExclusiveStartKey: decodeCursor(page.cursor),
      }),
    );
    const items = (result.Items ?? []).map((item): ConfigAuditEntry => {
      const entry: ConfigAuditEntry = {
        at: String(item.at),
        configSource: item.configSource as ObjectKey,
        type: 'config-applied',
        revision: String(item.revision),
        message: String(item.message),
        created: stringList(item.created),
        configured: stringList(item.configured),
        pruned: stringList(item.pruned),
      };
      if (typeof item.author === 'string') entry.author = item.author;
      if (typeof item.actor === 'string') entry.actor = item.actor;
      return entry;
    });
    return { items, cursor: encodeCursor(result.LastEvaluatedKey) };
  }

  private async getItem(key: ObjectKey): Promise<ConfigSourceItem | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.configSource(key), ConsistentRead: true }),
    );
    return result.Item as ConfigSourceItem | undefined;
  }
}

function storedConfigSource(item: ConfigSourceItem): StoredConfigSource {
  return {
    document: item.document,
    generation: item.generation,
    appliedAt: item.appliedAt,
    status: item.status ?? pendingStatus(new Date(item.appliedAt)),
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : [];
}
