// How each Lambda handler is bundled: the ONE place shared by the CDK construct (function-code.ts: esbuild's API at
// synth, no Docker), `npm run bundle` (scripts/bundle.ts: the bundles the packed package carries) and
// `npm run bundle-sizes` (bench/bundle-sizes.ts), all through `esbuildOptions`.
// Nothing here imports aws-cdk-lib, so the script stays quick.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The repository root: esbuild's working directory, where package.json is. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export type FunctionName = 'receiver' | 'verifier' | 'poller';

/** The file each bundle's entry is in; `index.handler` is the handler Lambda calls, whoever bundled it. */
export const BUNDLE_FILE = 'index.mjs';
/** Where, beside BUNDLE_FILE, the chunks are that a function loads through `import()` (`esbuildOptions`). */
export const CHUNKS_DIRECTORY = 'chunks';

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

/**
 * The credential sources of the AWS SDK's default chain other than the environment variables. The chain reads
 * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN first, which Lambda sets for every function, and
 * reaches these only through `import()` when those are missing (or AWS_PROFILE is set): never on Lambda. Left out of
 * the bundles (about 130 KiB each, with the STS/SSO clients they pull in), they cost a cold start nothing; if a
 * misconfigured function ever reached one, Lambda's runtime would load its own copy of the SDK's package.
 * test/infra/bundling.test.ts checks that every import of these left in a bundle is an `import()`.
 */
export const LAZY_CREDENTIAL_PACKAGES = [
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-web-identity',
  '@smithy/credential-provider-imds',
] as const;

/**
 * The receiver's bundle goal (a cold start is mostly the time to compile and run what it loads), reported
 * by `npm run bundle-sizes` and the cold-start benchmark. Met since the schemas the receiver loads use zod/mini
 * (docs/deploying.md, "Function bundles"): one module on its path written against zod's classic API would put it over again.
 */
export const RECEIVER_BUNDLE_GOAL_BYTES = 400 * 1024;
/**
 * Above this the benchmarks fail: the goal itself, so a regression past it is caught. The bundle measures about
 * 386 KiB, so this leaves about 14 KiB for growth; zod's classic API alone would add about 65 KiB, and the whole
 * Store in place of the receiver's part of it (`createReceiverStore`) about 20 KiB.
 */
export const RECEIVER_BUNDLE_LIMIT_BYTES = 400 * 1024;

/** What esbuild's metafile says of a build's output files, as much as `loadedAtStart` reads. */
export interface BundleOutputs {
  outputs: Record<
    string,
    {
      bytes: number;
      imports: readonly { path: string; kind: string; external?: boolean }[];
      inputs: Record<string, { bytesInOutput: number }>;
    }
  >;
}

/**
 * What Node loads when it imports a function's entry: the entry and the chunks it imports statically, transitively
 * (not those behind an `import()`), with their size and the files that put code in them.
 */
export function loadedAtStart(metafile: BundleOutputs): { files: string[]; bytes: number; inputs: string[] } {
  // A module reached through import() is an entry point of its own chunk too: the function's is BUNDLE_FILE.
  const entry = Object.keys(metafile.outputs).find((file) => file.endsWith(`/${BUNDLE_FILE}`));
  const files = new Set<string>();
  const pending = entry === undefined ? [] : [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const output = metafile.outputs[file];
    if (files.has(file) || !output) continue;
    files.add(file);
    for (const imported of output.imports) {
      if (!imported.external && imported.kind === 'import-statement') pending.push(imported.path);
    }
  }
  const outputs = [...files].map((file) => metafile.outputs[file]);
  return {
    files: [...files],
    bytes: outputs.reduce((sum, output) => sum + (output?.bytes ?? 0), 0),
    inputs: [
      ...new Set(
        outputs.flatMap((output) =>
          Object.entries(output?.inputs ?? {})
            .filter(([, input]) => input.bytesInOutput > 0)
            .map(([input]) => input),
        ),
      ),
    ],
  };
}

/** What esbuild's metafile says of one bundle, as much as `receiverBundleProblems` needs. */
export interface BundleFacts {
  /** The size of the code Lambda loads at a cold start (`loadedAtStart`). */
  bytes: number;
  /** The bundled files, as esbuild names them (`node_modules/<package>/…`, `lib/…`). */
  inputs: readonly string[];
}

