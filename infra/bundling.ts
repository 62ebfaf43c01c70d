// How each Lambda handler is bundled: the ONE place shared by the CDK construct (NodejsFunction, local esbuild, no
// Docker), `npm run bundle` (scripts/bundle.ts: the bundles the packed package carries) and `npm run bundle-sizes`
// (bench/bundle-sizes.ts), the last two through the esbuild API with the same settings.
// Nothing here imports aws-cdk-lib, so the script stays quick.
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The repository root: esbuild's working directory, the CDK `projectRoot`, where package-lock.json is. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The lockfile NodejsFunction needs to find the project root (`depsLockFilePath`). */
export const LOCK_FILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));

export type FunctionName = 'receiver' | 'verifier' | 'poller';

/** The file each bundle's code is in; `index.handler` is the handler Lambda calls, whoever bundled it. */
export const BUNDLE_FILE = 'index.mjs';

/**
 * Where a function's prebuilt bundle is under the compiled package's root (dist/): `npm run bundle`
 * (scripts/bundle.ts) writes it there at pack time, and the compiled construct (dist/infra/function-code.js) deploys
 * it from there.
 */
export function prebuiltBundleDirectory(compiledRoot: URL, name: FunctionName): string {
  return fileURLToPath(new URL(`bundles/${name}`, compiledRoot));
}

/** Each function's entry; the exported `handler` is its Lambda handler. */
export const ENTRIES: Readonly<Record<FunctionName, string>> = {
  receiver: fileURLToPath(new URL('../functions/receiver/handler.ts', import.meta.url)),
  verifier: fileURLToPath(new URL('../functions/verifier/handler.ts', import.meta.url)),
  poller: fileURLToPath(new URL('../functions/poller/handler.ts', import.meta.url)),
};

/**
 * Packages that must never be in the receiver's bundle: it only authenticates, looks up and enqueues, so the
 * Kubernetes client and the GitHub client (both large, both for the verifier) would only cost cold-start time.
 */
export const VERIFIER_ONLY_PACKAGES = ['@kubernetes/client-node', '@octokit/'] as const;

/**
 * Bundled ESM needs a real `require` for the CommonJS dependencies that call it (e.g. @kubernetes/client-node's
 * `require("node:assert")`); without this the bundle dies at load with `Dynamic require of "…" is not supported`.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __pipelineControllerCreateRequire } from 'node:module'; " +
  'const require = __pipelineControllerCreateRequire(import.meta.url);';

/** The settings, in the vocabulary both consumers understand. */
export const BUNDLE_SETTINGS = {
  /** The Lambda runtime the construct deploys is nodejs22.x (infra/README.md, cdk-nag AwsSolutions-L1). */
  target: 'node22',
  platform: 'node',
  format: 'esm',
  minify: true,
  /** Source maps on (`NODE_OPTIONS=--enable-source-maps` in the function), without the sources inside: smaller. */
  sourceMap: true,
  sourcesContent: false,
  /** Prefer the ESM builds of dependencies (better tree-shaking). */
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /**
   * Nothing is external, not even `@aws-sdk/*`, although nodejs22.x ships an AWS SDK v3. The project pins its SDK
   * clients (3.1162–3.1169) together with `@aws-sdk/lib-dynamodb` and the `@smithy/*` signer the EKS tokens use;
   * the runtime's copy is whatever version AWS last put in the image, so mixing the two would run untested pairs,
   * and `instanceof ResourceNotFoundException` checks would silently fail across copies. Bundling costs size (see
   * `npm run bundle-sizes`), and buys a function that runs exactly the code the tests ran.
   */
  externalModules: [] as string[],
} as const;

/**
 * The esbuild options of one function, identical to what NodejsFunction passes to the esbuild CLI. Checked against
 * esbuild's BuildOptions but not declared as one: the construct's published declarations import this module, and a
 * CDK app that uses the package has no esbuild to resolve that type from.
 */
export function esbuildOptions(name: FunctionName, outfile: string) {
  const s = BUNDLE_SETTINGS;
  return {
    entryPoints: [ENTRIES[name]],
    absWorkingDir: REPO_ROOT,
    outfile,
    bundle: true,
    target: s.target,
    platform: s.platform,
    format: s.format,
    minify: s.minify,
    sourcemap: s.sourceMap,
    sourcesContent: s.sourcesContent,
    mainFields: [...s.mainFields],
    banner: { js: s.banner },
    external: [...s.externalModules],
  } satisfies BuildOptions;
}
