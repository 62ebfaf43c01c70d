// The audit trail: one item per effect (AuditEntryType), in a partition per pipeline, newest last in sort order, and
// removed by DynamoDB's TTL after the retention period.
import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ObjectKey } from '../../pipeline/model.js';
import { isPromotionFailureKind } from '../../promotion/failure-kind.js';
import type { AuditEntry, AuditEntryType, AuditLog, Page, PageRequest } from '../port.js';
import { decodeCursor, encodeCursor, expiresAfter, keys, TABLE_SCHEMA, type TableContext } from './table.js';

export class DynamoAuditLog implements AuditLog {
  constructor(private readonly table: TableContext) {}

  async appendAudit(entry: AuditEntry): Promise<void> {
    // The random suffix keeps two entries of the same millisecond apart.
    const sk = `${entry.at}#${randomBytes(4).toString('hex')}`;
    await this.table.documents.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          pk: keys.audit(entry.pipeline),
          sk,
          entity: 'audit',
          ...entry,
          [TABLE_SCHEMA.ttlAttribute]: expiresAfter(new Date(entry.at), this.table.retentionDays),
        },
      }),
    );
  }

  async listAudit(pipeline: ObjectKey, page: PageRequest = {}): Promise<Page<AuditEntry>> {
    const result = await this.table.documents.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.audit(pipeline) },
        ScanIndexForward: false,
        Limit: page.limit,
        ExclusiveStartKey: decodeCursor(page.cursor),
      }),
    );
    const items = (result.Items ?? []).map((item) => {
      const entry: AuditEntry = {
        at: String(item.at),
        pipeline: item.pipeline as ObjectKey,
        // Written by appendAudit only, so one of the types.
        type: String(item.type) as AuditEntryType,
        message: String(item.message),
      };
      for (const field of ['env', 'revision', 'actor'] as const) {
        if (typeof item[field] === 'string') entry[field] = item[field];
      }
      if (isPromotionFailureKind(item.failureKind)) entry.failureKind = item.failureKind;
      return entry;
    });
    return { items, cursor: encodeCursor(result.LastEvaluatedKey) };
  }
}