/**
 * Why the receiver's bundle is not as it should be (empty when it is): the verifier's clients inside it, or a size
 * over the limit. `npm run bundle-sizes` and the cold-start benchmark fail on any.
 */
export function receiverBundleProblems(bundle: BundleFacts): string[] {
  const problems = VERIFIER_ONLY_PACKAGES.filter((pkg) =>
    bundle.inputs.some((input) => input.includes(`node_modules/${pkg}`)),
  ).map((pkg) => `the receiver's bundle must not contain ${pkg}`);
  if (bundle.bytes > RECEIVER_BUNDLE_LIMIT_BYTES) {
    problems.push(
      `the receiver's bundle is ${(bundle.bytes / 1024).toFixed(1)} KiB, over its limit of ` +
        `${RECEIVER_BUNDLE_LIMIT_BYTES / 1024} KiB`,
    );
  }
  return problems;
}

/** The settings `esbuildOptions` gives esbuild. */
export const BUNDLE_SETTINGS = {
  /** The Lambda runtime the construct deploys is nodejs22.x (infra/README.md, cdk-nag AwsSolutions-L1). */
  target: 'node22',
  platform: 'node',
  format: 'esm',
  minify: true,
  /**
   * Source maps on, without the sources inside (smaller): read by the bundle itself when a stack trace is formatted
   * (lib/runtime/stack-traces.ts), not by Node at every cold start.
   */
  sourceMap: true,
  sourcesContent: false,
  /** Prefer the ESM builds of dependencies (better tree-shaking). */
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  /**
   * The AWS SDK is bundled, although nodejs22.x ships an AWS SDK v3 (and NodejsFunction would leave `@aws-sdk/*` out
   * by default); only the credential sources Lambda never uses are left out (`LAZY_CREDENTIAL_PACKAGES`). The project
   * pins its SDK clients (3.1162–3.1169) together with `@aws-sdk/lib-dynamodb` and the `@smithy/*` signer the EKS
   * tokens use; the runtime's copy is whatever version AWS last put in the image, so mixing the two would run
   * untested pairs, and `instanceof ResourceNotFoundException` checks would silently fail across copies. It is also
   * faster: the runtime's copy is loaded from node_modules as whole CommonJS packages, which costs a cold start more
   * than the tree-shaken, minified part of the SDK a bundle holds (docs/deploying.md, "Function bundles", has the figures).
   */
  externalModules: [...LAZY_CREDENTIAL_PACKAGES] as string[],
  /**
   * Packages replaced by another at bundling (esbuild's `alias`). `whatwg-url`: node-fetch 2 (the Kubernetes
   * client's HTTP) imports it only for `URL`, and uses Node's own `url.URL` whenever that exists, which on Node it
   * always does; bundled, its tr46 mapping table (254 KiB of JSON) would be parsed at every verifier cold start for
   * nothing. Node's `url` module gives node-fetch the same `URL` it uses anyway.
   */
  alias: { 'whatwg-url': 'node:url' } as Record<string, string>,
} as const;

/**
 * The esbuild options of one function, its entry written to `outfile` (`<dir>/index.mjs`), the code it reaches only
 * through `import()` to `chunks/` beside it. Checked against esbuild's BuildOptions but not declared as one: the
 * construct's published declarations import this module, and a CDK app that uses the package has no esbuild to
 * resolve that type from.
 *
 * Code splitting (`splitting`, ESM only) keeps what a function loads on demand out of the file Node compiles at a
 * cold start: the verifier's Kubernetes client (on its first cluster read, lib/clusters/deferred-reader.ts), each Git
 * host's client (on the first promotion to that host), the CloudWatch and STS clients of the verification checks. In
 * one file, V8 would still parse all of it at load, only its evaluation deferred; a chunk is read, compiled and
 * evaluated only when its `import()` runs. The code a function loads at start is the entry and the chunks it imports
 * statically (code shared with an on-demand chunk).
 */
export function esbuildOptions(name: FunctionName, outfile: string) {
  const s = BUNDLE_SETTINGS;
  return {
    entryPoints: { [path.basename(outfile, path.extname(outfile))]: ENTRIES[name] },
    absWorkingDir: REPO_ROOT,
    outdir: path.dirname(outfile),
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: `${CHUNKS_DIRECTORY}/[name]-[hash]`,
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
    alias: { ...s.alias },
  } satisfies BuildOptions;
}
