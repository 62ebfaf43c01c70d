// Why the construct may default to arm64: the three bundles are plain JavaScript. A native addon (a `.node` file, a
// package built with node-gyp or shipping prebuilt binaries) is built for one CPU, and would fail on Graviton if it
// came from an x86_64 machine. Bundled with the construct's own esbuild settings (infra/bundling.ts), in memory.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, REPO_ROOT, type FunctionName } from '../../infra/bundling.js';

interface Bundle {
  code: string;
  metafile: Metafile;
}

async function bundle(name: FunctionName): Promise<Bundle> {
  const result = await build({ ...esbuildOptions(name, `/virtual/${name}/index.mjs`), metafile: true, write: false });
  const code = result.outputFiles.find((file) => file.path.endsWith(`/${name}/index.mjs`));
  assert.ok(code);
  return { code: code.text, metafile: result.metafile };
}

/** `node_modules/@scope/name` or `node_modules/name` of each bundled file, the innermost one. */
function packageDirectories(metafile: Metafile): string[] {
  const directories = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) directories.add(match[1]);
  }
  return [...directories];
}

/** Why a package would hold native code, or undefined. */
function nativeCode(directory: string): string | undefined {
  const absolute = join(REPO_ROOT, directory);
  if (existsSync(join(absolute, 'binding.gyp'))) return 'a binding.gyp (built with node-gyp)';
  if (existsSync(join(absolute, 'prebuilds'))) return 'prebuilt binaries';
  const manifest = JSON.parse(readFileSync(join(absolute, 'package.json'), 'utf8')) as { gypfile?: boolean };
  return manifest.gypfile ? 'gypfile: true' : undefined;
}

describe('the bundles run on arm64', () => {
  const bundles = {} as Record<FunctionName, Bundle>;
  before(async () => {
    [bundles.receiver, bundles.verifier, bundles.poller] = await Promise.all([
      bundle('receiver'),
      bundle('verifier'),
      bundle('poller'),
    ]);
  });

  it('hold no native addon: no .node file, no package built with node-gyp or shipping binaries', () => {
    for (const [name, { metafile }] of Object.entries(bundles)) {
      const inputs = Object.keys(metafile.inputs);
      assert.ok(inputs.length > 100, `${name}: the reading sees the bundled files`);
      assert.deepEqual(
        inputs.filter((input) => input.endsWith('.node')),
        [],
        name,
      );
      const directories = packageDirectories(metafile);
      assert.ok(
        directories.some((directory) => directory.includes('@aws-sdk/')),
        `${name} bundles the AWS SDK`,
      );
      const native = directories.flatMap((directory) => {
        const why = nativeCode(directory);
        return why ? [`${directory}: ${why}`] : [];
      });
      assert.deepEqual(native, [], name);
    }
  });

  it('load no binary at run time (no require of a .node file left in the code)', () => {
    for (const [name, { code }] of Object.entries(bundles)) {
      assert.doesNotMatch(code, /require\(\s*["'`][^"'`]*\.node["'`]\s*\)/, name);
    }
  });
});
