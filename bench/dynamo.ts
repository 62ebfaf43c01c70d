// The store the benchmarks run on: the real DynamoDB adapter against dynalite (test/support/dynalite.ts) in this
// process (or in one of its own), through a client with the SDK's default retries, as the Lambda functions build
// theirs. The tests' client makes one attempt only (a test wants to see every failure); a benchmark runs for seconds
// with idle gaps, and dynalite's HTTP server closes keep-alive sockets after 5 s idle, so the SDK's retry of a reset
// socket is what production has and what the figures should include. Operations are counted by name, as in the
// tests, and every request asks for the capacity units it consumes (`capacityUnitsOf` says how they are counted).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoStore } from '../lib/store/index.js';
import type { Store } from '../lib/store/port.js';
import { startDynalite } from '../test/support/dynalite.js';

export const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
export const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/** Capacity units consumed since the last reset: what on-demand DynamoDB bills. */
export interface CapacityUnits {
  readUnits: number;
  writeUnits: number;
  /** Conditional writes DynamoDB refused: billed as 1 WRU each. */
  failedConditionalWrites: number;
  /** Queries that found nothing: dynalite reports 0 units, billed at DynamoDB's minimum (1 RRU, 0.5 if eventual). */
  emptyQueries: number;
}

export const noCapacityUnits = (): CapacityUnits => ({
  readUnits: 0,
  writeUnits: 0,
  failedConditionalWrites: 0,
  emptyQueries: 0,
});

/**
 * Makes every request of `client` ask for its consumed capacity and adds it to `units()` (looked up per request, so
 * the caller can switch counters). dynalite follows DynamoDB's rules: reads in 4 KB units, halved when eventually
 * consistent; writes in 1 KB units, the larger of the old and new item. Two corrections make it what DynamoDB bills:
 * a refused conditional write still costs 1 WRU, and a Query that found nothing costs the minimum read.
 */
export function countCapacityUnits(client: DynamoDBClient, units: (operation: string) => CapacityUnits): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as { ReturnConsumedCapacity?: string; ConsistentRead?: boolean };
      input.ReturnConsumedCapacity = 'TOTAL';
      const counted = units(operation);
      const isWrite = WRITE_OPERATIONS.has(operation);
      try {
        const result = await next(args);
        const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        let consumedUnits = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
          (sum: number, entry) => sum + ((entry as { CapacityUnits?: number }).CapacityUnits ?? 0),
          0,
        );
        if (operation === 'Query' || operation === 'Scan') {
          const minimum = input.ConsistentRead ? 1 : 0.5;
          if (consumedUnits < minimum) {
            consumedUnits = minimum;
            counted.emptyQueries++;
          }
        }
        if (isWrite) counted.writeUnits += consumedUnits;
        else counted.readUnits += consumedUnits;
        return result;
      } catch (error) {
        if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
          counted.failedConditionalWrites++;
          counted.writeUnits += 1;
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
}

export interface BenchDynamo {
  store: Store;
  /** DynamoDB operations sent since the last reset, by name (`GetItem`, `BatchGetItem`, `PutItem`, …). */
  operations: Map<string, number>;
  /** All operations counted since the last reset. */
  total(): number;
  /** Capacity units consumed since the last reset. */
  units(): CapacityUnits;
  resetCounts(): void;
  stop(): Promise<void>;
}

export interface BenchDynamoOptions {
  /**
   * dynalite in a process of its own (a benchmark of the poll, whose wall time on one thread would otherwise count
   * dynalite's CPU for each of its 50,000 writes as the product's; DynamoDB's is not the Lambda function's).
   */
  ownProcess?: boolean;
}

export async function startBenchDynamo(options: BenchDynamoOptions = {}): Promise<BenchDynamo> {
  const dynamo = await startDynalite({ sdkRetries: true, ownProcess: options.ownProcess });
  let units = noCapacityUnits();
  countCapacityUnits(dynamo.client, () => units);
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    operations: dynamo.operations,
    total: () => [...dynamo.operations.values()].reduce((sum, count) => sum + count, 0),
    units: () => ({ ...units }),
    resetCounts: () => {
      dynamo.resetCounts();
      units = noCapacityUnits();
    },
    stop: () => dynamo.stop(),
  };
}
