// The local mode's data directory: everything `pipelinectl serve` keeps across restarts, and what the other
// commands read while it runs. Files holding secrets are written with mode 0600.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { masterKeysFromValues, type MasterKeys } from '../secrets/master-keys.js';
import type { SecretPurpose } from '../secrets/tags.js';

export const DATA_FILES = {
  /** dynalite's LevelDB (the store). */
  dynamodb: 'dynamodb',
  /** `{ "current": "…", "previous"?: "…" }`, generated once unless PIPELINES_HMAC_KEY is set. */
  masterKey: 'master-key.json',
  /** `{ "<ns>/<name>": { "values": {…}, "purposes": [...] } }`: the Secrets applied locally. */
  secrets: 'secrets.json',
  /** Written by a running `serve`: `ServeInfo`. Removed when it stops. */
  serve: 'serve.json',
} as const;

export const LOCAL_TABLE_NAME = 'pipeline-controller';

/** What a running `serve` publishes for the other commands. */
export interface ServeInfo {
  pid: number;
  /** dynalite's HTTP endpoint, so other processes can use the store while serve holds the LevelDB lock. */
  dynamoEndpoint: string;
  /** The receiver's base URL. */
  receiverUrl: string;
  startedAt: string;
}

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

/** The master key: PIPELINES_HMAC_KEY when set, else the data directory's, generated on first use. */
export async function loadOrCreateMasterKeys(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<MasterKeys> {
  if (env.PIPELINES_HMAC_KEY) return { current: env.PIPELINES_HMAC_KEY };
  const path = dataPath(dataDir, 'masterKey');
  const existing = await readJson<Record<string, string>>(path);
  if (existing) return masterKeysFromValues(existing, path);
  await ensureDataDir(dataDir);
  const keys: MasterKeys = { current: randomBytes(32).toString('hex') };
  await writeJsonAtomically(path, keys, 0o600);
  return keys;
}

export async function readSecrets(dataDir: string): Promise<Record<string, StoredSecret>> {
  return (await readJson<Record<string, StoredSecret>>(dataPath(dataDir, 'secrets'))) ?? {};
}

export async function writeSecrets(dataDir: string, secrets: Record<string, StoredSecret>): Promise<void> {
  await ensureDataDir(dataDir);
  await writeJsonAtomically(dataPath(dataDir, 'secrets'), secrets, 0o600);
}

export async function readServeInfo(dataDir: string): Promise<ServeInfo | undefined> {
  const info = await readJson<ServeInfo>(dataPath(dataDir, 'serve'));
  if (!info) return undefined;
  try {
    process.kill(info.pid, 0); // signal 0: only asks whether the process exists
    return info;
  } catch {
    return undefined; // a serve that died without cleaning up
  }
}

export async function writeServeInfo(dataDir: string, info: ServeInfo): Promise<void> {
  await writeJsonAtomically(dataPath(dataDir, 'serve'), info, 0o644);
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

async function readJson<T>(path: string): Promise<T | undefined> {
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
async function writeJsonAtomically(path: string, value: unknown, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode });
  await rename(temporary, path);
}
