// `npm run bundle-sizes`: bundles each Lambda handler with esbuild exactly as the CDK construct does (the settings
// live in infra/bundling.ts) and prints, per function, the size of the code Lambda loads, whether the Kubernetes
// client or Octokit is inside (from esbuild's metafile), and which packages are left out of it. Fails when the
// receiver's bundle holds either client or is over its size limit (`receiverBundleProblems`).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import {
  esbuildOptions,
  RECEIVER_BUNDLE_GOAL_BYTES,
  RECEIVER_BUNDLE_LIMIT_BYTES,
  receiverBundleProblems,
  type FunctionName,
  type VERIFIER_ONLY_PACKAGES,
} from '../infra/bundling.js';

interface Row {
  name: FunctionName;
  bytes: number;
  mapBytes: number;
  inputs: string[];
  packages: Record<(typeof VERIFIER_ONLY_PACKAGES)[number], boolean>;
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
  const contains = (pkg: string): boolean => inputs.some((input) => input.includes(`node_modules/${pkg}`));
  const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.mjs'))?.[1];
  const imported = (output?.imports ?? []).filter((entry) => entry.external && !isBuiltin(entry.path));
  const unique = (specifiers: string[]): string[] => [...new Set(specifiers)].sort();
  return {
    name,
    bytes: (await stat(outfile)).size,
    mapBytes: (await stat(`${outfile}.map`)).size,
    inputs,
    packages: {
      '@kubernetes/client-node': contains('@kubernetes/client-node/'),
      '@octokit/': contains('@octokit/'),
    },
    external: {
      dynamic: unique(imported.filter((entry) => entry.kind === 'dynamic-import').map((entry) => entry.path)),
      atLoad: unique(imported.filter((entry) => entry.kind !== 'dynamic-import').map((entry) => entry.path)),
    },
  };
}

const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

async function main(): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-bundles-'));
  try {
    const rows = await Promise.all(FUNCTIONS.map((name) => measure(name, dir)));
    const lines = [
      '| function | bytes     | KiB    | source map KiB | @kubernetes/client-node | @octokit |',
      '| -------- | --------- | ------ | -------------- | ----------------------- | -------- |',
      ...rows.map(
        (row) =>
          `| ${row.name.padEnd(8)} | ${String(row.bytes).padStart(9)} | ${kib(row.bytes).padStart(6)} | ` +
          `${kib(row.mapBytes).padStart(14)} | ${yesNo(row.packages['@kubernetes/client-node']).padEnd(23)} | ` +
          `${yesNo(row.packages['@octokit/']).padEnd(8)} |`,
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
