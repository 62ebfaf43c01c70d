// BatchWriteItem in chunks of 25 and BatchGetItem in chunks of 100 (DynamoDB's limits), retrying what DynamoDB leaves
// unprocessed under load, a bounded number of times with a growing pause: one loop for the store's own writes, its
// batched reads and a restore's raw items.
import {
  BatchWriteItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type WriteRequest as RawWriteRequest,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './table.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
const WRITE_CHUNK = 25;
const READ_CHUNK = 100;
const MAX_ROUNDS = 8;

/** Sends `requests` `chunk` at a time; `send` sends one batch and gives back what DynamoDB left unprocessed. */
async function inBatches<Request>(
  requests: readonly Request[],
  send: (batch: Request[]) => Promise<Request[] | undefined>,
  chunk = WRITE_CHUNK,
  what = 'writes',
): Promise<void> {
  for (let start = 0; start < requests.length; start += chunk) {
    let pending: Request[] = requests.slice(start, start + chunk);
    for (let round = 0; pending.length > 0; round += 1) {
      if (round === MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} ${what} unprocessed; try again`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** round));
      pending = (await send(pending)) ?? [];
    }
  }
}

export async function batchWrite(table: TableContext, requests: readonly WriteRequest[]): Promise<void> {
  await inBatches(requests, async (pending) => {
    const result = await table.documents.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
    return result.UnprocessedItems?.[table.tableName];
  });
}

/** The items at these keys (those that exist, in no particular order), read consistently or not. */
export async function batchGet(
  table: TableContext,
  itemKeys: readonly { pk: string; sk: string }[],
  consistent: boolean,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  await inBatches(
    itemKeys,
    async (pending) => {
      const result = await table.documents.send(
        new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: pending, ConsistentRead: consistent } } }),
      );
      found.push(...(result.Responses?.[table.tableName] ?? []));
      return result.UnprocessedKeys?.[table.tableName]?.Keys as { pk: string; sk: string }[] | undefined;
    },
    READ_CHUNK,
    'reads',
  );
  return found;
}

/**
 * Puts items exactly as DynamoDB holds them (attribute values, as a backup keeps them, never converted to JavaScript
 * values and back), with the store's batching and retry cap: what a restore writes into a new table.
 */
export async function putRawItems(
  client: DynamoDBClient,
  tableName: string,
  items: readonly Record<string, AttributeValue>[],
): Promise<void> {
  await inBatches(
    items.map((item): RawWriteRequest => ({ PutRequest: { Item: item } })),
    async (pending) => {
      const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      return result.UnprocessedItems?.[tableName];
    },
  );
}

export const putRequest = (item: Record<string, unknown>): WriteRequest => ({ PutRequest: { Item: item } });
export const deleteRequest = (key: { pk: string; sk: string }): WriteRequest => ({ DeleteRequest: { Key: key } });
