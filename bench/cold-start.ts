// Cold start of each Lambda function (receiver, verifier, poller): the size of its bundle and the time a fresh Node
// process takes to load it. Each function is bundled with esbuild exactly as the CDK construct does
// (`esbuildOptions` of infra/bundling.ts, as bench/bundle-sizes.ts does); then, per sample, a new `node` process
// with the function's environment variables (as the construct sets them) imports the
// bundle's `index.mjs` and reports how long the import took (module evaluation plus the handler module's top-level
// init, e.g. its Powertools Logger), how long it has been alive since the process started, and the CPU time it has
// used (steadier than wall time on a busy machine). Nothing calls AWS: the SDK clients are built at the first
// invocation, which is not measured. Median of SAMPLES processes, after one unmeasured process per function to warm
// the file cache; the functions and the baseline take turns.
//
// A package a bundle leaves out (infra/bundling.ts, `externalModules`) is loaded the way Lambda would load it from
// its runtime: from a node_modules beside the bundle (a link to this repository's), so an import of it at load time
// is paid for here as it would be there. The bundles leave out only what the SDK reaches through `import()` and
// Lambda never uses, so today nothing is loaded from there; the note says so, from esbuild's metafile.
//
// Baseline: the same probe, in the same run, importing an empty module: node's own start-up and the probe's cost.
// Every figure above it is what the function's code adds, so "ready" minus the baseline is the function's own
// cold-start cost on this machine. Lambda's real init adds the runtime's own start, and this machine is not a Lambda
// arm64 core, so compare the functions and the baseline with each other rather than with Lambda's Init Duration.
// Two more subjects, the receiver and the verifier with Node's `--enable-source-maps`, price what the construct set
// before the bundles mapped their own stack traces when one is formatted (lib/runtime/stack-traces.ts): Node reads and
// parses the source map of every module, and measures its lines, as it loads it.
//
// A bundle is an entry and the chunks it imports (infra/bundling.ts, `esbuildOptions`); its size here is what a cold
// start loads (`loadedAtStart`), not the chunks it loads only through `import()` later.
//
// Throws, failing `npm run bench`, when the receiver's bundle holds the verifier's clients or is over its size limit
// (`receiverBundleProblems`), as `npm run bundle-sizes` does; reports a goal not met, failing the run once every
// figure is printed, when the verifier's load and init take more CPU over the empty module's, or add more memory
// once loaded, than its goal (`VERIFIER_GOAL`).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import {
  esbuildOptions,
  loadedAtStart,
  REPO_ROOT,
  receiverBundleProblems,
  type FunctionName,
} from '../infra/bundling.js';
import { formatMs, formatNumber, formatRatio, runIfMain, type Bench, type BenchSection } from './report.js';

/** Fresh processes measured per function (and for the baseline); the median is reported. */
const SAMPLES = 9;
const FUNCTIONS: readonly FunctionName[] = ['receiver', 'verifier', 'poller'];

const run = promisify(execFile);
/**
 * The functions also measured with Node's `--enable-source-maps`, which the construct set before the bundles mapped
 * their stack traces themselves (lib/runtime/stack-traces.ts): what reading every map at load costs.
 */
const WITH_NODE_SOURCE_MAPS: readonly FunctionName[] = ['receiver', 'verifier'];
const withNodeSourceMaps = (name: FunctionName): string => `${name} with --enable-source-maps`;

/**
 * The fleet-scale goal for the verifier (docs/benchmarks.md), over the empty module of the same run: the CPU its load
 * adds, and the RSS it adds once loaded. The bench fails when either is over. What the verifier loads only through
 * `import()` (the Kubernetes client on the first cluster read, a Git host's client on the first promotion to it) is
 * not in it. The RSS is over the empty module's because an empty Node 22 process's own RSS varies by half on one
 * machine (44 to 70 MiB): most of it is the node binary's pages, as many as the page cache has mapped in.
 */
const VERIFIER_GOAL = { cpuMs: 120, rssBytes: 40 * 1024 ** 2 };

/**
 * Imports the module named by its argument (a file URL) and prints how long the import took and how long the
 * process had been alive when it finished (`performance.now()` counts from the process's start), the CPU time it had
 * used by then (all its threads: V8 compiles and collects on helpers too), and its memory then.
 */
const PROBE = `const started = performance.now();
await import(process.argv[2]);
const ready = performance.now();
const { user, system } = process.cpuUsage();
const { rss, heapUsed } = process.memoryUsage();
process.stdout.write(JSON.stringify({
  importMs: ready - started, readyMs: ready, cpuMs: (user + system) / 1000, rssBytes: rss, heapBytes: heapUsed,
}));
`;

