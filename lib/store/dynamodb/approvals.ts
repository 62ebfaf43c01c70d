// Approval markers: at most one per (pipeline, environment), in the pipeline's partition. Every change is a
// single-item conditional write on the revision the marker waits for, so two verifiers racing with different
// candidates cannot both win, and an older candidate never replaces a newer one.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApprovalMarker } from '../../decision/types.js';
import { isNewerRevision, sameRevision } from '../../flux/revision.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { ApprovalRequestOutcome, Approvals, ApproveOutcome } from '../port.js';
import { isConditionFailure, keys, type TableContext } from './table.js';

const MAX_ATTEMPTS = 10;

export class DynamoApprovals implements Approvals {
  constructor(private readonly table: TableContext) {}

  async getApproval(pipeline: ObjectKey, env: string): Promise<ApprovalMarker | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.approval(pipeline, env), ConsistentRead: true }),
    );
    return result.Item && marker(result.Item);
  }

  async listApprovals(pipeline: ObjectKey): Promise<ApprovalMarker[]> {
    const result = await this.table.documents.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.pipeline(pipeline).pk, ':prefix': keys.approvalPrefix },
        ConsistentRead: true,
      }),
    );
    // At most one marker per environment: a pipeline's markers fit in one page.
    return (result.Items ?? []).map(marker);
  }

  async requestApproval(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    now: Date,
  ): Promise<ApprovalRequestOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const current = await this.getApproval(pipeline, env);
      if (current && sameRevision(current.revision, revision)) return 'unchanged';
      if (current && isNewerRevision(current.revision, revision)) return 'superseded';
      try {
        await this.table.documents.send(
          new PutCommand({
            TableName: this.table.tableName,
            Item: {
              ...keys.approval(pipeline, env),
              entity: 'approval',
              env,
              revision,
              requestedAt: now.toISOString(),
            },
            ConditionExpression: current ? 'revision = :current' : 'attribute_not_exists(pk)',
            ExpressionAttributeValues: current ? { ':current': current.revision } : undefined,
          }),
        );
        return 'requested';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // Another request won meanwhile: look at what it set and decide again.
      }
    }
    throw new Error(`approval marker of ${pipeline.namespace}/${pipeline.name} ${env} kept changing; try again`);
  }

  async approve(pipeline: ObjectKey, env: string, revision: string, by: string, now: Date): Promise<ApproveOutcome> {
    try {
      await this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.approval(pipeline, env),
          UpdateExpression: 'SET approvedAt = :now, approvedBy = :by',
          ConditionExpression: 'revision = :revision AND attribute_not_exists(approvedAt)',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':by': by, ':revision': revision },
        }),
      );
      return 'approved';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const current = await this.getApproval(pipeline, env);
    return current?.revision === revision && current.approvedAt !== undefined ? 'already-approved' : 'not-waiting';
  }

  async clearApproval(pipeline: ObjectKey, env: string, revision: string): Promise<boolean> {
    try {
      await this.table.documents.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.approval(pipeline, env),
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': revision },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

export function marker(item: Record<string, unknown>): ApprovalMarker {
  const result: ApprovalMarker = {
    env: String(item.env),
    revision: String(item.revision),
    requestedAt: String(item.requestedAt),
  };
  if (typeof item.approvedAt === 'string') result.approvedAt = item.approvedAt;
  if (typeof item.approvedBy === 'string') result.approvedBy = item.approvedBy;
  return result;
}
