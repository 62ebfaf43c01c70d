// Running pipelinectl as a user does: `node …/bin/pipelinectl.js …` (laid out as the package is:
// test/support/pipelinectl-bin.ts) in a child process from the repository root, with an environment cleared of the
// variables that would point it elsewhere (PIPELINES_*, AWS_*).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { PIPELINECTL_BIN } from '../support/pipelinectl-bin.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<CliRun> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('PIPELINES_') && !name.startsWith('AWS_')),
  );
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
