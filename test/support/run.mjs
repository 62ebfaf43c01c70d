// The test command (`npm run test:unit`, `npm run test:quick`): every test file under test/ through Node's test
// runner, a few files per process. Node's runner starts one process per file, and each process pays again for tsx
// and for loading the same modules (the AWS SDK, the Kubernetes client, zod): on a 2-CPU machine that was most of
// the suite's time. Here the files are dealt into shards, each shard one process that imports its files in turn, and
// the shards run side by side, longest first (docs/testing.md has the figures).
//
// A file runs in a process of its own when sharing one would change it: hooks at the top level of a file (`before`,
// `afterEach`, …) belong to the process's root test, so in a shared process they would run around every other file's
// tests too.
//
//   node test/support/run.mjs [--checks] [--quick] [--isolate] [--concurrency N] [--shards N] [--write-durations]
//                             [--attribute-async-errors] [FILE|DIR …]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildCompiledCli } from './compiled-cli.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUPPORT = fileURLToPath(new URL('.', import.meta.url));
/** Per-file wall times of the last `--write-durations` run, used to balance the shards. */
const DURATIONS_FILE = join(SUPPORT, 'durations.json');
/** What a file missing from the durations table is assumed to take. */
const UNKNOWN_FILE_MS = 3_000;

const ROOT_LEVEL_HOOK = /^(?:before|after|beforeEach|afterEach)\(/m;
/**
 * What makes a test file too slow for `test:quick`: it, or a helper under test/ it imports, starts other processes
 * (the CLI, `serve`, npm, zsh, Chromium) or synthesizes the CDK stack.
 */
const SLOW_MARKERS = [/from 'node:child_process'/, /from 'playwright-core'/, /from 'aws-cdk-lib\/assertions'/];
/**
 * What else `test:quick` leaves out: the whole loop run in one process (test/loop, test/faults) and the suites that
 * work at scale (thousands of clusters, targets, files or random requests).
 */
const NOT_QUICK = [
  'test/loop/',
  'test/faults/',
  'test/cli/apply-selection-limits.test.ts',
  'test/cli/apply-limits.test.ts',
  'test/cli/apply-interrupted.test.ts',
  'test/config/input-limits.test.ts',
  'test/http/receiver-properties.test.ts',
  'test/local/store-iterators.test.ts',
  'test/promotion/github-scan-store.test.ts',
  'test/promotion/marker-cost.test.ts',
  'test/runtime/lambda-bundles.test.ts',
];

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    isolate: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    shards: { type: 'string' },
    'write-durations': { type: 'boolean', default: false },
    checks: { type: 'boolean', default: false },
    'attribute-async-errors': { type: 'boolean', default: false },
  },
});

const files = selectFiles(positionals.length > 0 ? positionals : ['test'], options.quick);
if (files.length === 0) {
  console.error('run.mjs: no test files match');
  process.exit(1);
}
const durations = readDurations();
// One shard more than there are CPUs: the end-to-end, serve and package tests spend much of their time waiting on
// child processes, and a shard that waits leaves its CPU to the others (measured: 2 CPUs, 3 shards at a time: 250 s;
// 2 at a time: 265 s; 4: 261 s). Eight shards at least, so that a shard's modules load once for many files.
const concurrency = Number(options.concurrency ?? availableParallelism() + 1);
const shardCount = Number(options.shards ?? Math.max(8, concurrency * 2));
const work = mkdtempSync(join(tmpdir(), 'pipeline-controller-tests-'));
const entries = options.isolate ? files : writeShards(dealShards(files, durations, shardCount), work);
const durationsOut = join(work, 'durations.json');

// `npm test`: the static checks run beside the tests, on the CPU the shards leave idle, in two lanes: the lint, the
// longest, in one, the type check and the format check in the other. The lint alone is single-threaded, so one lane
// would end the run on one CPU with the other idle once the tests are done (docs/testing.md). They start before the
// build below, which leaves a CPU idle for a second or two. The lint runs at the lowest priority: it then takes
// little from the shards while they compute and more at the end, when the last shards mostly wait.
const checks = options.checks
  ? Promise.all([runChecks(['lint'], 19), runChecks(['typecheck', 'format:check'], 10)]).then((lanes) => lanes.flat())
  : Promise.resolve([]);
// The quick tests start no pipelinectl, so they need no build of it.
const cli = options.quick ? undefined : await buildCompiledCli(ROOT);

const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stderr',
  `--test-reporter=${join(SUPPORT, 'summary-reporter.mjs')}`,
  '--test-reporter-destination=stdout',
  `--test-reporter=${join(SUPPORT, 'durations-reporter.mjs')}`,
  `--test-reporter-destination=${durationsOut}`,
];
// The runner's async hook, lean unless asked for (lean-test-harness.mjs says what that changes).
const harness = options['attribute-async-errors']
  ? []
  : ['--import', pathToFileURL(join(SUPPORT, 'lean-test-harness.mjs')).href];