/** What the construct sets (infra/pipeline-controller.ts) and what the Lambda runtime sets, with made-up values. */
function lambdaEnvironment(name: FunctionName): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'eu-west-1',
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_LAMBDA_FUNCTION_NAME: `PipelineControllerStack-${name}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: name === 'verifier' ? '1024' : name === 'receiver' ? '512' : '256',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    TABLE_NAME: 'PipelineControllerStack-Table',
    QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/PipelineControllerStack-Queue',
    DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/PipelineControllerStack-DeadLetters',
    MASTER_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:MasterKey-AbCdEf',
    SECRETS_PREFIX: 'pipeline-controller/',
    RETENTION_DAYS: '90',
  };
}

interface Sample {
  importMs: number;
  readyMs: number;
  /** User and system CPU time of the process until ready. */
  cpuMs: number;
  /** Resident set size and V8 heap in use once the module is loaded. */
  rssBytes: number;
  heapBytes: number;
  /** From the spawn to the process's exit, seen from here. */
  processMs: number;
}

async function sample(probe: string, module: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, [probe, pathToFileURL(module).href], { env });
  const processMs = performance.now() - started;
  const reported = JSON.parse(stdout) as Omit<Sample, 'processMs'>;
  return { ...reported, processMs };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};

/** `+12.3 ms` / `−4.56 ms`. */
const signedMs = (ms: number): string => `${ms < 0 ? '−' : '+'}${formatMs(Math.abs(ms))}`;

type Medians = Sample;

function medians(samples: readonly Sample[]): Medians {
  return {
    importMs: median(samples.map((s) => s.importMs)),
    readyMs: median(samples.map((s) => s.readyMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
    processMs: median(samples.map((s) => s.processMs)),
    rssBytes: median(samples.map((s) => s.rssBytes)),
    heapBytes: median(samples.map((s) => s.heapBytes)),
  };
}

const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
const signedMib = (bytes: number): string => `${bytes < 0 ? '−' : '+'}${mib(Math.abs(bytes))}`;

/** What of the fleet-scale goal the verifier misses, each figure over the same run's empty module: none when met. */
function verifierGoalMissed(measured: Medians, baseline: Medians): string[] {
  const cpuMs = measured.cpuMs - baseline.cpuMs;
  return [
    ...(cpuMs > VERIFIER_GOAL.cpuMs
      ? [
          `the verifier's load and init take ${signedMs(cpuMs)} of CPU over an empty module's, over the goal of ` +
            `+${VERIFIER_GOAL.cpuMs} ms`,
        ]
      : []),
    ...(measured.rssBytes - baseline.rssBytes > VERIFIER_GOAL.rssBytes
      ? [
          `the verifier adds ${mib(measured.rssBytes - baseline.rssBytes)} of RSS over an empty module's once ` +
            `loaded, over the goal of +${mib(VERIFIER_GOAL.rssBytes)}`,
        ]
      : []),
  ];
}

/** Where the verifier stands against the fleet-scale goal, both figures over the same run's empty module. */
function verifierGoal(measured: Medians, baseline: Medians): string {
  const met = verifierGoalMissed(measured, baseline).length === 0;
  return (
    `fleet-scale goal: CPU ≤ +${VERIFIER_GOAL.cpuMs} ms and RSS ≤ +${mib(VERIFIER_GOAL.rssBytes)} once loaded ` +
    `(here ${signedMs(measured.cpuMs - baseline.cpuMs)}, ${signedMib(measured.rssBytes - baseline.rssBytes)}): ` +
    (met ? 'met' : 'not met')
  );
}
const memory = (measured: Medians): string => `RSS ${mib(measured.rssBytes)} (V8 heap ${mib(measured.heapBytes)})`;

/** A bundle as the probe loads it, and the packages it imports from node_modules at load (none, today). */
interface BuiltBundle {
  file: string;
  /** The entry and the chunks it imports: what a cold start loads (`loadedAtStart`). */
  bytes: number;
  loadedFromNodeModules: string[];
}

const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? specifier);

async function buildBundle(name: FunctionName, file: string): Promise<BuiltBundle> {
  const result = await build({ ...esbuildOptions(name, file), metafile: true, logLevel: 'warning' });
  const atStart = loadedAtStart(result.metafile);
  const problems =
    name === 'receiver'
      ? receiverBundleProblems({ bytes: atStart.bytes, inputs: Object.keys(result.metafile.inputs) })
      : [];
  if (problems.length > 0) throw new Error(problems.join('; '));
  // What the code loaded at start imports, not holds (not through import()): loaded from the node_modules beside it.
  const atLoad = atStart.files
    .flatMap((loaded) => result.metafile.outputs[loaded]?.imports ?? [])
    .filter((entry) => entry.external && entry.kind === 'import-statement' && !isBuiltin(entry.path));
  return {
    file,
    bytes: atStart.bytes,
    loadedFromNodeModules: [...new Set(atLoad.map((entry) => entry.path))].sort(),
  };
}

