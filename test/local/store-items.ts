// Every item of a data directory's store, read as a user's own process reads it: through the running serve (with
// the access key in serve.json) or, when no serve runs, by opening the data directory. Sorted by key, so that two
// stores compare with deepEqual.
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_TABLE_NAME, readServeInfo } from '../../lib/local/data-dir.js';
import { localDynamoClient, startLocalDynamo } from '../../lib/local/dynamo.js';

export type StoredItem = Record<string, AttributeValue>;

export async function scanClient(client: DynamoDBClient): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let start: StoredItem | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  const key = (item: StoredItem) => `${item.pk?.S ?? ''}\u0000${item.sk?.S ?? ''}`;
  return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export async function storeItems(dataDir: string): Promise<StoredItem[]> {
  const serve = await readServeInfo(dataDir);
  if (serve) {
    const client = localDynamoClient(serve.dynamoEndpoint, serve.dynamoAccessKey);
    try {
      return await scanClient(client);
    } finally {
      client.destroy();
    }
  }
  const dynamo = await startLocalDynamo(dataDir);
  try {
    return await scanClient(dynamo.client);
  } finally {
    await dynamo.stop();
  }
}
