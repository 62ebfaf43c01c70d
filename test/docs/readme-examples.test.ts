// The YAML examples of README.md and every docs/ page are tested: each block parses, and the documents of our own
// kinds (Pipeline, GitopsCluster, Secret) pass the configuration schema (references are checked only within
// examples/).
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { formatProblem, loadConfigurationText } from '../../lib/config/index.js';

const root = join(import.meta.dirname, '..', '..');
const OUR_KINDS = new Set(['Pipeline', 'GitopsCluster', 'Secret']);

function yamlBlocks(markdown: string): { line: number; text: string }[] {
  const blocks: { line: number; text: string }[] = [];
  // Fences may be indented (inside a list item); the block's lines carry the same indentation.
  const pattern = /^( *)```ya?ml\n([\s\S]*?)^\1```/gm;
  for (let match = pattern.exec(markdown); match; match = pattern.exec(markdown)) {
    const indent = match[1] ?? '';
    const text = (match[2] ?? '')
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length + 1, text });
  }
  return blocks;
}

/** README.md and every page in docs/. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

describe('README and docs examples', async () => {
  const blocks: { page: string; line: number; text: string }[] = [];
  for (const page of await pages()) {
    const markdown = await readFile(join(root, page), 'utf8');
    blocks.push(...yamlBlocks(markdown).map((block) => ({ page, ...block })));
  }

  it('has YAML examples to check', () => assert.ok(blocks.length >= 20, `found ${blocks.length}`));

  for (const block of blocks) {
    const where = `${block.page}:${block.line}`;
    it(`the YAML block at ${where} parses, and its configuration documents are valid`, () => {
      const documents = parseAllDocuments(block.text);
      for (const document of documents) {
        assert.deepEqual(document.errors.map(String), [], 'YAML errors');
      }
      const ours = documents.filter((document) => {
        const value: unknown = document.toJS();
        return typeof value === 'object' && value !== null && OUR_KINDS.has(String((value as { kind?: unknown }).kind));
      });
      // Leaf-cluster manifests (a Flux Secret next to a Provider) mix kinds: each of ours is checked on its own.
      const problems = ours.flatMap((document) => {
        const result = loadConfigurationText(document.toString(), where, {
          defaultCluster: { namespace: 'flux-system', name: 'management' },
        });
        // References point at clusters and Secrets the example does not show; only schema problems count here.
        return result.ok
          ? []
          : result.problems
              .filter((problem) => !/not found$|not found \(|no non-empty/.test(problem.message))
              .map(formatProblem);
      });
      assert.deepEqual(problems, []);
    });
  }
});
