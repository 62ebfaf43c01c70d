// `npm run build`: the compiled package in dist/, as `npm pack` ships it (prepack runs this, then scripts/bundle.ts).
// The JavaScript of lib/, functions/ and infra/ comes from scripts/compile.mjs (esbuild, file by file, with the files
// the code reads beside itself at run time); the declarations of what the package exports (`pipeline-controller/infra`)
// from tsc (tsconfig.build.json), which checks the types of everything they reach on the way: TypeScript 7, the native
// compiler, as `npm run typecheck` runs it (docs/testing.md says why TypeScript 5 stays beside it). dist/ is emptied
// first, so that nothing removed from the sources lingers in a package.
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSources } from './compile.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

async function main(): Promise<number> {
  await rm(DIST, { recursive: true, force: true });
  // infra/app.ts is this repository's own CDK app (`npm run synth`), not part of the package.
  const runtimeFiles = await compileSources(ROOT, DIST, ['lib', 'functions', 'infra'], ['infra/app.ts']);
  // The package exports no bin path; its bin sits beside its package.json.
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript-7/package.json')), 'bin', 'tsc');
  const declared = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--singleThreaded'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (declared.status !== 0) {
    console.error(`build: tsc failed (exit ${declared.status ?? declared.signal})`);
    return 1;
  }
  console.error(`build: dist/ compiled, with ${runtimeFiles.join(', ')}`);
  return 0;
}

process.exitCode = await main();
