// pipelinectl for the tests that start it as a process, made once per test run from the current sources: lib/cli
// bundled by esbuild (the compiler tsx and `npm run build` use) with the packages it imports, the bin and package.json
// beside it, under node_modules/.cache so that what stays outside the bundle resolves the checkout's packages.
//
// Why a bundle: bin/pipelinectl.js in a checkout loads the TypeScript sources through tsx's loader, which costs a
// process about twice the CPU; the package's file-by-file JavaScript (`npm run build`) still has Node find, read and
// link hundreds of modules at every start. A `serve` is up and stopped in about 40 % less CPU from one bundle
// (docs/testing.md has the figures), and the tests start dozens of `serve`s and demos. The package as users get it is
// tested by test/package, from `npm pack`.
//
// What the bundle keeps of the package's layout: every module of lib/ sees as its `import.meta.url` the place its
// JavaScript has in dist/ (the package's layout), and the files the code reads from there are copied there
// (scripts/runtime-files.json), so the dashboard's assets, the demo's examples and the package.json of `--version` are
// found as the package finds them, and `createRequire` resolves from the same place.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { copyRuntimeFiles } from '../../scripts/compile.mjs';

/**
 * Left to Node: dynalite requires its own modules by computed names, classic-level (under it) loads a native addon,
 * and the fakes' browser driver is never reached by the CLI.
 */
const NOT_BUNDLED = ['dynalite', 'classic-level', 'playwright-core'];

/** Builds the CLI under `<root>/node_modules/.cache/`; returns its bin and a function that removes it. */
export async function buildCompiledCli(root) {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const directory = mkdtempSync(join(cache, 'pipeline-controller-cli-'));
  const dist = join(directory, 'dist');
  await build({
    entryPoints: { 'lib/cli/main': join(root, 'lib', 'cli', 'main.ts') },
    outdir: dist,
    bundle: true,
    // The commands' modules stay behind `import()`, as in the package: `--help` loads none of them.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(root, 'tsconfig.json'),
    // The ES module builds of the packages that have one, as in the Lambda bundles (infra/bundling.ts): a CommonJS
    // build behind `import()` would show the code only its `default` export (`import('@aws-sdk/client-cloudwatch')`).
    mainFields: ['module', 'main'],
    // Class and function names as written: error names and messages read as from the package.
    keepNames: true,
    external: NOT_BUNDLED,
    // The CommonJS packages in the bundle call `require`, which an ES module does not have.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [placedAsInPackage(root, dist)],
    logLevel: 'error',
  });
  copyRuntimeFiles(root, dist);
  mkdirSync(join(directory, 'bin'));
  copyFileSync(join(root, 'bin', 'pipelinectl.js'), join(directory, 'bin', 'pipelinectl.js'));
  copyFileSync(join(root, 'package.json'), join(directory, 'package.json'));
  return {
    bin: join(directory, 'bin', 'pipelinectl.js'),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** Gives each module of lib/ the `import.meta.url` of its JavaScript in `dist`, the package's layout. */
function placedAsInPackage(root, dist) {
  const lib = join(root, 'lib');
  return {
    name: 'placed-as-in-package',
    setup(esbuild) {
      esbuild.onLoad({ filter: /\.ts$/ }, ({ path }) => {
        if (!path.startsWith(lib)) return undefined;
        const placed = pathToFileURL(join(dist, relative(root, path).replace(/\.ts$/, '.js'))).href;
        return {
          contents: readFileSync(path, 'utf8').replaceAll('import.meta.url', JSON.stringify(placed)),
          loader: 'ts',
        };
      });
    },
  };
}
