// PipelineSets: one item per set (its document, generation and owner), listed through the index. The pipelines a set
// generates are ordinary pipeline items (configuration.ts); the set's item is what `get pipelinesets` lists.
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PipelineSetDocument } from '../../config/schema.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { ConcurrentChangeError } from '../errors.js';
import type { FoundApp } from '../../pipeline/pipeline-set.js';
import type { ObjectOwner, Page, PageRequest, PipelineSets, StoredPipelineSet } from '../port.js';
import { definitionFingerprint } from './configuration.js';
import { conditionHeld, keys, TABLE_SCHEMA, type TableContext } from './table.js';
import { queryIndexPage } from './query.js';

interface PipelineSetItem {
  document: PipelineSetDocument;
  generation: number;
  fingerprint: string;
  appliedAt: string;
  owner?: ObjectOwner;
  appsFound?: Record<string, FoundApp[]>;
}

export class DynamoPipelineSets implements PipelineSets {
  constructor(private readonly table: TableContext) {}

  async applyPipelineSet(document: PipelineSetDocument, now: Date, owner?: ObjectOwner): Promise<{ changed: boolean }> {
    const key = keyOfMetadata(document.metadata);
    const existing = await this.getItem(key);
    const print = definitionFingerprint({ document }, owner);
    if (existing?.fingerprint === print) return { changed: false };
    // One update of the definition's fields, never a put of the item: what the poll recorded (`appsFound`) stays.
    const written = await conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.pipelineSet(key),
          UpdateExpression:
            'SET #indexPartition = :indexPartition, #indexSort = :indexSort, #entity = :entity, ' +
            '#document = :document, #fingerprint = :fingerprint, #generation = :generation, #appliedAt = :appliedAt' +
            (owner ? ', #owner = :owner' : ' REMOVE #owner'),
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
            '#owner': 'owner',
          },
          ExpressionAttributeValues: {
            ':indexPartition': keys.pipelineSetsIndex,
            ':indexSort': keys.objectSortKey(key),
            ':entity': 'pipeline-set',
            ':document': document,
            ':fingerprint': print,
            ':generation': (existing?.generation ?? 0) + 1,
            ':appliedAt': now.toISOString(),
            ...(owner ? { ':owner': owner } : {}),
            ...(existing === undefined ? {} : { ':previousGeneration': existing.generation }),
          },
        }),
      ),
    );
    if (!written) throw new ConcurrentChangeError(`PipelineSet ${objectKeyString(key)}`);
    return { changed: true };
  }

  async getPipelineSet(key: ObjectKey): Promise<StoredPipelineSet | undefined> {
    const item = await this.getItem(key);
    return item && storedPipelineSet(item);
  }

  async listPipelineSets(page: PageRequest = {}): Promise<Page<StoredPipelineSet>> {
    const { items, cursor } = await queryIndexPage(this.table, keys.pipelineSetsIndex, page);
    return { items: items.map((item) => storedPipelineSet(item as PipelineSetItem)), cursor };
  }

  async recordPipelineSetApps(
    key: ObjectKey,
    generation: number,
    appsFound: Record<string, FoundApp[]>,
  ): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.pipelineSet(key),
          UpdateExpression: 'SET #appsFound = :appsFound',
          ConditionExpression: '#generation = :generation',
          ExpressionAttributeNames: { '#appsFound': 'appsFound', '#generation': 'generation' },
          ExpressionAttributeValues: { ':appsFound': appsFound, ':generation': generation },
        }),
      ),
    );
  }

  async deletePipelineSet(key: ObjectKey): Promise<boolean> {
    const result = await this.table.documents.send(
      new DeleteCommand({ TableName: this.table.tableName, Key: keys.pipelineSet(key), ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes !== undefined;
  }

  private async getItem(key: ObjectKey): Promise<PipelineSetItem | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.pipelineSet(key), ConsistentRead: true }),
    );
    return result.Item as PipelineSetItem | undefined;
  }
}

function storedPipelineSet(item: PipelineSetItem): StoredPipelineSet {
  const { document, generation, appliedAt, owner, appsFound } = item;
  return { document, generation, appliedAt, ...(owner ? { owner } : {}), ...(appsFound ? { appsFound } : {}) };
}
