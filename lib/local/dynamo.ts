// The local store: dynalite on LevelDB in the data directory, served over HTTP on loopback so that the CLI can use
// it while `serve` holds the LevelDB lock. The table is created on first use, as the CDK stack creates it on AWS.
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createTable } from '../store/index.js';
import { dataPath, ensureDataDir, LOCAL_TABLE_NAME } from './data-dir.js';

export interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  tableName: string;
  stop(): Promise<void>;
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  // dynalite checks that requests are signed, not by whom: any fixed credentials do.
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Starts dynalite on the data directory's LevelDB. Fails with a clear message when another process holds it. */
export async function startLocalDynamo(dataDir: string, options: { port?: number } = {}): Promise<LocalDynamo> {
  await ensureDataDir(dataDir);
  await checkNotLocked(dataPath(dataDir, 'dynamodb'), dataDir);
  const server = dynalite({
    path: dataPath(dataDir, 'dynamodb'),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  const stop = async () => {
    client.destroy();
    server.close();
    await once(server, 'close');
  };
  try {
    await ensureTable(client, LOCAL_TABLE_NAME);
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    if (/lock/i.test(message)) throw inUse(dataDir, error);
    throw error;
  }
  return { endpoint, client, tableName: LOCAL_TABLE_NAME, stop };
}

function inUse(dataDir: string, cause: unknown): Error {
  return new Error(`the data directory ${dataDir} is in use by another process (is pipelinectl serve running?)`, {
    cause,
  });
}

interface LevelDatabase {
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens and closes the LevelDB once before dynalite does: dynalite cannot report a database held by another process
 * (its request handler throws the failure from a callback, which ends the process), so the lock is checked here.
 * The `level` used is dynalite's own copy, resolved from dynalite's directory.
 */
async function checkNotLocked(path: string, dataDir: string): Promise<void> {
  const requireHere = createRequire(import.meta.url);
  const { Level } = createRequire(requireHere.resolve('dynalite'))('level') as {
    Level: new (path: string) => LevelDatabase;
  };
  const db = new Level(path);
  try {
    await db.open();
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    if (code === 'LEVEL_LOCKED') throw inUse(dataDir, error);
    throw error;
  }
  await db.close();
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await createTable(client, tableName);
  }
}
