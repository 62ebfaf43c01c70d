// The dashboard `pipelinectl demo` serves, as a newcomer meets it: the URL is the line under the banner, printed once
// the demo runs, and the page at it lists the demo's pipeline, read through the running demo. `--no-dashboard` and a
// port clash as asked; a receiver port in use ends the demo with the flag to change, and no URL that leads nowhere.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ownerCookieOf } from '../dashboard/owner-cookie.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { pipelinectl, tempDir } from './pipelinectl-process.js';

/** The demo's first two lines: the banner every run starts with, then the dashboard's URL (its owner's, with the token). */
const OPENING =
  /^SIMULATION — no real cluster or GitHub is touched\ndashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}) {2}\(open it in a browser to watch the promotions\)\n/;

describe('pipelinectl demo serves the dashboard', () => {
  it('prints its URL under the banner, and GET / on it lists the demo pipeline', async (t) => {
    const dataDir = await tempDir(t);
    const demo = pipelinectl(t, ['demo', '--port', '0', '--data-dir', dataDir]);
    const failed = (error: unknown) =>
      assert.fail(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    // Matched from the start of the output: only the banner comes before the URL.
    const url = (await waitFor('the opening lines', () => OPENING.exec(demo.stdout())).catch(failed))[1] ?? '';

    assert.equal((await fetch(url.replace(/\?.*/, ''))).status, 401, 'not without the token');
    const cookie = await ownerCookieOf(url);
    // The pipeline is listed once the demo's ConfigSource has applied it from the simulated repository.
    const page = await waitFor('the pipeline on the dashboard', async () => {
      const fleet = await fetch(url.replace(/\?.*/, ''), { headers: { cookie } });
      assert.equal(fleet.status, 200);
      const text = await fleet.text();
      return /<a href="\/pipelines\/flux-system\/podinfo">flux-system\/podinfo<\/a>/.test(text) ? text : undefined;
    }).catch(failed);
    assert.match(
      page,
      new RegExp(`local data directory ${dataDir} \\(serve running at http://127\\.0\\.0\\.1:\\d+\\)`),
    );
    // The introduction names it too: on a terminal, the screen redraws over the first line.
    await waitFor('the introduction', () => demo.stdout().includes(`dashboard ${url}  (open it in a browser`));

    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0, demo.stderr());
    assert.equal(demo.stderr(), '');
    assert.ok(!(await readdir(dataDir)).includes('serve.json'));
    assert.ok(!(await readdir(dataDir)).includes('dashboard.json'));
    await assert.rejects(fetch(url), 'the dashboard stopped with the demo');
  });

  it('--no-dashboard serves none; a --dashboard-port equal to --port is refused before anything starts', async (t) => {
    const dataDir = await tempDir(t);
    const without = pipelinectl(t, ['demo', '--no-dashboard', '--port', '0', '--data-dir', dataDir]);
    await waitFor('the introduction', () => without.stdout().includes('Ctrl-C stops everything'));
    assert.ok(without.stdout().startsWith('SIMULATION — no real cluster or GitHub is touched\n'), without.stdout());
    without.child.kill('SIGINT');
    assert.equal(await without.exited, 0, without.stderr());
    assert.doesNotMatch(without.stdout(), /dashboard/);

    const clash = pipelinectl(t, ['demo', '--port', '8089', '--dashboard-port', '8089', '--data-dir', dataDir]);
    assert.equal(await clash.exited, 1);
    assert.match(
      clash.stderr(),
      /--dashboard-port 8089 is the receiver's --port: the dashboard needs a port of its own/,
    );
    assert.equal(clash.stdout(), '');
  });

  it('a receiver port in use ends the demo with the port and the flag, before any URL is printed', async (t) => {
    const dataDir = await tempDir(t);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;

    const demo = pipelinectl(t, ['demo', '--port', String(port), '--data-dir', dataDir]);
    assert.equal(await demo.exited, 1, demo.stdout());
    assert.equal(demo.stderr(), `error: port ${port} is in use: pick another with --port (0 picks a free one)\n`);
    assert.doesNotMatch(demo.stdout(), /dashboard|http:/, 'nothing is announced as ready');
  });
});
