// Served inputs (docs/external-service.md), one per (pipeline, environment), in the pipeline's partition (so a
// deleted pipeline takes them along). A promotion replaces the record; the revision an environment ran before its
// first promotion is written only where there is none, so it never replaces a promotion.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
// zod/mini: the receiver reads these, and its bundle holds no part of zod's classic API.
import * as z from 'zod/mini';
import type { ServedInput } from '../../decision/types.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { ServedInputs } from '../port.js';
import { queryAll } from './query.js';
import { conditionHeld, keys, type TableContext } from './table.js';

export class DynamoServedInputs implements ServedInputs {
  constructor(private readonly table: TableContext) {}

  async getServedInput(pipeline: ObjectKey, env: string): Promise<ServedInput | undefined> {
    const { Item } = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.servedInput(pipeline, env) }),
    );
    return servedInputOf(Item);
  }

  async listServedInputs(pipeline: ObjectKey): Promise<ServedInput[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.pipeline(pipeline).pk, ':prefix': keys.servedInputPrefix },
      ConsistentRead: true,
    });
    return items.flatMap((item) => servedInputOf(item) ?? []);
  }

  async putServedInput(pipeline: ObjectKey, input: ServedInput): Promise<void> {
    await this.table.documents.send(new PutCommand({ TableName: this.table.tableName, Item: itemOf(pipeline, input) }));
  }

  async seedServedInput(pipeline: ObjectKey, input: ServedInput): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: itemOf(pipeline, input),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }
}

function itemOf(pipeline: ObjectKey, input: ServedInput): Record<string, unknown> {
  return { ...keys.servedInput(pipeline, input.env), entity: 'served-input', ...input };
}

const StoredServedInput = z.object({
  env: z.string(),
  version: z.string(),
  previousVersion: z.optional(z.string()),
  promotedAt: z.optional(z.string()),
  approvedBy: z.optional(z.string()),
  servedSince: z.string(),
});

/** An item this version cannot read (written by another) serves as if there were none. */
function servedInputOf(item: Record<string, unknown> | undefined): ServedInput | undefined {
  const stored = StoredServedInput.safeParse(item);
  if (!stored.success) return undefined;
  const { env, version, previousVersion, promotedAt, approvedBy, servedSince } = stored.data;
  return {
    env,
    version,
    ...(previousVersion === undefined ? {} : { previousVersion }),
    ...(promotedAt === undefined ? {} : { promotedAt }),
    ...(approvedBy === undefined ? {} : { approvedBy }),
    servedSince,
  };
}
