// Reading every page of a Query: DynamoDB returns at most 1 MB per request, so "one request" access patterns still
// follow LastEvaluatedKey when a partition outgrows a page.
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PageRequest } from '../port.js';
import { decodeCursor, encodeCursor, TABLE_SCHEMA, type TableContext } from './table.js';

export type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** Yields the items of each page in turn, so a caller can act on a page before the next is read. */
export async function* queryPages(table: TableContext, input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.documents.send(
      new QueryCommand({ ...input, TableName: table.tableName, ExclusiveStartKey: start }),
    );
    yield page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

export async function queryAll(table: TableContext, input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(table, input)) items.push(...page);
  return items;
}

/**
 * One page of the objects of a kind (clusters, pipelines, sources, sets), listed through the index by the partition
 * that names the kind, with the cursor of the next page.
 */
export async function queryIndexPage(
  table: TableContext,
  partition: string,
  page: PageRequest,
): Promise<{ items: unknown[]; cursor?: string }> {
  const result = await table.documents.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: TABLE_SCHEMA.index,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      Limit: page.limit,
      ExclusiveStartKey: decodeCursor(page.cursor),
    }),
  );
  const cursor = encodeCursor(result.LastEvaluatedKey);
  return cursor === undefined ? { items: result.Items ?? [] } : { items: result.Items ?? [], cursor };
}
