// What `pipelinectl restore` does: a data directory made anew from a backup file, all or nothing. The file is read
// and checked whole first (lib/local/backup-file.ts). The new data directory is built next to the target
// (`<dir>.restoring-<pid>`): its master key and Secrets, then a new store with every item, counted back; only then
// is it renamed into place. A target that holds anything is refused unless --force, which renames the old contents
// aside (`<dir>.before-restore-<time>`) rather than deleting them. Never while a serve (or the demo) runs on it.
import { mkdir, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { fromJsonItem, type JsonItem } from '../../local/attribute-json.js';
import { BackupFileError, MAX_BACKUP_BYTES, parseBackup } from '../../local/backup-file.js';
import { dataPath, LOCAL_TABLE_NAME, readServeInfo, writeJsonAtomically } from '../../local/data-dir.js';
import { startLocalDynamo } from '../../local/dynamo.js';
import type { Logger } from '../../logging/logger.js';
import { putRawItems } from '../../store/index.js';
import { CliError } from '../errors.js';
import { printStderr } from '../output.js';

export interface RestoreResult {
  items: number;
  /** The data-directory files restored besides the items. */
  files: string[];
  /** Where the target's previous contents were moved (with --force). */
  aside?: string;
}

/** Only errors: the new store is expected to be new, so its warnings say nothing the user needs. */
const ERRORS_ONLY: Logger = {
  debug() {},
  info() {},
  warn() {},
  error: (message) => printStderr(`error: ${message}`),
};

export async function restoreDataDir(
  dataDir: string,
  from: string,
  options: { force: boolean; now?: Date },
): Promise<RestoreResult> {
  const backup = await readBackup(from);
  const serve = await readServeInfo(dataDir);
  if (serve) {
    throw new CliError(
      `pipelinectl serve (pid ${serve.pid}) is running on ${dataDir}: stop it before restoring into it`,
    );
  }
  const present = await entries(dataDir);
  if (present && present.length > 0 && !options.force) {
    throw new CliError(
      `${dataDir} is not empty (it holds ${present.join(', ')}): pass --force to move its contents aside to ` +
        `${dataDir}.before-restore-<time> and restore into it`,
    );
  }

  const target = resolve(dataDir);
  const staging = `${target}.restoring-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(staging, { mode: 0o700 });
    if (backup.masterKey) await writeJsonAtomically(dataPath(staging, 'masterKey'), backup.masterKey, 0o600);
    if (backup.secrets) await writeJsonAtomically(dataPath(staging, 'secrets'), backup.secrets, 0o600);
    await writeStore(staging, backup.items);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }

  let aside: string | undefined;
  if (present === undefined) {
    await rename(staging, target);
  } else if (present.length === 0) {
    await rmdir(target);
    await rename(staging, target);
  } else {
    aside = `${target}.before-restore-${(options.now ?? new Date()).toISOString().replace(/[-:]|\.\d+/g, '')}`;
    await rename(target, aside);
    try {
      await rename(staging, target);
    } catch (error) {
      await rename(aside, target);
      throw error;
    }
  }
  return { items: backup.items.length, files: backup.header.files, aside };
}

async function readBackup(from: string): Promise<ReturnType<typeof parseBackup>> {
  const info = await stat(from).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(`${from} is not a file: name the backup file (pipelinectl backup --to)`);
  if (info.size > MAX_BACKUP_BYTES) {
    throw new CliError(`${from} is ${info.size} bytes, more than a backup of a data directory can be (256 MiB)`);
  }
  try {
    const backup = parseBackup(await readFile(from, 'utf8'), from);
    if (backup.tableName !== LOCAL_TABLE_NAME) {
      throw new CliError(`${from} is a backup of table ${backup.tableName}, not of a local data directory's`);
    }
    return backup;
  } catch (error) {
    if (error instanceof BackupFileError) throw new CliError(error.message);
    throw error;
  }
}

/** The names in `dir`, or undefined when it does not exist. */
async function entries(dir: string): Promise<string[] | undefined> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A new store in `dataDir` with exactly `items`, counted back before it is closed. */
async function writeStore(dataDir: string, items: readonly JsonItem[]): Promise<void> {
  const dynamo = await startLocalDynamo(dataDir, { newStore: true, logger: ERRORS_ONLY });
  try {
    await putRawItems(dynamo.client, LOCAL_TABLE_NAME, items.map(fromJsonItem));
    let count = 0;
    let start: ScanCommand['input']['ExclusiveStartKey'];
    do {
      const page = await dynamo.client.send(
        new ScanCommand({ TableName: LOCAL_TABLE_NAME, Select: 'COUNT', ExclusiveStartKey: start }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    if (count !== items.length) throw new Error(`the restored store holds ${count} items, the backup ${items.length}`);
  } finally {
    await dynamo.stop();
  }
}
