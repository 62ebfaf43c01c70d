// BatchWriteItem in chunks of 25 (DynamoDB's limit), retrying what DynamoDB leaves unprocessed under load.
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './table.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];
const CHUNK = 25;
const MAX_ROUNDS = 8;

export async function batchWrite(table: TableContext, requests: readonly WriteRequest[]): Promise<void> {
  for (let start = 0; start < requests.length; start += CHUNK) {
    let pending: WriteRequest[] = requests.slice(start, start + CHUNK);
    for (let round = 0; pending.length > 0; round += 1) {
      if (round === MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} writes unprocessed; try again`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** round));
      const result = await table.documents.send(
        new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }),
      );
      pending = result.UnprocessedItems?.[table.tableName] ?? [];
    }
  }
}

export const putRequest = (item: Record<string, unknown>): WriteRequest => ({ PutRequest: { Item: item } });
export const deleteRequest = (key: { pk: string; sk: string }): WriteRequest => ({ DeleteRequest: { Key: key } });
