// The Lambda bundles' own stack-trace mapping (lib/runtime/stack-traces.ts): a minified bundle's frames name the
// original function, file, line and column, read from the map beside the bundle when a trace is formatted; a file
// whose map cannot be read keeps V8's frame; Node's own errors keep their code in the first line.
import '../../lib/runtime/stack-traces.js';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const FIXTURE = [
  'export function startsTheWork(): void {',
  '  checkTheInput();',
  '}',
  '',
  'function checkTheInput(): void {',
  "  throw new Error('the input is wrong');",
  '}',
  '',
].join('\n');

describe('stack traces of a minified bundle', () => {
  let directory = '';
  before(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'stack-traces-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  const stackOf = async (file: string): Promise<string> => {
    const { startsTheWork } = (await import(pathToFileURL(file).href)) as { startsTheWork: () => void };
    try {
      startsTheWork();
    } catch (error) {
      return (error as Error).stack ?? '';
    }
    return assert.fail('the bundle did not throw');
  };

  it("names the original function, file, line and column, from the map beside the bundle's file", async () => {
    const source = path.join(directory, 'src', 'work.ts');
    await mkdir(path.dirname(source), { recursive: true });
    await writeFile(source, FIXTURE);
    const outfile = path.join(directory, 'bundle', 'index.mjs');
    await build({
      entryPoints: [source],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      logLevel: 'silent',
    });
    const stack = await stackOf(outfile);
    assert.match(stack, /^Error: the input is wrong\n/);
    assert.ok(stack.includes(`\n    at checkTheInput (${source}:6:9)`), stack);
    // The outermost frame's name is the minified one, as Node's own --enable-source-maps leaves it: the map names a
    // function from a call of it in the same file.
    assert.match(stack, new RegExp(`\\n {4}at \\w+ \\(${source.replaceAll('/', '\\/')}:2:3\\)`));
  });

  it("keeps V8's frame where the map cannot be read", async () => {
    const file = path.join(directory, 'broken', 'index.mjs');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      "export function startsTheWork(){throw new Error('no map')}\n//# sourceMappingURL=index.mjs.map\n",
    );
    await writeFile(`${file}.map`, 'not a source map');
    const stack = await stackOf(file);
    assert.match(stack, /^Error: no map\n {4}at startsTheWork \(file:\/\/\S+\/broken\/index\.mjs:1:\d+\)/);
  });

  it("keeps the code of Node's own errors in the first line", () => {
    let stack = '';
    try {
      new URL('not a url');
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    assert.match(stack, /^TypeError \[ERR_INVALID_URL\]: Invalid URL\n {4}at new URL /);
  });
});
