// The local mode's data directory: everything `pipelinectl serve` keeps across restarts, and what the other
// commands read while it runs. The directory is the user's alone (0700) and files holding keys are written 0600:
// the master key, the Secrets, and serve.json with the store's access key of the running serve.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { GitProviderType } from '../pipeline/promotion.js';
import { masterKeysFromValues, type MasterKeys } from '../secrets/master-keys.js';
import type { SecretPurpose } from '../secrets/tags.js';
import { missingMasterKey } from './data-dir-errors.js';

/** The data directory of `serve` and of every command that acts locally when --data-dir is not given. */
export const DEFAULT_DATA_DIR = '.data';

export const DATA_FILES = {
  /** dynalite's LevelDB (the store). */
  dynamodb: 'dynamodb',
  /** `{ "current": "…", "previous"?: "…" }`, made with the store unless PIPELINES_HMAC_KEY is set. */
  masterKey: 'master-key.json',
  /** `{ "<ns>/<name>": { "values": {…}, "purposes": [...] } }`: the Secrets applied locally. */
  secrets: 'secrets.json',
  /** Written by a running `serve`: `ServeInfo`. Removed when it stops. */
  serve: 'serve.json',
  /** Written by the dashboard beside a running `serve` or demo: its owner's URL, with the token. Removed when it stops. */
  dashboard: 'dashboard.json',
  /** What the store's files were when it was last closed cleanly, or that it is open now (store-record.ts). */
  storeRecord: 'store-record.json',
  /** Written by `pipelinectl demo` into the data directories it makes: its Secrets reach the simulated world only. */
  demoMarker: '.pipelinectl-demo',
} as const;

export const LOCAL_TABLE_NAME = 'pipeline-controller';

/** What a running `serve` publishes for the other commands. */
export interface ServeInfo {
  pid: number;
  /** dynalite's HTTP endpoint, so other processes can use the store while serve holds the LevelDB lock. */
  dynamoEndpoint: string;
  /** The store's access key of this start (store-access.ts): the endpoint refuses any request not signed with it. */
  dynamoAccessKey: string;
  /** The receiver's base URL. */
  receiverUrl: string;
  startedAt: string;
  /**
   * The kinds of the notification sinks it delivers to (`webhook`, `notification-controller`, `event-bus`), so that
   * `apply` can warn about a notification pipeline nothing would carry out. Absent from an older serve's file.
   */
  notificationSinks?: string[];
  /**
   * The Git API base URLs it promotes through instead of those derived from repository URLs (its `--github-api-url`
   * and the like), so that `check` reads the hosts its promotions reach. Absent from an older serve's file.
   */
  gitApiUrls?: Partial<Record<GitProviderType, string>>;
}

const serveInfoSchema = z.object({
  pid: z.number().int().positive(),
  dynamoEndpoint: z.url(),
  dynamoAccessKey: z.string().regex(/^[0-9a-f]{64}$/),
  receiverUrl: z.url(),
  startedAt: z.string(),
  notificationSinks: z.array(z.string()).optional(),
  // A host type a later version knows is left out, as this version cannot promote to it anyway.
  gitApiUrls: z
    .object({
      github: z.url().optional(),
      gitlab: z.url().optional(),
      'bitbucket-server': z.url().optional(),
      'azure-devops': z.url().optional(),
    } satisfies Record<GitProviderType, z.ZodType>)
    .optional(),
});

export interface StoredSecret {
  values: Record<string, string>;
  purposes: SecretPurpose[];
}

export function dataPath(dataDir: string, file: keyof typeof DATA_FILES): string {
  return join(dataDir, DATA_FILES[file]);
}

export async function ensureDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * The master key: PIPELINES_HMAC_KEY when set, else the data directory's. A new one is made only for a data
 * directory without a store: next to an existing store a missing key was lost (every leaf cluster's token is derived
 * from it), and only `serve --new-master-key` replaces it (`createMasterKey`).
 */
