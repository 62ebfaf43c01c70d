// pipelinectl as the package runs it, made once per test run from the current sources: lib/ compiled as
// `npm run build` compiles it (scripts/compile.mjs), with the bin and package.json, laid out as `npm pack` lays them
// out. bin/pipelinectl.js in a checkout loads the TypeScript sources through tsx's loader, which costs a CLI process
// about twice the CPU; the tests that start pipelinectl as a process (test/support/pipelinectl.ts) run this build
// instead. The build lives under node_modules/.cache so that the compiled modules resolve the checkout's packages.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileSources } from '../../scripts/compile.mjs';

/** Builds the CLI under `<root>/node_modules/.cache/`; returns its bin and a function that removes it. */
export async function buildCompiledCli(root) {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const directory = mkdtempSync(join(cache, 'pipeline-controller-cli-'));
  await compileSources(root, join(directory, 'dist'), ['lib']);
  mkdirSync(join(directory, 'bin'));
  copyFileSync(join(root, 'bin', 'pipelinectl.js'), join(directory, 'bin', 'pipelinectl.js'));
  copyFileSync(join(root, 'package.json'), join(directory, 'package.json'));
  return {
    bin: join(directory, 'bin', 'pipelinectl.js'),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
