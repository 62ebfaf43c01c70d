// BatchWriteItem in chunks of 25 (DynamoDB's limit), retrying what DynamoDB leaves unprocessed under load, a bounded
// number of times with a growing pause: one loop for the store's own writes and for a restore's raw items.
import {
  BatchWriteItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type WriteRequest as RawWriteRequest,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './table.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
const CHUNK = 25;
const MAX_ROUNDS = 8;

/** Sends `requests` 25 at a time; `send` writes one batch and gives back what DynamoDB left unprocessed. */
async function inBatches<Request>(
  requests: readonly Request[],
  send: (batch: Request[]) => Promise<Request[] | undefined>,
): Promise<void> {
  for (let start = 0; start < requests.length; start += CHUNK) {
    let pending: Request[] = requests.slice(start, start + CHUNK);
    for (let round = 0; pending.length > 0; round += 1) {
      if (round === MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} writes unprocessed; try again`);
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