export const benchColdStart: Bench = async (): Promise<BenchSection> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-cold-start-'));
  try {
    // Lambda would load a package the bundle leaves out from its runtime; here, from this repository's.
    await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const probe = path.join(dir, 'probe.mjs');
    await writeFile(probe, PROBE);
    const empty = path.join(dir, 'empty', 'index.mjs');
    await build({ stdin: { contents: '' }, outfile: empty, format: 'esm', logLevel: 'warning' });
    const bundles = new Map<FunctionName, BuiltBundle>();
    for (const name of FUNCTIONS) bundles.set(name, await buildBundle(name, path.join(dir, name, 'index.mjs')));

    const subjects: { name: string; file: string; env: NodeJS.ProcessEnv }[] = [
      { name: 'empty', file: empty, env: lambdaEnvironment('poller') },
      ...FUNCTIONS.map((name) => ({ name, file: bundles.get(name)?.file ?? '', env: lambdaEnvironment(name) })),
      ...WITH_NODE_SOURCE_MAPS.map((name) => ({
        name: withNodeSourceMaps(name),
        file: bundles.get(name)?.file ?? '',
        env: { ...lambdaEnvironment(name), NODE_OPTIONS: '--enable-source-maps' },
      })),
    ];
    const samples = new Map<string, Sample[]>(subjects.map((subject) => [subject.name, []]));
    // One unmeasured round (file cache, the disk), then SAMPLES rounds, each subject in turn.
    for (let round = 0; round <= SAMPLES; round++) {
      for (const subject of subjects) {
        const result = await sample(probe, subject.file, subject.env);
        if (round > 0) samples.get(subject.name)?.push(result);
      }
    }

    const baseline = medians(samples.get('empty') ?? []);
    const unmet = verifierGoalMissed(medians(samples.get('verifier') ?? []), baseline);
    const sampled = `median of ${SAMPLES} fresh node ${process.version} processes`;
    const conditions = `${sampled}, as deployed (stack traces mapped by the bundle when one is formatted)`;
    return {
      title: 'Cold start',
      unmet,
      measurements: [
        ...FUNCTIONS.map((name) => {
          const measured = medians(samples.get(name) ?? []);
          const bundle = bundles.get(name);
          const fromNodeModules = bundle?.loadedFromNodeModules ?? [];
          return {
            name: `${name}: load and init of the bundle (${formatNumber((bundle?.bytes ?? 0) / 1024)} KiB)`,
            value: `ready ${formatMs(measured.readyMs)} after process start (import ${formatMs(measured.importMs)})`,
            baseline: `empty module: ready ${formatMs(baseline.readyMs)} (import ${formatMs(baseline.importMs)})`,
            ratio: `${formatRatio(measured.readyMs, baseline.readyMs)} (${signedMs(measured.readyMs - baseline.readyMs)})`,
            note:
              `${conditions}; CPU ${signedMs(measured.cpuMs - baseline.cpuMs)} over the empty module's; ` +
              `spawn to exit ${formatMs(measured.processMs)} vs ${formatMs(baseline.processMs)}; ` +
              'the bundle holds the AWS SDK clients, without the credential sources Lambda never uses; ' +
              (fromNodeModules.length > 0
                ? `loaded from node_modules at init: ${fromNodeModules.join(', ')}; `
                : 'nothing loaded from node_modules; ') +
              "Lambda's init adds the runtime's own start",
          };
        }),
        ...FUNCTIONS.map((name) => {
          const measured = medians(samples.get(name) ?? []);
          const memorySize = lambdaEnvironment(name).AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '?';
          return {
            name: `${name}: memory once loaded`,
            value: memory(measured),
            baseline: `empty module: ${memory(baseline)}`,
            ratio: `+${mib(measured.rssBytes - baseline.rssBytes)} RSS`,
            note:
              `${conditions}; before the first invocation (clients are built then); the construct gives it ` +
              `${memorySize} MB` +
              (name === 'verifier' ? `; ${verifierGoal(measured, baseline)}` : ''),
          };
        }),
        ...WITH_NODE_SOURCE_MAPS.map((name) => {
          const deployed = medians(samples.get(name) ?? []);
          const nodeMaps = medians(samples.get(withNodeSourceMaps(name)) ?? []);
          return {
            name: `${name} with Node's --enable-source-maps`,
            value: `ready ${formatMs(nodeMaps.readyMs)} after process start (import ${formatMs(nodeMaps.importMs)})`,
            baseline: `as deployed: ready ${formatMs(deployed.readyMs)}`,
            ratio: `${signedMs(nodeMaps.readyMs - deployed.readyMs)} with the flag`,
            note:
              `${sampled}; what Node's reading every source map ` +
              `at load would cost: CPU ${signedMs(nodeMaps.cpuMs - deployed.cpuMs)}, ` +
              `RSS ${signedMib(nodeMaps.rssBytes - deployed.rssBytes)}; with it: ` +
              `CPU ${signedMs(nodeMaps.cpuMs - baseline.cpuMs)} over the empty module's`,
          };
        }),
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

await runIfMain(import.meta.url, benchColdStart);
