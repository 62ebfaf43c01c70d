// The one way this repository turns its TypeScript into the JavaScript that runs from dist/: esbuild, file by file,
// the compiler tsx uses (so the code that runs is the code the tests ran), laid out under `outdir` as the sources are,
// with the files the code reads beside itself at run time (scripts/runtime-files.json) copied to the same places.
// `npm run build` (scripts/build.ts) compiles the package with it; the test runner compiles its pipelinectl with it
// (test/support/compiled-cli.mjs). Type checking and the declarations are tsc's (scripts/build.ts).
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Compiles every `.ts` (not `.d.ts`) under `folders` of `root`, but the files in `except` (paths from `root`), into
 * `outdir`, then copies the runtime files; resolves their list.
 */
export async function compileSources(root, outdir, folders, except = []) {
  const excluded = new Set(except.map((path) => join(root, path)));
  await build({
    entryPoints: folders.flatMap((folder) => listTypeScript(join(root, folder))).filter((file) => !excluded.has(file)),
    outbase: root,
    outdir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'error',
  });
  return copyRuntimeFiles(root, outdir);
}

/** Copies the files the code reads at run time to their places under `outdir`; returns their list. */
export function copyRuntimeFiles(root, outdir) {
  // What the code reads relative to its own module (`import.meta.url`), by its path in the checkout: the dashboard's
  // stylesheet, script and icon (lib/cli/dashboard/assets.ts); the fake clusters' TLS certificates, which `pipelinectl
  // demo` serves (lib/testing/fake-kube-api.ts); the demo's configurations (`../../../examples/*` of
  // lib/cli/commands/demo.ts).
  const runtimeFiles = JSON.parse(readFileSync(join(root, 'scripts', 'runtime-files.json'), 'utf8'));
  for (const path of runtimeFiles) cpSync(join(root, path), join(outdir, path), { recursive: true });
  return runtimeFiles;
}

function listTypeScript(directory) {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}
