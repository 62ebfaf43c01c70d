// Reading every page of a Query: DynamoDB returns at most 1 MB per request, so "one request" access patterns still
// follow LastEvaluatedKey when a partition outgrows a page.
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './table.js';

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
