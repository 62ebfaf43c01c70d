// `npm run bundle-sizes`: bundles each Lambda handler with esbuild exactly as the CDK construct does (the settings
// live in infra/bundling.ts) and prints, per function, the size of the code Lambda loads at a cold start (the entry and
// the chunks it imports) and of the chunks it loads only through `import()`, whether the Kubernetes client or Octokit
// is inside and where (from esbuild's metafile), and which packages are left out of it. Fails when the
// receiver's bundle holds either client or is over its size limit (`receiverBundleProblems`).
import { mkdtemp, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import {
  esbuildOptions,
  loadedAtStart,
  RECEIVER_BUNDLE_GOAL_BYTES,
  RECEIVER_BUNDLE_LIMIT_BYTES,
  receiverBundleProblems,
  type FunctionName,
  type VERIFIER_ONLY_PACKAGES,
} from '../infra/bundling.js';

/** Where a package is in a bundle: loaded at a cold start, only by an `import()`, or not at all. */
type Placement = 'at start' | 'on demand' | 'no';

interface Row {
  name: FunctionName;
  /** The code loaded at a cold start, and its source maps (which `--enable-source-maps` reads then). */
  bytes: number;
  mapBytes: number;
  /** The chunks loaded only through `import()`. */
  onDemandBytes: number;
  inputs: string[];
  packages: Record<(typeof VERIFIER_ONLY_PACKAGES)[number], Placement>;
  /** Packages the bundle imports rather than holds, and how: `import()` only, or at load. */
  external: { dynamic: string[]; atLoad: string[] };
}

const FUNCTIONS: readonly FunctionName[] = ['receiver', 'verifier', 'poller'];

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? specifier);

async function measure(name: FunctionName, dir: string): Promise<Row> {
  const outfile = path.join(dir, name, 'index.mjs');
  const result = await build({ ...esbuildOptions(name, outfile), metafile: true, logLevel: 'warning' });
  const inputs = Object.keys(result.metafile.inputs);
  const atStart = loadedAtStart(result.metafile);
  const placement = (pkg: string): Placement =>
    atStart.inputs.some((input) => input.includes(`node_modules/${pkg}`))
      ? 'at start'
      : inputs.some((input) => input.includes(`node_modules/${pkg}`))
        ? 'on demand'
        : 'no';
  const outputs = Object.entries(result.metafile.outputs);
  const codeBytes = outputs.filter(([file]) => file.endsWith('.mjs')).reduce((sum, [, out]) => sum + out.bytes, 0);
  const mapBytes = outputs
    .filter(([file]) => atStart.files.some((loaded) => file === `${loaded}.map`))
    .reduce((sum, [, out]) => sum + out.bytes, 0);
  const imported = outputs
    .flatMap(([, out]) => out.imports)
    .filter((entry) => entry.external && !isBuiltin(entry.path));
  const unique = (specifiers: string[]): string[] => [...new Set(specifiers)].sort();
  return {
    name,
    bytes: atStart.bytes,
    mapBytes,
    onDemandBytes: codeBytes - atStart.bytes,
    inputs,
    packages: {
      '@kubernetes/client-node': placement('@kubernetes/client-node/'),
      '@octokit/': placement('@octokit/'),
    },
    external: {
      dynamic: unique(imported.filter((entry) => entry.kind === 'dynamic-import').map((entry) => entry.path)),
      atLoad: unique(imported.filter((entry) => entry.kind !== 'dynamic-import').map((entry) => entry.path)),
    },
  };
}

const kib = (bytes: number): string => (bytes / 1024).toFixed(1);

async function main(): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-bundles-'));
  try {
    const rows = await Promise.all(FUNCTIONS.map((name) => measure(name, dir)));
    const lines = [
      '| function | at start: bytes | KiB    | source map KiB | on demand KiB | @kubernetes/client-node | @octokit  |',
      '| -------- | --------------- | ------ | -------------- | ------------- | ----------------------- | --------- |',
      ...rows.map(
        (row) =>
          `| ${row.name.padEnd(8)} | ${String(row.bytes).padStart(15)} | ${kib(row.bytes).padStart(6)} | ` +
          `${kib(row.mapBytes).padStart(14)} | ${kib(row.onDemandBytes).padStart(13)} | ` +
          `${row.packages['@kubernetes/client-node'].padEnd(23)} | ${row.packages['@octokit/'].padEnd(9)} |`,
      ),
    ];
    console.log(lines.join('\n'));
    for (const row of rows) {
      const { dynamic, atLoad } = row.external;
      console.log(
        `${row.name}: left out, loaded only by import(): ${dynamic.join(', ') || 'none'}; ` +
          `optional requires and imports at load: ${atLoad.join(', ') || 'none'}`,
      );
    }
    const receiver = rows.find((row) => row.name === 'receiver');
    const goal = RECEIVER_BUNDLE_GOAL_BYTES / 1024;
    const over = receiver ? (receiver.bytes - RECEIVER_BUNDLE_GOAL_BYTES) / 1024 : 0;
    console.log(
      `receiver goal: ${goal} KiB (fleet-scale): ${over > 0 ? `not met, ${over.toFixed(1)} KiB over` : 'met'}; ` +
        `limit (fails above): ${RECEIVER_BUNDLE_LIMIT_BYTES / 1024} KiB`,
    );
    const problems = receiver ? receiverBundleProblems(receiver) : ['no receiver bundle'];
    for (const problem of problems) console.error(problem);
    return problems.length > 0 ? 1 : 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
