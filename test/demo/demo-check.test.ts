// `pipelinectl check` on the demo's data directory, as a user runs it from a second terminal: it passes while the
// demo runs (the data directory holds the simulated world's Secrets), and says plainly why it fails once it stopped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '../../lib/testing/wait-for.js';
import { pipelinectl, tempDir } from './pipelinectl-process.js';

describe('pipelinectl check on the demo', () => {
  it('passes while the demo runs, and names the stopped demo once it stopped', async (t) => {
    const dataDir = await tempDir(t);
    const demo = pipelinectl(t, ['demo', '--port', '0', '--data-dir', dataDir, '--no-dashboard'], { checkout: true });
    await waitFor('the approval request', () =>
      /flux-system\/podinfo staging waits for approval/.test(demo.stdout()),
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    });

    // The demo runs from the checkout's bin, as `npm start` runs it; the checks from the runner's build of the same
    // sources, as a second terminal's pipelinectl.
    const running = pipelinectl(t, ['check', '--data-dir', dataDir]);
    assert.equal(await running.exited, 0, `${running.stdout()}\n${running.stderr()}`);
    assert.match(running.stdout(), /\d+ checks: \d+ ok, 0 failed/);
    assert.doesNotMatch(running.stdout(), /not running/);

    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0, demo.stderr());

    const stopped = pipelinectl(t, ['check', '--data-dir', dataDir]);
    assert.equal(await stopped.exited, 2, `${stopped.stdout()}\n${stopped.stderr()}`);
    const failed = stopped
      .stdout()
      .split('\n')
      .filter((line) => / failed /.test(line));
    assert.ok(failed.length > 0, stopped.stdout());
    for (const line of failed) {
      assert.match(line, /the demo's simulated clusters are not running \(start pipelinectl demo\)$/);
    }
    assert.doesNotMatch(stopped.stdout(), /ECONNREFUSED|connect/);
  });
});
