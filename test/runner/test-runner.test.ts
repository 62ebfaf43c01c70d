// The test command itself (test/support/run.mjs): the lean async hook it preloads (test/support/lean-test-harness.mjs)
// must never let a failure through. A test file whose test throws from a timer, after the test's own code returned,
// fails the run with the error printed; with `--attribute-async-errors` the runner names the test as well.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../support/repo-root.js';

const RUN = join(REPO_ROOT, 'test', 'support', 'run.mjs');

const UNCAUGHT = `import { describe, it } from 'node:test';
describe('a suite', () => {
  it('throws from a timer it does not await', async () => {
    setTimeout(() => {
      throw new Error('boom from a timer');
    }, 10);
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  it('passes', () => {});
});
`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** run.mjs on one file, without the checks and without building the CLI (`--quick`). */
function runTests(file: string, ...flags: string[]): Promise<Ran> {
  const child = spawn(process.execPath, [RUN, '--quick', ...flags, file], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, NODE_OPTIONS: undefined },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the test command', () => {
  let directory = '';
  let file = '';
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'pipeline-controller-runner-'));
    file = join(directory, 'uncaught.test.ts');
    await writeFile(file, UNCAUGHT);
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('fails the run on an uncaught error from a test, prints it and says how to find the test', async () => {
    const ran = await runTests(file);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stdout, /^tests: \d+ passed, [1-9]\d* failed/m);
    assert.match(ran.stderr, /boom from a timer/);
    assert.match(ran.stderr, /--attribute-async-errors/);
  });

  it('with --attribute-async-errors, fails the test the error came from by name', async () => {
    const ran = await runTests(file, '--attribute-async-errors');
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stdout, /^tests: 1 passed, 1 failed, 0 skipped$/m);
    assert.match(ran.stderr, /✖ throws from a timer it does not await[^\n]*\n\s+Error: boom from a timer/);
  });
});
