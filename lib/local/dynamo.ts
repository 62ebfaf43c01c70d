// The local store: dynalite on LevelDB in the data directory, served over HTTP on loopback so that the CLI can use
// it while `serve` holds the LevelDB lock. The table is created on first use, as the CDK stack creates it on AWS.
//
// Opening it: the data directory made or tightened to the user alone (permissions.ts); a store that is missing next
// to a master key or Secrets, or a master key missing next to a store, refused unless asked for; the store checked
// (store-check.ts); dynalite started with its failures answered (dynalite-server.ts) and its endpoint guarded by
// this start's access key (store-access.ts). Stopping it records the digests of its files for the next check.
import { readdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createTable } from '../store/index.js';
import { createMasterKey, dataPath, exists, LOCAL_TABLE_NAME } from './data-dir.js';
import { causeMessage, missingMasterKey, missingStore, storeCannotOpen } from './data-dir-errors.js';
import { dynaliteEntry } from './dynalite-module.js';
import { createDynaliteServer } from './dynalite-server.js';
import { secureDataDir } from './permissions.js';
import { guardStoreRequests, newStoreAccessKey } from './store-access.js';
import { checkStore, StoreInUseError, type StoreCheckResult } from './store-check.js';
import { storeDigests } from './store-files.js';
import { writeStoreRecord } from './store-record.js';
import { errorMessage } from '../util/error-message.js';

export interface LocalDynamo {
  endpoint: string;
  /** This start's access key: the endpoint refuses every request not signed with it. */
  accessKey: string;
  client: DynamoDBClient;
  tableName: string;
  /** What the check at the start read. */
  check: StoreCheckResult;
  /** The LevelDB iterators open now (see dynalite-server.ts): none once every request has been answered. */
  openIterators(): number;
  stop(): Promise<void>;
}

export interface LocalDynamoOptions {
  /** dynalite's port on 127.0.0.1; default any free one. */
  port?: number;
  /** Warnings (permissions tightened, an unclean last stop, a new key) and the store's failures. Default: none. */
  logger?: Logger;
  /** Start with an empty store when dynamodb/ is missing next to a master key or Secrets (`--new-store`). */
  newStore?: boolean;
  /** Make a new master key when master-key.json is missing next to a store (`--new-master-key`). */
  newMasterKey?: boolean;
  /** Where PIPELINES_HMAC_KEY is read: with it set, no master-key.json is needed or made. */
  env?: NodeJS.ProcessEnv;
}

/** A client of the local store, signing every request with the store's access key. */
export function localDynamoClient(endpoint: string, accessKey: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: accessKey, secretAccessKey: accessKey },
  });
}

