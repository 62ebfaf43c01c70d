// The store's files as they are on disk: size and SHA-256 of every LevelDB file that holds data (its tables, its
// write-ahead log, its manifest and CURRENT). Kept when the store is closed cleanly and compared before it is next
// opened: LevelDB itself notices little (a write-ahead log cut short is replayed up to the cut without a word, and
// table blocks are read without checking their checksums), while a digest notices every byte.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface FileDigest {
  size: number;
  sha256: string;
}

/** File name (in the store's directory) → digest. */
export type StoreDigests = Record<string, FileDigest>;

/** LevelDB's lock and its human-readable log change at every open and hold no data. */
const NOT_DATA = new Set(['LOCK', 'LOG', 'LOG.old']);

export async function storeDigests(storeDir: string): Promise<StoreDigests> {
  const digests: StoreDigests = {};
  const entries = await readdir(storeDir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isFile() || NOT_DATA.has(entry.name)) continue;
    const bytes = await readFile(join(storeDir, entry.name));
    digests[entry.name] = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return digests;
}

export interface FileDifference {
  file: string;
  change: 'changed' | 'removed' | 'added';
  /** For a changed file: `791 bytes, was 1583`, or `same size, other bytes`. */
  detail?: string;
}

/** Every file that is not as recorded. */
export function digestDifferences(recorded: StoreDigests, found: StoreDigests): FileDifference[] {
  const differences: FileDifference[] = [];
  for (const [file, expected] of Object.entries(recorded)) {
    const actual = found[file];
    if (!actual) differences.push({ file, change: 'removed' });
    else if (actual.size !== expected.size) {
      differences.push({ file, change: 'changed', detail: `${actual.size} bytes, was ${expected.size}` });
    } else if (actual.sha256 !== expected.sha256) {
      differences.push({ file, change: 'changed', detail: 'same size, other bytes' });
    }
  }
  for (const file of Object.keys(found)) {
    if (!(file in recorded)) differences.push({ file, change: 'added' });
  }
  return differences;
}
