// Runs `pipelinectl serve` (and other pipelinectl commands) as a user does: `node …/bin/pipelinectl.js …` as a child
// process from the repository root, its output collected, its readiness taken from the `ready` JSON line that serve
// writes when stdout is not a terminal.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { PIPELINECTL_BIN } from '../support/pipelinectl-bin.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

/** The child's environment: ours, minus what node:test sets for its own children. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  delete env.PIPELINECTL_DEBUG;
  return env;
}

function spawnCli(args: readonly string[], env?: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [PIPELINECTL_BIN, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** Runs a pipelinectl command to its end. */
export async function runPipelinectl(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Exited> {
  const child = spawnCli(args, options.env);
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
  const child = spawnCli(['serve', ...args], options.env);
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
