// What `pipelinectl backup` does: every item of the data directory's store, its master key and its Secrets, in one
// file (lib/local/backup-file.ts). While serve runs, the items are read through its store endpoint (with the access
// key serve.json holds), so the backup needs no stop; otherwise the data directory is opened, and checked, here.
// Each item is read whole, as it was when read; an item written while the backup runs may be in it or not, as with
// a DynamoDB Scan. Copying the LevelDB files of a running store instead would give a torn copy.
import { link, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { toJsonItem, type JsonItem } from '../../local/attribute-json.js';
import { formatBackup } from '../../local/backup-file.js';
import {
  dataPath,
  exists,
  LOCAL_TABLE_NAME,
  readJson,
  readServeInfo,
  type StoredSecret,
} from '../../local/data-dir.js';
import { localDynamoClient, startLocalDynamo } from '../../local/dynamo.js';
import { STDERR_WARNINGS } from '../backends/local.js';
import { CliError } from '../errors.js';

export interface BackupResult {
  /** The file written. */
  file: string;
  items: number;
  /** The data-directory files it holds besides the items: master-key.json, secrets.json. */
  files: string[];
  /** Whether the items were read through a running serve. */
  throughServe: boolean;
}

/** Writes the backup of `dataDir` to `to` (a new file, or a new file in the directory `to`). */
export async function backupDataDir(dataDir: string, to: string, now = new Date()): Promise<BackupResult> {
  if (!(await exists(dataPath(dataDir, 'dynamodb')))) {
    throw new CliError(`${dataDir} holds no store (no ${dataPath(dataDir, 'dynamodb')}): nothing to back up`);
  }
  const target = await targetFile(to, now);
  const serve = await readServeInfo(dataDir);
  let items: JsonItem[];
  if (serve) {
    const client = localDynamoClient(serve.dynamoEndpoint, serve.dynamoAccessKey);
    try {
      items = await scanAll(client);
    } finally {
      client.destroy();
    }
  } else {
    const dynamo = await startLocalDynamo(dataDir, { logger: STDERR_WARNINGS });
    try {
      items = await scanAll(dynamo.client);
    } finally {
      await dynamo.stop();
    }
  }
  const masterKey = await readJson<Record<string, string>>(dataPath(dataDir, 'masterKey'));
  const secrets = await readJson<Record<string, StoredSecret>>(dataPath(dataDir, 'secrets'));
  const text = formatBackup({ tableName: LOCAL_TABLE_NAME, createdAt: now.toISOString(), masterKey, secrets, items });
  await writeNewFile(target, text);
  const files = [masterKey && 'master-key.json', secrets && 'secrets.json'].filter((file) => file !== undefined);
  return { file: target, items: items.length, files, throughServe: serve !== undefined };
}

async function scanAll(client: DynamoDBClient): Promise<JsonItem[]> {
  const items: JsonItem[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    for (const item of page.Items ?? []) items.push(toJsonItem(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** `to` itself, or a file named after the time in the directory `to`; never an existing file. */
async function targetFile(to: string, now: Date): Promise<string> {
  let target = to;
  const info = await stat(to).catch(() => undefined);
  if (info?.isDirectory()) {
    target = join(to, `pipelinectl-backup-${now.toISOString().replace(/[-:]|\.\d+/g, '')}.jsonl`);
  } else if (info) {
    throw new CliError(`${to} already exists: a backup never overwrites a file; pick another name`);
  } else {
    await mkdir(dirname(to), { recursive: true });
  }
  if (await exists(target)) throw new CliError(`${target} already exists: a backup never overwrites a file`);
  return target;
}

/** Written whole to a temporary file (0600) and linked into place, which fails rather than replace a file. */
async function writeNewFile(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await rm(temporary, { force: true });
  await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CliError(`${path} already exists: a backup never overwrites a file`);
    }
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}
