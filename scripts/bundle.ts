// `npm run bundle` (prepack runs it after the build): each Lambda function bundled once, at pack time, into
// dist/bundles/<name>/index.mjs with the settings of infra/bundling.ts, which NodejsFunction uses too. The packed
// construct deploys these bundles as they are (infra/function-code.ts), so a CDK app that installs the package runs
// no esbuild and needs none of this repository's sources.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_FILE, ENTRIES, esbuildOptions, prebuiltBundleDirectory, type FunctionName } from '../infra/bundling.js';

const COMPILED_ROOT = new URL('../dist/', import.meta.url);

async function main(): Promise<void> {
  for (const name of Object.keys(ENTRIES) as FunctionName[]) {
    const outfile = path.join(prebuiltBundleDirectory(COMPILED_ROOT, name), BUNDLE_FILE);
    await build({ ...esbuildOptions(name, outfile), logLevel: 'warning' });
    const kib = (await stat(outfile)).size / 1024;
    console.error(`bundle: ${path.relative(process.cwd(), outfile)} ${kib.toFixed(0)} KiB`);
  }
}

await main();