/** Opens the data directory's store (see above). Fails with a clear message when another process holds it. */
export async function startLocalDynamo(dataDir: string, options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  dynaliteEntry(); // without dynalite, fail before the data directory is made or changed
  const logger = options.logger ?? silentLogger;
  for (const line of await secureDataDir(dataDir)) logger.warn(`permissions too open, tightened: ${line}`);
  const fresh = await checkLayout(dataDir, options, logger);
  let check: StoreCheckResult;
  try {
    check = await checkStore(dataDir, logger, { fresh });
  } catch (error) {
    if (error instanceof StoreInUseError) throw inUse(dataDir, error);
    throw error;
  }
  const env = options.env ?? process.env;
  if (!env.PIPELINES_HMAC_KEY && !(await exists(dataPath(dataDir, 'masterKey')))) {
    await createMasterKey(dataDir);
    if (!fresh) {
      logger.warn(
        "a new master key was made (--new-master-key): every leaf cluster's token must be re-issued with " +
          'pipelinectl flux-config',
      );
    }
  }

  let damage: Error | undefined;
  const { server, openIterators } = createDynaliteServer(
    { path: dataPath(dataDir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 },
    (error) => {
      if (isDamage(error)) damage ??= error;
      logger.error('the store failed to read or write its files; that request fails', {
        dataDir,
        error: causeMessage(error),
        code: levelCode(error),
      });
    },
  );
  const { endpoint, accessKey, client } = await listenGuarded(server, options.port, logger);
  const stop = async () => {
    client.destroy();
    // dynalite's close calls back once its LevelDB is closed too: only then are the files final.
    await closeServer(server);
    await writeStoreRecord(
      dataDir,
      damage
        ? { version: 1, state: 'damaged', foundAt: new Date().toISOString(), error: causeMessage(damage) }
        : {
            version: 1,
            state: 'closed',
            closedAt: new Date().toISOString(),
            files: await storeDigests(dataPath(dataDir, 'dynamodb')),
          },
    );
  };
  try {
    await ensureTable(client, LOCAL_TABLE_NAME);
  } catch (error) {
    await stop().catch(() => undefined);
    const message = errorMessage(error);
    if (/lock/i.test(message)) throw inUse(dataDir, error);
    // dynalite's own open of the store failed after the check passed (dynalite-server.ts answers it as a 500).
    if (error instanceof Error && error.name === 'InternalServerError') throw storeCannotOpen(dataDir, error);
    throw error;
  }
  logger.debug('store checked and open', { dataDir, endpoint, ...check });
  return { endpoint, accessKey, client, tableName: LOCAL_TABLE_NAME, check, openIterators, stop };
}

/**
 * An empty store with the local table, held in this process's memory: what `apply --dry-run` compares a
 * configuration with when the data directory holds no store yet, so that a dry run makes nothing there (no
 * directory, no dynamodb/, no master key).
 */
export async function startEmptyDynamo(
  options: Pick<LocalDynamoOptions, 'logger'> = {},
): Promise<Pick<LocalDynamo, 'client' | 'stop'>> {
  const logger = options.logger ?? silentLogger;
  const { server } = createDynaliteServer({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }, (error) => {
    logger.error('the in-memory store failed a request', { error: causeMessage(error) });
  });
  const { client } = await listenGuarded(server, 0, logger);
  const stop = async () => {
    client.destroy();
    await closeServer(server);
  };
  try {
    await ensureTable(client, LOCAL_TABLE_NAME);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { client, stop };
}

/** dynalite listening on loopback, refusing every request not signed with a new access key; a client that signs. */
async function listenGuarded(
  server: Server,
  port: number | undefined,
  logger: Pick<Logger, 'warn'>,
): Promise<{ endpoint: string; accessKey: string; client: DynamoDBClient }> {
  const accessKey = newStoreAccessKey();
  guardStoreRequests(server, accessKey, (request) => {
    logger.warn('refused a request to the store without its access key', {
      from: `${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`,
      operation: request.headers['x-amz-target'],
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { endpoint, accessKey, client: localDynamoClient(endpoint, accessKey) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/**
 * Refuses a data directory that lost its store or its master key, unless asked to go on without it. Returns whether
 * the store is new (no dynamodb/ yet).
 */
async function checkLayout(
  dataDir: string,
  options: LocalDynamoOptions,
  logger: Pick<Logger, 'warn'>,
): Promise<boolean> {
  const has = async (file: 'masterKey' | 'secrets' | 'storeRecord') => exists(dataPath(dataDir, file));
  const envKey = Boolean((options.env ?? process.env).PIPELINES_HMAC_KEY);
  if (await hasEntries(dataPath(dataDir, 'dynamodb'))) {
    if (!envKey && !options.newMasterKey && !(await has('masterKey'))) throw missingMasterKey(dataDir);
    return false;
  }
  const present: string[] = [];
  if (await has('masterKey')) present.push('master-key.json');
  if (await has('secrets')) present.push('secrets.json');
  if (await has('storeRecord')) present.push('store-record.json');
  if (present.length > 0) {
    if (!options.newStore) throw missingStore(dataDir, present);
    logger.warn(`${dataPath(dataDir, 'dynamodb')} is missing: starting with an empty store (--new-store)`);
  }
  return true;
}

/** LevelDB's error code (LEVEL_CORRUPTION, LEVEL_IO_ERROR, …), on the error or its cause. */
function levelCode(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Damage, as opposed to a failure that says nothing about the files (a full disk, the store closing under a request,
 * a lock): a block or a value that cannot be read back.
 */
function isDamage(error: Error): boolean {
  const code = levelCode(error);
  return code === 'LEVEL_CORRUPTION' || code === 'LEVEL_DECODE_ERROR';
}

/** Whether `dir` exists and holds anything: an empty dynamodb/ (a first start cut short) is no store yet. */
async function hasEntries(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length > 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function inUse(dataDir: string, cause: unknown): Error {
  return new Error(`the data directory ${dataDir} is in use by another process (is pipelinectl serve running?)`, {
    cause,
  });
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await createTable(client, tableName);
  }
}
