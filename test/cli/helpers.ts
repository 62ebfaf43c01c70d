// What the CLI tests read in pipelinectl's output (runCli itself is test/support/pipelinectl.ts).
import { execFile } from 'node:child_process';

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
