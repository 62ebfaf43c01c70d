// Claims of notifications to people: one item per (pipeline, environment, revision, kind of news), written with a
// conditional put so that exactly one verifier wins, however many see the same effect. The items live in a partition
// of their own, like the audit trail, so deleting and re-applying a pipeline does not tell people the same news again;
// they expire (TTL) after the audit retention.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { pipelineKeyOf, type ObjectKey } from '../../pipeline/model.js';
import type { Notifications } from '../port.js';
import { conditionHeld, expiresAfter, keys, TABLE_SCHEMA, type TableContext } from './table.js';

const ENTITY = 'notification';

/** pk `NOTIFIED#{ns}/{name}`, sk `{env}#{revision}#{kind}`, each part URI-encoded as every key of the table is. */
export function notificationKey(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  kind: string,
): { pk: string; sk: string } {
  const part = encodeURIComponent;
  return {
    pk: `NOTIFIED#${keys.objectSortKey(pipeline)}`,
    sk: `${part(env)}#${part(revision)}#${part(kind)}`,
  };
}

export class DynamoNotifications implements Notifications {
  constructor(private readonly table: TableContext) {}

  async claimNotification(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    kind: string,
    now: Date,
  ): Promise<boolean> {
    const ttl = TABLE_SCHEMA.ttlAttribute;
    return conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...notificationKey(pipeline, env, revision, kind),
            entity: ENTITY,
            pipeline: pipelineKeyOf(pipeline),
            env,
            revision,
            kind,
            claimedAt: now.toISOString(),
            [ttl]: expiresAfter(now, this.table.retentionDays),
          },
          // DynamoDB removes an expired item up to a few days late: until then it no longer counts as a claim.
          ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt < :now',
          ExpressionAttributeNames: { '#expiresAt': ttl },
          ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
        }),
      ),
    );
  }
}
