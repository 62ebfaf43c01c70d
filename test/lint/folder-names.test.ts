// One meaning per folder name (docs/architecture.md, "Folder names"): "actions" are a decision's output only, so no
// folder is named after them (the CLI's are operations, the verifier's effects); "notify" is telling people and the
// promotion strategy's folder says it is the strategy, so neither can be taken for the other.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

/** Folder names that would mean a second thing, with the word to use instead. */
const AMBIGUOUS: Readonly<Partial<Record<string, string>>> = {
  actions: "a command's work is an operation (lib/cli/operations), the verifier's an effect (lib/verifier/effects)",
  notification: 'telling people is lib/notify; the promotion strategy is lib/promotion/notification-strategy',
};

function folders(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      return [path, ...folders(path)];
    });
}

describe('folder names', () => {
  it('no folder of lib/ is named with a word the glossary gives another meaning', () => {
    const found: string[] = [];
    for (const path of folders(join(ROOT, 'lib'))) {
      const instead = AMBIGUOUS[basename(path)];
      if (instead !== undefined) found.push(`${relative(ROOT, path)}: ${instead}`);
    }
    assert.deepEqual(found, []);
  });
});
