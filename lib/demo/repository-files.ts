// The files the demo's simulated repository starts with (examples/demo-fleet by default): a directory read as the
// repository's tree, its paths relative to it with `/`. Hidden files and folders (`.git`) are left out.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { DemoError } from './demo-error.js';

/** Every file under `directory`, by its path in the repository, as text. */
export async function readRepositoryFiles(directory: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files[relative(directory, path).split(sep).join('/')] = await readFile(path, 'utf8');
    }
  };
  try {
    await walk(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new DemoError(`${directory} is not a directory: --repository names the folder the repository starts with`);
    }
    throw error;
  }
  return files;
}
