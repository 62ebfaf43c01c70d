// Every relative link in README.md and docs/*.md leads somewhere: the file or folder exists, and a `#anchor` is the
// GitHub slug of a heading in the target page. Links to other sites (http, https, mailto) are not followed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

/** The Markdown pages whose links are checked: README.md and every page in docs/. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** The lines outside fenced code blocks (a `# comment` in a shell block is no heading, a `[x](y)` in one no link). */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(```|~~~)/.exec(text)?.[1];
    if (marker && (fence === undefined || fence === marker)) {
      fence = fence === undefined ? marker : undefined;
      return;
    }
    if (fence === undefined) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** GitHub's anchor for a heading: its text without markup, lower-cased, punctuation dropped, spaces as hyphens. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page: each heading's slug, a repeated one suffixed -1, -2 … as GitHub does. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const seen = counts.get(slug);
    counts.set(slug, (seen ?? -1) + 1);
    found.add(seen === undefined ? slug : `${slug}-${seen + 1}`);
  }
  return found;
}

/** The link targets of a page: inline links and images, `[text](target)` or `[text](target "title")`. */
export function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  for (const { line, text } of proseLines(markdown)) {
    // Inline code spans hold examples, not links.
    const prose = text.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line, target: match[1] ?? '' });
    }
  }
  return found;
}

/** Why a link from `page` to `target` does not resolve, or undefined when it does. */
export async function brokenLink(page: string, target: string): Promise<string | undefined> {
  if (/^[a-z][a-z+.-]*:/i.test(target)) return undefined; // http(s), mailto: another site's business
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${relative(root, file) || path} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md')) return `#${anchor} points into ${relative(root, file)}, which is not a Markdown page`;
  const known = anchors(await readFile(file, 'utf8'));
  return known.has(anchor) ? undefined : `${relative(root, file)} has no heading with the anchor #${anchor}`;
}

describe('links in README.md and docs/', async () => {
  const all = await pages();

  it('checks the README and the docs pages', () => {
    assert.ok(all.includes('README.md') && all.length >= 10, `found ${all.join(', ')}`);
  });

  for (const page of all) {
    it(`every relative link in ${page} resolves`, async () => {
      const markdown = await readFile(join(root, page), 'utf8');
      const broken: string[] = [];
      for (const { line, target } of links(markdown)) {
        const why = await brokenLink(page, target);
        if (why) broken.push(`${page}:${line}: (${target}): ${why}`);
      }
      assert.deepEqual(broken, []);
    });
  }

  it('GitHub slugs: code and punctuation dropped, arrows leave double hyphens, repeats numbered', () => {
    assert.equal(githubSlug('Pipeline (`pipelines.weave.works/v1alpha1`)'), 'pipeline-pipelinesweaveworksv1alpha1');
    assert.equal(
      githubSlug('Worked example: dev → staging (manual) → prod'),
      'worked-example-dev--staging-manual--prod',
    );
    assert.equal(
      githubSlug("Migrating from Weave GitOps' pipeline-controller"),
      'migrating-from-weave-gitops-pipeline-controller',
    );
    assert.deepEqual(
      [...anchors('# A\n\n## Evidence\n\n```sh\n# not a heading\n```\n\n## Evidence\n')],
      ['a', 'evidence', 'evidence-1'],
    );
  });

  it('a link to a missing page or a missing heading is reported', async () => {
    assert.match((await brokenLink('README.md', 'docs/no-such-page.md')) ?? '', /does not exist/);
    assert.match((await brokenLink('README.md', 'docs/cli.md#no-such-heading')) ?? '', /no heading with the anchor/);
    assert.match((await brokenLink('docs/cli.md', '#no-such-heading')) ?? '', /no heading with the anchor/);
    assert.equal(await brokenLink('docs/cli.md', 'https://example.com/#anything'), undefined);
  });
});
