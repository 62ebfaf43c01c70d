// `pipelinectl` as a user runs it, for the demo's tests: a child process from the repository root, its output not a
// terminal, killed at the end of the test if it is still running. The tests of what `npm start` prints run the
// checkout's bin, as `npm start` does; the others the test runner's build of the same sources, at half the CPU.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { CHECKOUT_BIN, spawnPipelinectl } from '../support/pipelinectl.js';

export { REPO_ROOT } from '../support/pipelinectl.js';

export interface PipelinectlProcess {
  child: ChildProcess;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * Starts `pipelinectl …args`: the test runner's build (test/support/pipelinectl.ts), or with `checkout`, the checkout's
 * own bin, which loads the TypeScript sources as `npm start` does.
 */
export function pipelinectl(
  t: TestContext,
  args: readonly string[],
  options: { checkout?: boolean } = {},
): PipelinectlProcess {
  const child = spawnPipelinectl(args, options.checkout ? { bin: CHECKOUT_BIN } : {});
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  let done = false;
  void exited.then(() => (done = true));
  t.after(async () => {
    if (done) return;
    child.kill('SIGKILL');
    await exited;
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** A temporary directory, removed after the test. */
export async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pipelinectl-demo-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
