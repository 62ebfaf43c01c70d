// Approval markers: at most one per (pipeline, environment), in the pipeline's partition. Every change is a
// single-item conditional write on the revision the marker waits for, so two verifiers racing with different
// candidates cannot both win, and an older candidate never replaces a newer one.
//
// An approval policy (docs/approval-policies.md) needs `required` distinct approvers. Each approval is one
// conditional write that appends `{by, at, countedAs}` to `approvals` and adds the identity it counts as to the string
// set `approverNames` (a list of maps cannot be searched in a condition, a set can), only while that identity is not
// in the set (what is written is decided as the in-memory store decides it: ../approval-step.ts); the write that brings the
// set to `required` sets `approvedAt` in the same request, conditional on the set's size. So two approvers racing
// cannot both approve, and neither is lost: the loser's condition fails, it reads the marker and writes again.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApprovalMarker } from '../../decision/types.js';
import type { ObjectKey } from '../../pipeline/model.js';
import {
  approvalBy,
  approvalEntry,
  approvalStep,
  isApprovalWrite,
  rejectStep,
  requestStep,
  type ApprovalBy,
  type ApprovalWrite,
} from '../approval-step.js';
import type { ApprovalRequestOutcome, Approvals, ApproveOutcome, RejectOutcome } from '../port.js';
import { conditionHeld, keys, type TableContext } from './table.js';

const MAX_ATTEMPTS = 10;

/** The string set of the identities in `approvals`: what the conditions test. */
const APPROVER_NAMES = 'approverNames';

/** Waiting for exactly this revision: neither approved nor rejected. */
const WAITING = 'revision = :revision AND attribute_not_exists(approvedAt) AND attribute_not_exists(rejectedAt)';

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
      const step = requestStep(current, revision);
      if (step !== 'request') return step;
      // A put replaces the whole item: the approvals and the rejection of the older revision go with it.
      const requested = await conditionHeld(
        this.table.documents.send(
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
        ),
      );
      if (requested) return 'requested';
      // Another request won meanwhile: look at what it set and decide again.
    }
    throw new Error(`approval marker of ${pipeline.namespace}/${pipeline.name} ${env} kept changing; try again`);
  }

  async approve(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    now: Date,
    required = 1,
    countedAs?: string,
  ): Promise<ApproveOutcome> {
    const approval = approvalBy(by, countedAs);
    // A policy of one writes without reading first, as before policies existed: the condition decides.
    let current: ApprovalMarker | undefined = required <= 1 ? undefined : await this.getApproval(pipeline, env);
    // Each failed write means another write landed in between; at most `required` approvals can.
    for (let attempt = 0; attempt < MAX_ATTEMPTS + required; attempt += 1) {
      const next: ApproveOutcome | ApprovalWrite =
        attempt === 0 && required <= 1 ? 'approve' : approvalStep(current, revision, approval, required);
      if (!isApprovalWrite(next)) return next;
      const written = await conditionHeld(
        this.table.documents.send(this.#approvalUpdate(pipeline, env, revision, approval, now, required, next)),
      );
      if (written) return next === 'count' ? 'counted' : 'approved';
      current = await this.getApproval(pipeline, env);
    }
    throw new Error(`approval marker of ${pipeline.namespace}/${pipeline.name} ${env} kept changing; try again`);
  }

  #approvalUpdate(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    approval: ApprovalBy,
    now: Date,
    required: number,
    write: ApprovalWrite,
  ): UpdateCommand {
    // DynamoDB refuses a value the expressions do not use: each write names exactly its own. `:by` is who is shown
    // as having approved; `:identity` what the set of distinct approvers holds.
    const approved = { ':now': now.toISOString(), ':by': approval.by, ':revision': revision };
    const counted = {
      ':identity': approval.countedAs,
      ':revision': revision,
      ':entry': [approvalEntry(approval, now)],
      ':none': [],
      ':names': new Set([approval.countedAs]),
      ':others': required - 1,
    };
    const append = 'approvals = list_append(if_not_exists(approvals, :none), :entry)';
    const base = { TableName: this.table.tableName, Key: keys.approval(pipeline, env) };
    switch (write) {
      case 'approve':
        return new UpdateCommand({
          ...base,
          UpdateExpression: 'SET approvedAt = :now, approvedBy = :by',
          ConditionExpression: WAITING,
          ExpressionAttributeValues: approved,
        });
      case 'count':
        return new UpdateCommand({
          ...base,
          UpdateExpression: `SET ${append} ADD #names :names`,
          ConditionExpression: `${WAITING} AND NOT contains(#names, :identity) AND (attribute_not_exists(#names) OR size(#names) < :others)`,
          ExpressionAttributeNames: { '#names': APPROVER_NAMES },
          ExpressionAttributeValues: counted,
        });
      case 'count-and-approve':
        return new UpdateCommand({
          ...base,
          UpdateExpression: `SET ${append}, approvedAt = :now, approvedBy = :by ADD #names :names`,
          ConditionExpression: `${WAITING} AND NOT contains(#names, :identity) AND size(#names) >= :others`,
          ExpressionAttributeNames: { '#names': APPROVER_NAMES },
          ExpressionAttributeValues: { ...counted, ':now': now.toISOString(), ':by': approval.by },
        });
      case 'approve-counted':
        return new UpdateCommand({
          ...base,
          UpdateExpression: 'SET approvedAt = :now, approvedBy = :by',
          ConditionExpression: `${WAITING} AND contains(#names, :identity) AND size(#names) >= :required`,
          ExpressionAttributeNames: { '#names': APPROVER_NAMES },
          ExpressionAttributeValues: { ...approved, ':identity': approval.countedAs, ':required': required },
        });
    }
  }

  async reject(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    by: string,
    reason: string,
    now: Date,
  ): Promise<RejectOutcome> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const rejected = await conditionHeld(
        this.table.documents.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: keys.approval(pipeline, env),
            UpdateExpression: 'SET rejectedAt = :now, rejectedBy = :by, rejectionReason = :reason',
            ConditionExpression: WAITING,
            ExpressionAttributeValues: {
              ':now': now.toISOString(),
              ':by': by,
              ':reason': reason,
              ':revision': revision,
            },
          }),
        ),
      );
      if (rejected) return 'rejected';
      const current = await this.getApproval(pipeline, env);
      const step = rejectStep(current, revision);
      if (typeof step === 'string') return step;
      // Neither: the marker was replaced and requested again for the same revision in between. Write again.
    }
    throw new Error(`approval marker of ${pipeline.namespace}/${pipeline.name} ${env} kept changing; try again`);
  }

  async clearApproval(pipeline: ObjectKey, env: string, revision: string): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.approval(pipeline, env),
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': revision },
        }),
      ),
    );
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
  if (Array.isArray(item.approvals)) result.approvals = item.approvals.flatMap(approvalOf);
  if (typeof item.rejectedAt === 'string') result.rejectedAt = item.rejectedAt;
  if (typeof item.rejectedBy === 'string') result.rejectedBy = item.rejectedBy;
  if (typeof item.rejectionReason === 'string') result.rejectionReason = item.rejectionReason;
  return result;
}

function approvalOf(value: unknown): NonNullable<ApprovalMarker['approvals']> {
  if (typeof value !== 'object' || value === null) return [];
  const { by, at, countedAs } = value as Record<string, unknown>;
  if (typeof by !== 'string' || typeof at !== 'string') return [];
  return [typeof countedAs === 'string' ? { by, at, countedAs } : { by, at }];
}
