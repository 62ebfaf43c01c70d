// dynalite (DynamoDB on LevelDB) started inside the test process on a random port, with a fresh table, and a
// counter of the DynamoDB operations the client sends, so tests can assert how many reads and writes a call cost.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createTable } from '../../lib/store/index.js';

export interface LocalDynamo {
  client: DynamoDBClient;
  tableName: string;
  endpoint: string;
  /** Operations sent since the last reset, by DynamoDB operation name (`GetItem`, `PutItem`, `Query`, …). */
  operations: Map<string, number>;
  resetCounts(): void;
  /** Writes counted (PutItem, UpdateItem, DeleteItem, BatchWriteItem). */
  writes(): number;
  stop(): Promise<void>;
}

const WRITE_OPERATIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];
let tables = 0;

export interface DynaliteOptions {
  /**
   * The client retries as the SDK does by default (as the Lambda functions' clients do). By default it makes one
   * attempt only: a test wants to see every failure.
   */
  sdkRetries?: boolean;
  /**
   * dynalite in a process of its own rather than this one: for a benchmark whose wall time should not count
   * dynalite's CPU on the product's thread, as DynamoDB's is not the Lambda function's.
   */
  ownProcess?: boolean;
}

export async function startDynalite(options: DynaliteOptions = {}): Promise<LocalDynamo> {
  const { port, close } = options.ownProcess ? await serveInChild() : await serveInProcess();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(options.sdkRetries ? {} : { maxAttempts: 1 }),
  });
  const operations = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      // The low-level command name, e.g. PutItemCommand, also when sent through the document client.
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      operations.set(name, (operations.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countOperations' },
  );
  tables += 1;
  const tableName = `pipeline-controller-test-${tables}`;
  await createTable(client, tableName);
  operations.clear();
  return {
    client,
    tableName,
    endpoint,
    operations,
    resetCounts: () => operations.clear(),
    writes: () => WRITE_OPERATIONS.reduce((sum, name) => sum + (operations.get(name) ?? 0), 0),
    stop: async () => {
      client.destroy();
      await close();
    },
  };
}

export interface DynaliteServer {
  port: number;
  close: () => Promise<void>;
}

/** dynalite in this process, as every test and dynalite-process.ts run it. */
export async function serveInProcess(): Promise<DynaliteServer> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Idle connections stay open: a test that keeps the process busy for longer than Node's keep-alive timeout (5 s,
  // e.g. reading 10,000 documents on a busy machine) would otherwise meet a pooled connection the server is closing
  // (ECONNRESET) on its next request. stop() destroys the client, which closes them.
  server.keepAliveTimeout = 0;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}

/** dynalite-process.ts: it prints its port, and exits when its stdin closes (with this process, at the latest). */
async function serveInChild(): Promise<DynaliteServer> {
  const entry = new URL('./dynalite-process.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['pipe', 'pipe', 'inherit'] });
  let printed = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dynalite's process exited (${code}) before it listened`)));
    child.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('\n')) resolve(Number(printed.trim()));
    });
  });
  child.removeAllListeners('exit');
  return {
    port,
    close: async () => {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}
