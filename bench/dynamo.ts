// The store the benchmarks run on: the real DynamoDB adapter against dynalite (test/support/dynalite.ts) in this
// process, through a client with the SDK's default retries, as the Lambda functions build theirs. The tests' client
// makes one attempt only (a test wants to see every failure); a benchmark runs for seconds with idle gaps, and
// dynalite's HTTP server closes keep-alive sockets after 5 s idle, so the SDK's retry of a reset socket is what
// production has and what the figures should include. Operations are counted by name, as in the tests.
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
  const dynamo = await startDynalite({ sdkRetries: true });
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    operations: dynamo.operations,
    total: () => [...dynamo.operations.values()].reduce((sum, count) => sum + count, 0),
    resetCounts: () => dynamo.resetCounts(),
    stop: () => dynamo.stop(),
  };
}
