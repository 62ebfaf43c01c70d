// `pipelinectl dashboard` as its owner starts it: the one line it prints is the URL with this start's token, and that
// URL is the only way in. Its default port is not the receiver's, and a port in use is named with the flag to change.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLUSTERS, pipeline, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { pipelinectl } from '../demo/pipelinectl-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { tempFiles } from '../support/temp-files.js';
import { ownerCookieOf } from './owner-cookie.js';

describe('pipelinectl dashboard', () => {
  it('prints the URL with its token; only that URL lets a browser in', async (t) => {
    const root = await tempFiles(t, { 'config/all.yaml': [CLUSTERS, SECRETS, pipeline('apps')].join('\n---\n') });
    const dataDir = join(root, 'data');
    const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
    assert.equal(applied.code, 0, applied.stderr);

    const dashboard = pipelinectl(t, ['dashboard', '--port', '0', '--data-dir', dataDir]);
    const printed = await waitFor('the URL', () => /^dashboard: (\S+)\n/.exec(dashboard.stdout())?.[1]);
    assert.match(printed, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const base = printed.replace(/\?.*/, '');
    assert.equal((await fetch(base)).status, 401);
    const cookie = await ownerCookieOf(printed);
    const fleet = await fetch(base, { headers: { cookie } });
    assert.equal(fleet.status, 200);
    assert.match(await fleet.text(), /flux-system\/podinfo/);

    dashboard.child.kill('SIGINT');
    assert.equal(await dashboard.exited, 0, dashboard.stderr());
    const token = new URL(printed).searchParams.get('token') ?? '';
    assert.equal(dashboard.stdout().split(token).length, 2, 'the token is printed once, in the URL');
    assert.ok(!dashboard.stderr().includes(token), 'and nowhere else');
  });

  it("listens by default on a port other than serve's and the demo's receiver, as --help says", async () => {
    const defaultPort = async (command: string): Promise<string> => {
      const help = await runCli([command, '--help']);
      assert.equal(help.code, 0, help.stderr);
      return /--port <port>[\s\S]*?\(default: "(\d+)"\)/.exec(help.stdout)?.[1] ?? assert.fail(help.stdout);
    };
    const dashboard = await defaultPort('dashboard');
    assert.equal(dashboard, '8090');
    assert.notEqual(dashboard, await defaultPort('serve'));
    assert.notEqual(dashboard, await defaultPort('demo'));
  });

  it('names a port in use and the flag that changes it, and prints no URL', async (t) => {
    const root = await tempFiles(t, { 'config/all.yaml': [CLUSTERS, SECRETS, pipeline('apps')].join('\n---\n') });
    const dataDir = join(root, 'data');
    const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
    assert.equal(applied.code, 0, applied.stderr);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;

    const dashboard = pipelinectl(t, ['dashboard', '--port', String(port), '--data-dir', dataDir]);
    assert.equal(await dashboard.exited, 1);
    assert.equal(
      dashboard.stderr(),
      `error: port ${port} on 127.0.0.1 is in use: pick another with --port (0 picks a free one)\n`,
    );
    assert.equal(dashboard.stdout(), '');
  });
});
