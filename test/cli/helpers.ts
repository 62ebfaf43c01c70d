// Running pipelinectl as a user does. A command that ends by itself runs in this process, through the CLI's own entry
// (`main` with a terminal of its own: lib/cli/terminal.ts), since a few hundred process starts were a third of the
// suite's CPU; `serve`, `demo` and `dashboard`, which run until stopped, and a run given variables of its own start
// `node …/bin/pipelinectl.js` in a child process (laid out as the package is: test/support/pipelinectl-bin.ts), from
// the repository root, with an environment cleared of the variables that would point it elsewhere (PIPELINES_*,
// AWS_*). PIPELINECTL_TEST_PROCESSES=1 starts a process for every run, to show that both ways answer alike.
import { execFile } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { PIPELINECTL_BIN } from '../support/pipelinectl-bin.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

type CliOptions = { env?: Record<string, string>; input?: string };

/** Commands that run until a signal stops them, and handle it themselves. */
const LONG_RUNNING = new Set(['serve', 'demo', 'dashboard']);

const POINTING_ELSEWHERE = (name: string) => name.startsWith('PIPELINES_') || name.startsWith('AWS_');

/**
 * Whether a run in this process sees what a child sees: the same directory, no variable of its own and no PIPELINES_*
 * variable that a child would not get. AWS_* variables matter only to a run with `--aws` (the local store's client
 * names its endpoint, region and credentials), which starts a process.
 */
function embeddable(args: readonly string[], options: CliOptions): boolean {
  return (
    process.env.PIPELINECTL_TEST_PROCESSES !== '1' &&
    !LONG_RUNNING.has(args[0] ?? '') &&
    !args.includes('--aws') &&
    options.env === undefined &&
    `${process.cwd()}/` === REPO_ROOT &&
    !Object.keys(process.env).some((name) => name.startsWith('PIPELINES_'))
  );
}

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
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !POINTING_ELSEWHERE(name)));
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [PIPELINECTL_BIN, ...args],
      { cwd: REPO_ROOT, env: { ...base, NO_COLOR: '1', ...options.env }, timeout: PATIENCE_MS },
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

/** The lines of an output, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
}

/**
 * The words a POSIX shell makes of a command line a person pastes, split and unquoted by `sh` itself (not by a parser
 * of this repository, which could share a mistake with the quoting it checks).
 */
export function shellWords(line: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', `printf '%s\\0' ${line}`], { timeout: 10_000 }, (error, stdout) => {
      if (error) return reject(new Error(`sh could not split ${line}: ${error.message}`, { cause: error }));
      resolve(stdout.split('\0').slice(0, -1));
    });
  });
}