export async function loadOrCreateMasterKeys(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<MasterKeys> {
  if (env.PIPELINES_HMAC_KEY) return { current: env.PIPELINES_HMAC_KEY };
  const path = dataPath(dataDir, 'masterKey');
  const existing = await readJson<Record<string, string>>(path);
  if (existing) return masterKeysFromValues(existing, path);
  if (await exists(dataPath(dataDir, 'dynamodb'))) throw missingMasterKey(dataDir);
  return createMasterKey(dataDir);
}

/** A new random master key, written 0600 (replacing any). */
export async function createMasterKey(dataDir: string): Promise<MasterKeys> {
  await ensureDataDir(dataDir);
  const keys: MasterKeys = { current: randomBytes(32).toString('hex') };
  await writeJsonAtomically(dataPath(dataDir, 'masterKey'), keys, 0o600);
  return keys;
}

/**
 * What a directory named as a data directory holds: `store` when it has a store (dynamodb/ with anything in it), what
 * one leaves beside it (master-key.json, secrets.json, store-record.json: a store that was lost) or cannot be read
 * (another user's), each of which opening the store judges in its own words; `no-store` when it has none of them
 * (empty, or a directory of other files); `absent`; `not-a-directory`.
 */
export type DataDirHolding = 'store' | 'no-store' | 'absent' | 'not-a-directory';

/** What `dataDir` holds (see DataDirHolding), read without writing anything. */
export async function dataDirHolding(dataDir: string): Promise<DataDirHolding> {
  let entries: string[];
  try {
    entries = await readdir(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'absent';
    if (code === 'ENOTDIR') return 'not-a-directory';
    // Someone else's directory: opening it refuses it in its own words (permissions.ts).
    if (code === 'EACCES') return 'store';
    throw error;
  }
  const traces = [DATA_FILES.masterKey, DATA_FILES.secrets, DATA_FILES.storeRecord];
  if (traces.some((file) => entries.includes(file))) return 'store';
  if (!entries.includes(DATA_FILES.dynamodb)) return 'no-store';
  // An empty dynamodb/ is a first start cut short: no store yet, as the store's own check counts it. Anything else
  // there (a file in its place included) is for that check to judge.
  try {
    return (await readdir(dataPath(dataDir, 'dynamodb'))).length > 0 ? 'store' : 'no-store';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'store';
    throw error;
  }
}

/** Whether a file or directory exists at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

export async function readSecrets(dataDir: string): Promise<Record<string, StoredSecret>> {
  return (await readJson<Record<string, StoredSecret>>(dataPath(dataDir, 'secrets'))) ?? {};
}

export async function writeSecrets(dataDir: string, secrets: Record<string, StoredSecret>): Promise<void> {
  await ensureDataDir(dataDir);
  await writeJsonAtomically(dataPath(dataDir, 'secrets'), secrets, 0o600);
}

/** Whether the data directory is a demo's: its clusters and Git hosts are simulated, whatever their URLs say. */
export async function isDemoDataDir(dataDir: string): Promise<boolean> {
  return exists(dataPath(dataDir, 'demoMarker'));
}

/**
 * Why the clusters and Git hosts of the data directory's Secrets cannot answer, when that is known: a demo's data
 * directory with no demo running (its Secrets point at the simulated world, which lives only while the demo runs).
 */
export async function unreachableWorldReason(dataDir: string): Promise<string | undefined> {
  if (!(await isDemoDataDir(dataDir))) return undefined;
  if (await readServeInfo(dataDir)) return undefined;
  return "the demo's simulated clusters are not running (start pipelinectl demo)";
}

/** The running serve's serve.json; undefined when there is none, or when the serve that wrote it is gone. */
export async function readServeInfo(dataDir: string): Promise<ServeInfo | undefined> {
  const path = dataPath(dataDir, 'serve');
  const info = await readJson<unknown>(path);
  if (!info) return undefined;
  const pid = (info as { pid?: unknown }).pid;
  if (typeof pid !== 'number' || !isRunning(pid)) return undefined; // a serve that died without cleaning up
  const parsed = serveInfoSchema.safeParse(info);
  if (!parsed.success) {
    throw new Error(`${path} is not what this version of pipelinectl serve writes: restart serve (pid ${pid})`);
  }
  return parsed.data;
}

/** Whether a process with this id exists (signal 0 only asks). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // gone, or another user's process (EPERM), which no serve of this user is
  }
}

/** Mode 0600: it holds the store's access key. */
export async function writeServeInfo(dataDir: string, info: ServeInfo): Promise<void> {
  await writeJsonAtomically(dataPath(dataDir, 'serve'), info, 0o600);
}

/** Removes serve.json, if it is still that of the process `pid` (by default, whoever wrote it). */
export async function removeServeInfo(dataDir: string, pid?: number): Promise<void> {
  const path = dataPath(dataDir, 'serve');
  if (pid !== undefined) {
    const info = await readJson<ServeInfo>(path).catch(() => undefined);
    if (info && info.pid !== pid) return;
  }
  await rm(path, { force: true });
}

export async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${path} is not valid JSON; fix or remove it`);
  }
}

/** Writes to a temporary file and renames it, so a reader never sees half a file. */
export async function writeJsonAtomically(path: string, value: unknown, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  await chmod(temporary, mode); // writeFile sets the mode only of a file it creates
  await rename(temporary, path);
}
