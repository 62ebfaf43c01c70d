// The store the benchmarks run on: the real DynamoDB adapter against dynalite (test/support/dynalite.ts) in this
// process, through a client with the SDK's default retries, as the Lambda functions build theirs. The tests' client
// makes one attempt only (a test wants to see every failure); a benchmark runs for seconds with idle gaps, and
// dynalite's HTTP server closes keep-alive sockets after 5 s idle, so the SDK's retry of a reset socket is what
// production has and what the figures should include. Operations are counted by name, like the tests' counter.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStore } from '../lib/store/index.js';
import type { Store } from '../lib/store/port.js';
import { startDynalite } from '../test/support/dynalite.js';

export interface BenchDynamo {
  store: Store;
  /** DynamoDB operations sent since the last reset, by name (`GetItem`, `BatchGetItem`, `PutItem`, …). */
  operations: Map<string, number>;
  /** All operations counted since the last reset. */
  total(): number;
  resetCounts(): void;
  stop(): Promise<void>;
}

export async function startBenchDynamo(): Promise<BenchDynamo> {
  const dynamo = await startDynalite();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const operations = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      operations.set(name, (operations.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countBenchOperations' },
  );
  return {
    store: createDynamoStore({ client, tableName: dynamo.tableName }),
    operations,
    total: () => [...operations.values()].reduce((sum, count) => sum + count, 0),
    resetCounts: () => operations.clear(),
    stop: async () => {
      client.destroy();
      await dynamo.stop();
    },
  };
}
