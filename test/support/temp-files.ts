// Writes a tree of files into a fresh temporary directory, removed when the test ends.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';

export async function tempFiles(t: TestContext, files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'pipeline-controller-test-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFiles(root, files);
  return root;
}

/** Writes files (paths relative to `root`, folders created as needed). */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}
