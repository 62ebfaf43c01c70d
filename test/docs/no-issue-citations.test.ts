// The repository cites its own docs/, never an issue tracker's numbers, which a reader of a clone cannot open.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const SCANNED = ['lib', 'infra', 'docs', 'test', 'bench', 'scripts', 'functions', 'examples', 'README.md'];
const TEXT_FILE = /\.(?:ts|mts|mjs|js|md|ya?ml|json)$/;
// The word "issue" (or "issues"), then a number, with or without "#".
const CITATION = new RegExp(['\\bissues?', '\\s+#?\\d+'].join(''), 'i');

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return TEXT_FILE.test(path) ? [path] : [];
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.name !== 'node_modules' && !entry.name.startsWith('.'))
      .map((entry) => filesUnder(join(path, entry.name))),
  );
  return nested.flat();
}

it('no file cites an issue number', async () => {
  const files = (await Promise.all(SCANNED.map((name) => filesUnder(join(root, name))))).flat();
  assert.ok(files.length > 100, `read ${String(files.length)} files`);
  const citations: string[] = [];
  for (const file of files) {
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, index) => {
      if (CITATION.test(line)) citations.push(`${relative(root, file)}:${String(index + 1)}: ${line.trim()}`);
    });
  }
  assert.deepEqual(citations, []);
});
