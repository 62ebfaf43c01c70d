// Promotion records, one per (pipeline, environment, revision), in the pipeline's partition. Creation is
// conditional on absence, so exactly one caller creates a record (and, when it asks, holds its first attempt from
// that same write); every later change is conditional on the record's version (optimistic locking), so two workers
// never both own an attempt.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  isClaimable,
  promotionStage,
  type HostDeploymentRecord,
  type HostDeploymentState,
  type PullRequestState,
} from '../../decision/index.js';
import { queryAll } from './query.js';
import type { ObjectKey } from '../../pipeline/model.js';
import { isPromotionFailureKind, type PromotionFailureKind } from '../../promotion/failure-kind.js';
import type { PromotionClaim, Promotions, VersionedPromotionRecord } from '../port.js';
import { conditionHeld, expiresAfter, keys, type TableContext, unlessConditionFailed } from './table.js';
import { newPromotionRecord } from '../new-promotion-record.js';

const MAX_ATTEMPTS = 10;

export class DynamoPromotions implements Promotions {
  constructor(private readonly table: TableContext) {}

  async getPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
  ): Promise<VersionedPromotionRecord | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({
        TableName: this.table.tableName,
        Key: keys.promotion(pipeline, env, revision),
        ConsistentRead: true,
      }),
    );
    return result.Item && record(result.Item);
  }

  async listPromotions(pipeline: ObjectKey): Promise<VersionedPromotionRecord[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.pipeline(pipeline).pk, ':prefix': keys.promotionPrefix },
      ConsistentRead: true,
    });
    return items.map(record);
  }

  async createPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    now: Date,
    claim?: PromotionClaim,
  ): Promise<{ created: boolean; record: VersionedPromotionRecord }> {
    const fresh = newPromotionRecord(pipeline, env, revision, now, claim);
    const created = await conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...keys.promotion(pipeline, env, revision), entity: 'promotion', ...storedFields(fresh) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    if (created) return { created: true, record: fresh };
    const existing = await this.getPromotion(pipeline, env, revision);
    if (!existing) throw new Error('promotion record vanished right after it was found; try again');
    return { created: false, record: existing };
  }

  async claimPromotion(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    owner: string,
    leaseMs: number,
    now: Date,
  ): Promise<VersionedPromotionRecord | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const current = await this.getPromotion(pipeline, env, revision);
      // The decision's own rule (lib/decision/promotion-lifecycle.ts), enforced here by the version condition.
      if (!current || !isClaimable(promotionStage(current, now))) return undefined;
      const result = await unlessConditionFailed(
        this.table.documents.send(
          new UpdateCommand({
            TableName: this.table.tableName,
            Key: keys.promotion(pipeline, env, revision),
            UpdateExpression:
              'SET #state = :inProgress, attempts = attempts + :one, version = version + :one, #owner = :owner, ' +
              'leaseExpiresAt = :lease, updatedAt = :now REMOVE retryAt',
            ConditionExpression: 'version = :version',
            ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
            ExpressionAttributeValues: {
              ':inProgress': 'in-progress',
              ':one': 1,
              ':owner': owner,
              ':lease': new Date(now.getTime() + leaseMs).toISOString(),
              ':now': now.toISOString(),
              ':version': current.version,
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      if (result) return result.Attributes && record(result.Attributes);
      // Someone else moved the record: look again.
    }
    return undefined;
  }

  async completePromotion(claimed: VersionedPromotionRecord, result: string | undefined, now: Date): Promise<boolean> {
    return this.finish(claimed, now, {
      set: {
        state: 'succeeded',
        ...(result === undefined ? {} : { result }),
        expiresAt: expiresAfter(now, this.table.retentionDays),
      },
      remove: ['leaseExpiresAt', 'owner', 'retryAt', 'error', 'failureKind', 'pullRequest'],
    });
  }

  async recordPullRequestState(
    claimed: VersionedPromotionRecord,
    state: PullRequestState,
    now: Date,
  ): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.promotion(claimed.pipeline, claimed.env, claimed.revision),
          UpdateExpression: 'SET version = version + :one, pullRequest = :pullRequest',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: {
            ':version': claimed.version,
            ':one': 1,
            ':pullRequest': { state, seenAt: now.toISOString() },
          },
        }),
      ),
    );
  }

  async recordHostDeployment(claimed: VersionedPromotionRecord, deployment: HostDeploymentRecord): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.promotion(claimed.pipeline, claimed.env, claimed.revision),
          UpdateExpression:
            'SET version = version + :one, hostDeployment = :deployment REMOVE hostDeploymentClaimedUntil',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': claimed.version, ':one': 1, ':deployment': { ...deployment } },
        }),
      ),
    );
  }

  async claimHostDeployment(
    claimed: VersionedPromotionRecord,
    until: Date,
  ): Promise<VersionedPromotionRecord | undefined> {
    const claimedUntil = until.toISOString();
    const held = await conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.promotion(claimed.pipeline, claimed.env, claimed.revision),
          UpdateExpression: 'SET version = version + :one, hostDeploymentClaimedUntil = :until',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': claimed.version, ':one': 1, ':until': claimedUntil },
        }),
      ),
    );
    if (!held) return undefined;
    return { ...claimed, hostDeploymentClaimedUntil: claimedUntil, version: claimed.version + 1 };
  }

  async failPromotion(
    claimed: VersionedPromotionRecord,
    error: string,
    retryAt: Date | undefined,
    now: Date,
    failureKind?: PromotionFailureKind,
  ): Promise<boolean> {
    return this.finish(claimed, now, {
      set: {
        state: 'failed',
        error,
        ...(retryAt ? { retryAt: retryAt.toISOString() } : {}),
        ...(failureKind ? { failureKind } : {}),
      },
      remove: ['leaseExpiresAt', 'owner', ...(retryAt ? [] : ['retryAt']), ...(failureKind ? [] : ['failureKind'])],
    });
  }

  /** Ends the attempt that `claimed` describes, only if nobody moved the record since (its version). */
  private async finish(
    claimed: VersionedPromotionRecord,
    now: Date,
    change: { set: Record<string, unknown>; remove: string[] },
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':version': claimed.version, ':one': 1, ':now': now.toISOString() };
    const sets = ['version = version + :one', 'updatedAt = :now'];
    for (const [field, value] of Object.entries(change.set)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const removes = change.remove.map((field) => {
      names[`#${field}`] = field;
      return `#${field}`;
    });
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.promotion(claimed.pipeline, claimed.env, claimed.revision),
          UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'version = :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }
}

