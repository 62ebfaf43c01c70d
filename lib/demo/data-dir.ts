// The demo's data directory. It is wiped at each start (unless --no-fresh): the simulated clusters and Git host live in
// memory and start anew at the initial version, so promotion records and approvals left from a previous run would
// describe a world that no longer exists (a succeeded promotion of 6.9.1 would never be made again). Only a
// directory the demo made (it holds DEMO_MARKER) or an empty one is ever wiped.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { DATA_FILES, readSecrets, readServeInfo, writeSecrets } from '../local/data-dir.js';
import { DemoError } from './demo-error.js';

/** Written into the data directories the demo makes; only those (or empty ones) are ever wiped. */
const DEMO_MARKER = DATA_FILES.demoMarker;

/** Makes `dataDir` ready for a demo run: refuses one a running serve or demo uses, wipes it when `fresh`. */
export async function prepareDataDir(dataDir: string, fresh: boolean): Promise<void> {
  const running = await readServeInfo(dataDir);
  if (running) {
    throw new DemoError(
      `a pipelinectl serve or demo (pid ${running.pid}) is running on ${dataDir}: stop it, or pick another --data-dir`,
    );
  }
  let entries: string[] = [];
  try {
    entries = await readdir(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const ours = entries.length === 0 || entries.includes(DEMO_MARKER);
  if (fresh) {
    if (!ours) {
      throw new DemoError(
        `${dataDir} is not empty and was not made by pipelinectl demo, so it is not wiped: pick another --data-dir`,
      );
    }
    await rm(dataDir, { recursive: true, force: true });
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (ours) {
    await writeFile(join(dataDir, DEMO_MARKER), 'The data directory of pipelinectl demo: wiped at each start.\n');
  }
}

/**
 * Stores the simulated world's Secrets (the fake clusters' kubeconfigs, the fake Git host's token) over the
 * configuration's placeholders, keeping their purposes: every command reading the data directory (`check`) then
 * reads with what the controller uses. They are credentials of fakes inside the demo's process, nothing secret.
 */
export async function storeSimulatedSecrets(
  dataDir: string,
  secrets: readonly { key: ObjectKey; values: Record<string, string> }[],
): Promise<void> {
  const stored = await readSecrets(dataDir);
  for (const { key, values } of secrets) {
    const name = objectKeyString(key);
    stored[name] = { values: { ...values }, purposes: stored[name]?.purposes ?? [] };
  }
  await writeSecrets(dataDir, stored);
}
