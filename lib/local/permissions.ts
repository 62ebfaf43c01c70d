// The data directory is the user's alone. It is made 0700; an existing one that others may read or enter is
// tightened to 0700, and the files holding keys to 0600 (tightened, not refused: the data is the user's either way,
// and what matters is that nobody else reads it from now on). A directory that belongs to another user is refused:
// its keys are not the user's to trust, nor its modes the user's to change.
import { chmod, mkdir, stat } from 'node:fs/promises';
import { dataPath, type DATA_FILES } from './data-dir.js';
import { DataDirError } from './data-dir-errors.js';

const KEY_FILES = [
  'masterKey',
  'secrets',
  'serve',
  'dashboard',
  'storeRecord',
] as const satisfies readonly (keyof typeof DATA_FILES)[];

/** Makes or tightens the data directory; returns one line per path whose permissions were tightened. */
export async function secureDataDir(dataDir: string): Promise<string[]> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const info = await stat(dataDir);
  if (!info.isDirectory()) throw new DataDirError(`the data directory ${dataDir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new DataDirError(
      `the data directory ${dataDir} belongs to another user (uid ${info.uid}, you are ${uid}): use a directory of your own`,
    );
  }
  const tightened: string[] = [];
  if ((info.mode & 0o077) !== 0) {
    await chmod(dataDir, 0o700);
    tightened.push(`${dataDir} (was ${octal(info.mode)}, now 700)`);
  }
  for (const file of KEY_FILES) {
    const path = dataPath(dataDir, file);
    let mode: number;
    try {
      mode = (await stat(path)).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if ((mode & 0o077) === 0) continue;
    await chmod(path, 0o600);
    tightened.push(`${path} (was ${octal(mode)}, now 600)`);
  }
  return tightened;
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8);
}