/** A new record as `createPromotion` writes it without a claim: nobody's attempt yet. */
/** The item's attributes: the pipeline is in the key, and kept as plain attributes for reading back. */
function storedFields(value: VersionedPromotionRecord): Record<string, unknown> {
  const { pipeline, ...rest } = value;
  return { ...rest, pipelineNamespace: pipeline.namespace, pipelineName: pipeline.name };
}

function record(item: Record<string, unknown>): VersionedPromotionRecord {
  const result: VersionedPromotionRecord = {
    pipeline: { namespace: String(item.pipelineNamespace), name: String(item.pipelineName) },
    env: String(item.env),
    revision: String(item.revision),
    state: item.state as VersionedPromotionRecord['state'],
    attempts: Number(item.attempts),
    version: Number(item.version),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
  for (const field of [
    'leaseExpiresAt',
    'retryAt',
    'result',
    'error',
    'owner',
    'hostDeploymentClaimedUntil',
  ] as const) {
    if (typeof item[field] === 'string') result[field] = item[field];
  }
  if (isPromotionFailureKind(item.failureKind)) result.failureKind = item.failureKind;
  const pullRequest = pullRequestOf(item.pullRequest);
  if (pullRequest) result.pullRequest = pullRequest;
  const hostDeployment = hostDeploymentOf(item.hostDeployment);
  if (hostDeployment) result.hostDeployment = hostDeployment;
  return result;
}

const HOST_DEPLOYMENT_STATES: readonly unknown[] = [
  'in_progress',
  'success',
  'failure',
] satisfies HostDeploymentState[];

/** The stored `hostDeployment` map; undefined when absent or not of its shape (a new one is then recorded). */
function hostDeploymentOf(value: unknown): HostDeploymentRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, sha, state, at } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof sha !== 'string' || typeof at !== 'string') return undefined;
  if (!HOST_DEPLOYMENT_STATES.includes(state)) return undefined;
  return { id, sha, state: state as HostDeploymentState, at };
}

const PULL_REQUEST_STATES: readonly unknown[] = ['open', 'merged', 'closed'] satisfies PullRequestState[];

/** The stored `pullRequest` map; undefined when absent or not of its shape (it is then read again from the host). */
function pullRequestOf(value: unknown): VersionedPromotionRecord['pullRequest'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { state, seenAt } = value as Record<string, unknown>;
  if (!PULL_REQUEST_STATES.includes(state) || typeof seenAt !== 'string') return undefined;
  return { state: state as PullRequestState, seenAt };
}
