// The check of the store before anything uses it (serve, the demo, and every command that opens the data directory
// itself). What was measured on dynalite's LevelDB: a write-ahead log cut in half is replayed up to the cut, without
// a word, and turned into a table at that open (112 items became 53, and the evidence is gone); flipped bytes in a
// table file are only noticed when that block is read, if at all (LevelDB checks no block checksum on reads; a
// compressed block fails to decompress, an uncompressed one is read as it is). So the check is, in order:
//
// 1. the record of the last clean close (store-record.json): every file's digest must still be the same, compared
//    before LevelDB opens the store (its open would replay a damaged log and leave nothing to compare);
// 2. LevelDB opens the store, never making a new one in place of an existing one (a lock held by another process is
//    reported as such, anything else names the store and LevelDB's words, e.g. `Corruption: …`);
// 3. every entry is read and decoded, which finds what a kill left unrecorded and LevelDB can detect.
//
// A record still `open` means the last process did not stop cleanly (a kill, a crash): step 1 cannot be made, and
// steps 2 and 3 are all there is (said in a warning).
import { join } from 'node:path';
import type { Logger } from '../logging/logger.js';
import { dataPath, LOCAL_TABLE_NAME } from './data-dir.js';
import { requireFromDynalite } from './dynalite-module.js';
import { storeCannotOpen, storeDamaged, causeMessage } from './data-dir-errors.js';
import { digestDifferences, storeDigests } from './store-files.js';
import { readStoreRecord, writeStoreRecord, type StoreRecord } from './store-record.js';

export interface StoreCheckResult {
  /** LevelDB entries read (items, index entries, the table's description). */
  entries: number;
  /** Items of the table. */
  items: number;
  /** How long the check took. */
  ms: number;
}

interface LevelIterator {
  nextv(size: number): Promise<[string, unknown][]>;
  close(): Promise<void>;
}

interface LevelDatabase {
  open(options: { createIfMissing: boolean }): Promise<void>;
  close(): Promise<void>;
  iterator(options: { keyEncoding: 'utf8'; valueEncoding: 'json' }): LevelIterator;
}

type LevelConstructor = new (path: string) => LevelDatabase;

/** Two processes checking at once: the other one's open changes the files under this one's comparison. */
const RECORD_RACE_RETRIES = 3;

/** A store that is in use by another process (its LevelDB lock is held). */
export class StoreInUseError extends Error {
  override name = 'StoreInUseError';
}

/**
 * Checks the store and leaves the record `open` for this process. Throws a DataDirError naming the file when the
 * store is damaged, a StoreInUseError when another process holds it. A `fresh` store (no dynamodb/ yet) is made.
 */
export async function checkStore(
  dataDir: string,
  logger: Pick<Logger, 'warn'>,
  { fresh }: { fresh: boolean },
): Promise<StoreCheckResult> {
  const started = Date.now();
  const storeDir = dataPath(dataDir, 'dynamodb');
  const record = fresh ? undefined : await compareWithRecord(dataDir, storeDir);
  const db = new (levelOfDynalite())(storeDir);
  try {
    // Only a new store may be made: LevelDB would make an empty one where CURRENT is missing, without a word.
    await db.open({ createIfMissing: fresh });
  } catch (error) {
    if ((error as { cause?: { code?: unknown } }).cause?.code === 'LEVEL_LOCKED') {
      throw new StoreInUseError(`the data directory ${dataDir} is in use by another process`, { cause: error });
    }
    throw storeCannotOpen(dataDir, error);
  }
  try {
    // Holding the lock: from here on this process is the one that has the store open.
    await writeStoreRecord(dataDir, {
      version: 1,
      state: 'open',
      pid: process.pid,
      openedAt: new Date().toISOString(),
    });
    if (record?.state === 'open') {
      logger.warn(
        `the last process to use ${dataDir} (pid ${record.pid}) did not stop cleanly, so its files cannot be compared ` +
          'with a clean stop: every entry of the store is read instead',
      );
    } else if (record === undefined && !fresh) {
      logger.warn(`${dataDir} has no record of a clean stop yet: every entry of the store is read instead`);
    }
    const counts = await readEveryEntry(db, dataDir);
    return { ...counts, ms: Date.now() - started };
  } finally {
    await db.close();
  }
}

/** The record, once the files are as it says; undefined for a store without one (new, or from an older version). */
async function compareWithRecord(dataDir: string, storeDir: string): Promise<StoreRecord | undefined> {
  for (let attempt = 0; ; attempt++) {
    const record = await readStoreRecord(dataDir);
    if (record?.state === 'damaged') {
      throw storeDamaged(dataDir, `a run found it failing on ${record.foundAt} (${record.error})`);
    }
    if (record?.state !== 'closed') return record;
    const differences = digestDifferences(record.files, await storeDigests(storeDir));
    if (differences.length === 0) return record;
    const again = await readStoreRecord(dataDir);
    if (JSON.stringify(again) !== JSON.stringify(record) && attempt < RECORD_RACE_RETRIES) continue;
    const files = differences.map(({ file, change, detail }) =>
      [join(storeDir, file), change === 'removed' ? 'was removed' : change === 'added' ? 'was added' : 'changed']
        .concat(detail ? `(${detail})` : [])
        .join(' '),
    );
    throw storeDamaged(dataDir, `${files.join('; ')} since it was last closed cleanly (${record.closedAt})`);
  }
}

async function readEveryEntry(db: LevelDatabase, dataDir: string): Promise<Omit<StoreCheckResult, 'ms'>> {
  const itemPrefix = `item-${LOCAL_TABLE_NAME}~`;
  let entries = 0;
  let items = 0;
  const iterator = db.iterator({ keyEncoding: 'utf8', valueEncoding: 'json' });
  try {
    for (;;) {
      const batch = await iterator.nextv(1000);
      if (batch.length === 0) break;
      entries += batch.length;
      for (const [key] of batch) if (key.startsWith(itemPrefix)) items++;
    }
  } catch (error) {
    throw storeDamaged(
      dataDir,
      `reading entry ${entries + 1} of ${join(dataDir, 'dynamodb')} failed: ${causeMessage(error)}`,
    );
  } finally {
    await iterator.close().catch(() => undefined);
  }
  return { entries, items };
}

/** The `level` dynalite uses: its own copy, resolved from dynalite's directory. */
function levelOfDynalite(): LevelConstructor {
  return (requireFromDynalite('level') as { Level: LevelConstructor }).Level;
}
