// `npm run build`: the compiled package in dist/, as `npm pack` ships it (prepack runs this, then scripts/bundle.ts).
// tsc compiles lib/, functions/ and infra/ to ESM with declarations (tsconfig.build.json); then the files that the
// compiled code reads beside itself at run time, which tsc does not copy, go to the same places under dist/. dist/ is
// emptied first, so that nothing removed from the sources lingers in a package.
import { spawnSync } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import runtimeFiles from './runtime-files.json' with { type: 'json' };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * What the code reads relative to its own module (`import.meta.url`), by its path in the checkout: the dashboard's
 * stylesheet, script and icon (lib/cli/dashboard/assets.ts); the fake clusters' TLS certificates, which `pipelinectl
 * demo` serves (lib/testing/fake-kube-api.ts); the demo's configurations (`../../../examples/*` of
 * lib/cli/commands/demo.ts). The test runner's build of the CLI copies the same list (test/support/compiled-cli.mjs).
 */
const RUNTIME_FILES: readonly string[] = runtimeFiles;

async function main(): Promise<number> {
  await rm(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (compiled.status !== 0) {
    console.error(`build: tsc failed (exit ${compiled.status ?? compiled.signal})`);
    return 1;
  }
  for (const file of RUNTIME_FILES) await cp(path.join(ROOT, file), path.join(DIST, file), { recursive: true });
  console.error(`build: dist/ compiled, with ${RUNTIME_FILES.join(', ')}`);
  return 0;
}

process.exitCode = await main();
