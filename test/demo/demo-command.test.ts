// `pipelinectl demo` as a user runs it: a child process from the repository root, its output not a terminal.
import assert from 'node:assert/strict';
import { copyFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from '../../lib/testing/wait-for.js';
import { pipelinectl, REPO_ROOT, tempDir } from './pipelinectl-process.js';

interface ConfigSourceList {
  items: {
    metadata: { namespace: string; name: string };
    status: { lastAppliedRevision?: string; conditions: { type: string; status: string; reason: string }[] };
  }[];
}

describe('pipelinectl demo', () => {
  it('asks for the staging approval, opens the pull request once approved, and stops cleanly on SIGINT', async (t) => {
    const dataDir = await tempDir(t);
    // As `npm start` runs it.
    const demo = pipelinectl(t, ['demo', '--release-every', '3s', '--port', '0', '--data-dir', dataDir], {
      checkout: true,
    });
    const request = await waitFor('the approval request', () =>
      /flux-system\/podinfo staging waits for approval of (6\.9\.\d+); to approve it, run: (.*)$/m.exec(demo.stdout()),
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    });
    const [, revision, command] = request;
    // The banner comes first, then the dashboard's URL once the demo runs (demo-dashboard.test.ts).
    assert.match(demo.stdout(), /^SIMULATION — no real cluster or GitHub is touched\ndashboard: /);
    // The Pipeline came from Git: the ConfigSource applied the simulated repository's folder.
    assert.match(
      demo.stdout(),
      /\npipelines from Git: ConfigSource flux-system\/fleet applies pipelines\/ of acme\/fleet \(main\) at each new commit\n/,
    );
    const applied =
      /ConfigSource flux-system\/fleet applied main@sha1:([0-9a-f]{7}) from Git: created Pipeline flux-system\/podinfo\n/.exec(
        demo.stdout(),
      );
    assert.ok(applied, demo.stdout());
    const sources = pipelinectl(t, ['get', 'configsources', '-o', 'json', '--data-dir', dataDir], { checkout: true });
    assert.equal(await sources.exited, 0, sources.stderr());
    const [source, ...others] = (JSON.parse(sources.stdout()) as ConfigSourceList).items;
    assert.deepEqual(others, []);
    assert.deepEqual(source?.metadata, { namespace: 'flux-system', name: 'fleet' });
    assert.deepEqual(
      source?.status.conditions.map((c) => [c.type, c.status, c.reason]),
      [['Ready', 'True', 'Succeeded']],
    );
    assert.match(source?.status.lastAppliedRevision ?? '', new RegExp(`^main@sha1:${applied[1]}[0-9a-f]{33}$`));
    assert.equal(
      command,
      `node bin/pipelinectl.js approve flux-system/podinfo staging --revision ${revision} --data-dir ${dataDir}`,
    );

    // From a second terminal, through the data directory.
    const approve = pipelinectl(t, command?.split(' ').slice(2) ?? [], { checkout: true });
    assert.equal(await approve.exited, 0, approve.stderr());
    await waitFor('the staging pull request', () =>
      demo.stdout().includes(`open: Promote flux-system/podinfo in staging to ${revision}`),
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    });
    // Its link, as staging's state names it, opens the simulated GitHub's page of it: github.com has no such pull.
    const link = await waitFor(
      'the pull request link',
      () => /\bstaging: [^\n]*?(http:\/\/127\.0\.0\.1:\d+\/acme\/fleet\/pull\/1)\b/.exec(demo.stdout())?.[1],
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    });
    const page = await fetch(link);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Simulated GitHub<\/strong>: this pull request exists only in this simulation/);
    assert.doesNotMatch(demo.stdout(), /https:\/\/github\.com\//);

    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0, demo.stderr());
    assert.match(demo.stdout(), /stopping the demo…\n$/);
    assert.equal(demo.stderr(), '');
    assert.ok(!(await readdir(dataDir)).includes('serve.json'), 'serve.json is removed');
  });

  it("runs a configuration of one's own with no ConfigSource, its Pipeline beside its clusters", async (t) => {
    const dataDir = await tempDir(t);
    const config = await tempDir(t);
    for (const file of ['clusters.yaml', 'secrets.yaml']) {
      await copyFile(join(REPO_ROOT, 'examples/demo', file), join(config, file));
    }
    await copyFile(join(REPO_ROOT, 'examples/demo-fleet/pipelines/podinfo.yaml'), join(config, 'pipeline.yaml'));
    const demo = pipelinectl(t, [
      'demo',
      '--config',
      config,
      '--release-every',
      '3s',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--no-dashboard',
    ]);
    await waitFor('the approval request', () =>
      /flux-system\/podinfo staging waits for approval of 6\.9\.\d+/.test(demo.stdout()),
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`);
    });
    assert.doesNotMatch(demo.stdout(), /ConfigSource/);
    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0, demo.stderr());
  });

  it('does not wipe a directory it did not make', async (t) => {
    const dataDir = await tempDir(t);
    await writeFile(join(dataDir, 'notes.txt'), 'mine\n');
    const demo = pipelinectl(t, ['demo', '--port', '0', '--data-dir', dataDir]);
    assert.equal(await demo.exited, 1);
    assert.match(demo.stderr(), /is not empty and was not made by pipelinectl demo, so it is not wiped/);
    assert.deepEqual(await readdir(dataDir), ['notes.txt']);
  });
});
