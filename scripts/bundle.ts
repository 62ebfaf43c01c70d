// `npm run bundle` (prepack runs it after the build): each Lambda function bundled once, at pack time, into
// dist/bundles/<name>/ (index.mjs and its chunks) with the settings of infra/bundling.ts, which the construct uses
// too. The packed
// construct deploys these bundles as they are (infra/function-code.ts), so a CDK app that installs the package runs
// no esbuild and needs none of this repository's sources.
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_FILE, ENTRIES, esbuildOptions, prebuiltBundleDirectory, type FunctionName } from '../infra/bundling.js';

const COMPILED_ROOT = new URL('../dist/', import.meta.url);

async function main(): Promise<void> {
  for (const name of Object.keys(ENTRIES) as FunctionName[]) {
    const directory = prebuiltBundleDirectory(COMPILED_ROOT, name);
    // Chunks are named by their hash: those of an earlier build would be deployed too.
    await rm(directory, { recursive: true, force: true });
    const outfile = path.join(directory, BUNDLE_FILE);
    await build({ ...esbuildOptions(name, outfile), logLevel: 'warning' });
    const kib = (await stat(outfile)).size / 1024;
    console.error(`bundle: ${path.relative(process.cwd(), outfile)} ${kib.toFixed(0)} KiB`);
  }
}

await main();
