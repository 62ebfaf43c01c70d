// `npm run bundle-sizes`: bundles each Lambda handler with esbuild exactly as the CDK construct does (the settings
// live in infra/bundling.ts) and prints, per function, the size of the code Lambda loads and whether the Kubernetes
// client or Octokit is inside (from esbuild's metafile). Fails when the receiver's bundle holds either.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions, VERIFIER_ONLY_PACKAGES, type FunctionName } from '../infra/bundling.js';

interface Row {
  name: FunctionName;
  bytes: number;
  mapBytes: number;
  packages: Record<(typeof VERIFIER_ONLY_PACKAGES)[number], boolean>;
}

const FUNCTIONS: readonly FunctionName[] = ['receiver', 'verifier', 'poller'];

async function measure(name: FunctionName, dir: string): Promise<Row> {
  const outfile = path.join(dir, name, 'index.mjs');
  const result = await build({ ...esbuildOptions(name, outfile), metafile: true, logLevel: 'warning' });
  const inputs = Object.keys(result.metafile.inputs);
  const contains = (pkg: string): boolean => inputs.some((input) => input.includes(`node_modules/${pkg}`));
  return {
    name,
    bytes: (await stat(outfile)).size,
    mapBytes: (await stat(`${outfile}.map`)).size,
    packages: {
      '@kubernetes/client-node': contains('@kubernetes/client-node/'),
      '@octokit/': contains('@octokit/'),
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
    const receiver = rows.find((row) => row.name === 'receiver');
    const leaked = VERIFIER_ONLY_PACKAGES.filter((pkg) => receiver?.packages[pkg]);
    if (leaked.length > 0) {
      console.error(`the receiver's bundle must not contain ${leaked.join(' or ')}`);
      return 1;
    }
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
