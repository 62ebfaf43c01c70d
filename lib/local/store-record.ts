// store-record.json: what the data directory knows of its store between two runs. `open` while a process has the
// store open (so a record still `open` at the next start means that process did not stop cleanly); `closed` with the
// digest of every file once it closed cleanly (store-files.ts), so that the next start can tell that nothing changed
// them since; `damaged` when a run found a read or write failing, so that the next start refuses at once.
import * as z from 'zod';
import { dataPath, readJson, writeJsonAtomically } from './data-dir.js';

const digestSchema = z.object({ size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });

const recordSchema = z.discriminatedUnion('state', [
  z.object({ version: z.literal(1), state: z.literal('open'), pid: z.number().int(), openedAt: z.string() }),
  z.object({
    version: z.literal(1),
    state: z.literal('closed'),
    closedAt: z.string(),
    files: z.record(z.string(), digestSchema),
  }),
  z.object({ version: z.literal(1), state: z.literal('damaged'), foundAt: z.string(), error: z.string() }),
]);

export type StoreRecord = z.infer<typeof recordSchema>;

/** The record, or undefined when there is none (a new data directory, or one from before records were kept). */
export async function readStoreRecord(dataDir: string): Promise<StoreRecord | undefined> {
  const path = dataPath(dataDir, 'storeRecord');
  const value = await readJson<unknown>(path);
  if (value === undefined) return undefined;
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${path} is not a store record; move it away to have the store read in full`);
  return parsed.data;
}

export async function writeStoreRecord(dataDir: string, record: StoreRecord): Promise<void> {
  await writeJsonAtomically(dataPath(dataDir, 'storeRecord'), record, 0o600);
}
