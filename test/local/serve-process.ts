// Runs `pipelinectl serve` as a user does: `node …/bin/pipelinectl.js serve …` as a child process from the repository
// root (test/support/pipelinectl.ts), its output collected, its readiness taken from the `ready` JSON line that serve
// writes when stdout is not a terminal; and the other commands the serve tests run beside it.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { runCli, spawnPipelinectl } from '../support/pipelinectl.js';

export { REPO_ROOT } from '../support/pipelinectl.js';

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ServeProcess {
  child: ChildProcess;
  /** From the ready line. */
  receiverUrl: string;
  stdout(): string;
  stderr(): string;
  /** Every stdout line that is a JSON object (the structured log). */
  logLines(): Record<string, unknown>[];
  /** Sends `signal` (default SIGTERM) and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<Exited>;
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string; exited: Promise<Exited> } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  return { stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * Runs a pipelinectl command to its end: in this process when it may (test/support/pipelinectl.ts), else as a child
 * killed after `timeoutMs`.
 */
export async function runPipelinectl(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Exited> {
  if (args[0] !== 'serve') return { ...(await runCli(args, options)), signal: null };
  const child = spawnPipelinectl(args, options);
  const { exited } = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? PATIENCE_MS);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Where a started process is registered to be killed: a test's context, or a suite's own list in a `before` hook. */
export interface Cleanups {
  after(cleanup: () => unknown): void;
}

/** Starts `pipelinectl serve …args` and waits for its ready line; the process is killed when the test ends. */
export async function startServe(
  t: Cleanups,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ServeProcess> {
  const child = spawnPipelinectl(['serve', ...args], options);
  const { stdout, stderr, exited } = collect(child);
  let done = false;
  void exited.then(() => (done = true));
  t.after(async () => {
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const deadline = Date.now() + (options.timeoutMs ?? PATIENCE_MS);
  for (;;) {
    const ready = jsonLines(stdout()).find((line) => line.message === 'ready');
    if (ready && typeof ready.receiverUrl === 'string') {
      return {
        child,
        receiverUrl: ready.receiverUrl,
        stdout,
        stderr,
        logLines: () => jsonLines(stdout()),
        stop: async (signal = 'SIGTERM') => {
          if (!done) child.kill(signal);
          return exited;
        },
      };
    }
    if (done || Date.now() > deadline) {
      if (!done) child.kill('SIGKILL');
      const result = await exited;
      throw new Error(
        `serve did not become ready (exit ${result.code ?? result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
