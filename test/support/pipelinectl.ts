// Running pipelinectl as a user does, for every test that does: the one place that knows where the repository is,
// which pipelinectl to start and with what environment.
//
// A command that ends by itself runs in the test's own process, through the CLI's entry (`main` with a terminal of
// its own: lib/cli/terminal.ts), since a few hundred process starts were a third of the suite's CPU. `serve`, `demo`
// and `dashboard`, which run until a signal stops them, `--aws` runs and runs given variables of their own start
// `node …/bin/pipelinectl.js` in a child process from the repository root. PIPELINECTL_TEST_PROCESSES=1 starts a
// process for every run, to show that both ways answer alike.
//
// The child is the test runner's build of the current sources, laid out as the package is
// (test/support/compiled-cli.mjs, passed in PIPELINECTL_TEST_BIN), or the checkout's bin when a test file runs on
// its own; the demo's tests start the checkout's bin, as `npm start` does.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { Readable } from 'node:stream';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { REPO_ROOT } from './repo-root.js';

export { REPO_ROOT };

/** The checkout's own bin, which loads the TypeScript sources (what `npm start` runs). */
export const CHECKOUT_BIN = 'bin/pipelinectl.js';

/** The bin that tests start: the runner's build, or the checkout's. */
export const PIPELINECTL_BIN = process.env.PIPELINECTL_TEST_BIN ?? CHECKOUT_BIN;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Variables of the run's own, on top of the cleared environment. */
  env?: Record<string, string>;
  /** Standard input. Default: empty. */
  input?: string;
  /** The directory it runs in (a process of its own). Default: the repository root. */
  cwd?: string;
}

/** Commands that run until a signal stops them, and handle it themselves. */
const LONG_RUNNING = new Set(['serve', 'demo', 'dashboard']);

/** Variables that would point a run elsewhere than the test means: another store, stack or account. */
const pointsElsewhere = (name: string) => name.startsWith('PIPELINES_') || name.startsWith('AWS_');

/**
 * A child's environment: this process's, without what would point it elsewhere, node:test's own variable and the
 * debug switch (whose stack traces a test does not expect), with colours off and `extra` on top.
 */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !pointsElsewhere(name)));
  delete env.NODE_TEST_CONTEXT;
  delete env.PIPELINECTL_DEBUG;
  return { ...env, NO_COLOR: '1', ...extra };
}

/**
 * Whether a run in this process sees what a child sees: the same directory, no variable of its own, and no
 * PIPELINES_* or debug variable that a child would not get. AWS_* variables matter only to a run with `--aws` (the
 * local store's client names its endpoint, region and credentials), which starts a process.
 */
function embeddable(args: readonly string[], options: CliOptions): boolean {
  return (
    process.env.PIPELINECTL_TEST_PROCESSES !== '1' &&
    !LONG_RUNNING.has(args[0] ?? '') &&
    !args.includes('--aws') &&
    options.env === undefined &&
    options.cwd === undefined &&
    process.cwd() === REPO_ROOT.replace(/\/$/, '') &&
    process.env.PIPELINECTL_DEBUG === undefined &&
    !Object.keys(process.env).some((name) => name.startsWith('PIPELINES_'))
  );
}

/** Runs `pipelinectl …args` to its end; a non-zero exit is a result, not an error. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return embeddable(args, options) ? runEmbedded(args, options.input) : runProcess(args, options);
}

async function runEmbedded(args: readonly string[], input = ''): Promise<CliRun> {
  const { main } = await import('../../lib/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await main([process.execPath, PIPELINECTL_BIN, ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([Buffer.from(input)]),
  });
  return { code, stdout, stderr };
}

function runProcess(args: readonly string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [resolvePath(REPO_ROOT, PIPELINECTL_BIN), ...args],
      { cwd: options.cwd ?? REPO_ROOT, env: childEnvironment(options.env), timeout: PATIENCE_MS },
      (error, stdout, stderr) => {
        // An exit code other than 0 is a result; not starting, or a timeout, is a failure of the test. The timeout
        // is generous: a CLI process on a busy 2-CPU machine can take tens of seconds to load.
        if (error === null) return resolve({ code: 0, stdout, stderr });
        if (typeof error.code === 'number') return resolve({ code: error.code, stdout, stderr });
        reject(new Error(`pipelinectl ${args.join(' ')} did not run to its end: ${error.message}`, { cause: error }));
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** Starts `pipelinectl …args` as a child process, its output piped, for a command that runs until stopped. */
export function spawnPipelinectl(
  args: readonly string[],
  options: { env?: Record<string, string>; bin?: string } = {},
): ChildProcess {
  return spawn(process.execPath, [options.bin ?? PIPELINECTL_BIN, ...args], {
    cwd: REPO_ROOT,
    env: childEnvironment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