const child = spawn(
  process.execPath,
  [...harness, '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...entries],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...(cli && { PIPELINECTL_TEST_BIN: cli.bin }) } },
);
// Ctrl-C stops the tests and still removes the build and the shard files.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => child.kill(signal));
const code = await new Promise((done) => child.on('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0))));
if (options['write-durations'] && existsSync(durationsOut))
  recordDurations(durations, JSON.parse(readFileSync(durationsOut, 'utf8')));
rmSync(work, { recursive: true, force: true });
cli?.remove();
const failedChecks = await checks;
if (failedChecks.length > 0) console.log(`checks: ${failedChecks.join(', ')} failed (their output is above)`);
process.exit(code !== 0 ? code : failedChecks.length > 0 ? 1 : 0);

/**
 * Runs `npm run <script>` for each script in turn, each one's output shown when it ends; resolves the failed ones. They
 * run at a lower priority (`niceness`, 10 or 19), so that they take the CPU the shards leave while waiting on their
 * child processes and end with them, rather than slowing the shards from the start (measured: 250 s against 264 s).
 */
async function runChecks(scripts, niceness) {
  const failed = [];
  for (const script of scripts) {
    const started = Date.now();
    const run = spawn('nice', ['-n', String(niceness), 'npm', 'run', '--silent', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    run.stdout.on('data', (chunk) => (output += chunk));
    run.stderr.on('data', (chunk) => (output += chunk));
    const exitCode = await new Promise((done) => run.on('close', (status) => done(status ?? 1)));
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stderr.write(`── npm run ${script}: ${exitCode === 0 ? 'passed' : 'FAILED'} (${seconds} s)\n`);
    if (exitCode !== 0) {
      process.stderr.write(output.endsWith('\n') ? output : `${output}\n`);
      failed.push(script);
    }
  }
  return failed;
}

/** The test files under the given files and directories, sorted, relative to the repository root. */
function selectFiles(paths, quick) {
  const found = [];
  const visit = (path) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules') visit(join(path, name));
    } else if (path.endsWith('.test.ts')) found.push(relative(ROOT, path));
  };
  for (const path of paths) visit(resolve(ROOT, path));
  const unique = [...new Set(found)].sort();
  if (!quick) return unique;
  return unique.filter(
    (file) => !NOT_QUICK.some((prefix) => file.startsWith(prefix)) && !startsProcesses(join(ROOT, file), new Set()),
  );
}

/** Whether a test file or a test helper it imports (relative imports under test/) matches a slow marker. */
function startsProcesses(path, seen) {
  if (seen.has(path) || !existsSync(path)) return false;
  seen.add(path);
  const source = readFileSync(path, 'utf8');
  if (SLOW_MARKERS.some((marker) => marker.test(source))) return true;
  for (const [, specifier] of source.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(path), specifier).replace(/\.js$/, '.ts');
    if (target.startsWith(join(ROOT, 'test')) && startsProcesses(target, seen)) return true;
  }
  return false;
}

function readDurations() {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Files dealt into shards so that the shards end at about the same time, and files that load the same modules and
 * warm the same caches share a process: each directory of test/ is one piece, cut into pieces of about a shard's
 * share when it is larger, and the pieces are dealt longest first onto the least loaded shard (the
 * longest-processing-time rule). A file with root-level hooks gets a shard of its own.
 */
function dealShards(paths, known, count) {
  const cost = (file) => known[file] ?? UNKNOWN_FILE_MS;
  const alone = [];
  const byDirectory = new Map();
  for (const file of paths) {
    if (ROOT_LEVEL_HOOK.test(readFileSync(join(ROOT, file), 'utf8'))) {
      alone.push({ files: [file], ms: cost(file) });
      continue;
    }
    const directory = dirname(file);
    if (!byDirectory.has(directory)) byDirectory.set(directory, []);
    byDirectory.get(directory).push(file);
  }
  const share = paths.reduce((sum, file) => sum + cost(file), 0) / count;
  const pieces = [...byDirectory.values()].flatMap((files) => {
    const total = files.reduce((sum, file) => sum + cost(file), 0);
    return leastLoaded(files, Math.max(1, Math.round(total / share)), cost);
  });
  const shards = leastLoaded(pieces, count, (piece) => piece.ms).map((shard) => ({
    files: shard.files.flatMap((piece) => piece.files),
    ms: shard.ms,
  }));
  return [...shards, ...alone].filter((shard) => shard.files.length > 0).sort((a, b) => b.ms - a.ms);
}

/** `items` dealt into `count` bins, longest first onto the least loaded. */
function leastLoaded(items, count, cost) {
  const bins = Array.from({ length: count }, () => ({ files: [], ms: 0 }));
  for (const item of [...items].sort((a, b) => cost(b) - cost(a))) {
    const lightest = bins.reduce((best, bin) => (bin.ms < best.ms ? bin : best));
    lightest.files.push(item);
    lightest.ms += cost(item);
  }
  return bins.filter((bin) => bin.files.length > 0);
}

/**
 * One entry file per shard, importing its test files; the runner starts them longest first. The imports are static, so
 * every file is loaded before the first test runs and no test shares its process's CPU with a file still loading.
 */
function writeShards(shards, directory) {
  return shards.map((shard, index) => {
    const path = join(directory, `shard-${String(index).padStart(2, '0')}.test.mjs`);
    const imports = shard.files.map((file) => `import ${JSON.stringify(pathToFileURL(join(ROOT, file)).href)};`);
    writeFileSync(path, `${imports.join('\n')}\n`);
    return path;
  });
}

/** Keeps the per-file times of this run (merged with the files it did not run) and prints the slowest ten. */
function recordDurations(known, measured) {
  const merged = { ...known, ...measured };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  const slowest = Object.entries(measured)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 10);
  console.log('slowest files:');
  for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
}
