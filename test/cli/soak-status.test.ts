// How a soak shows (docs/soak.md): `status`, `explain` and `status -o json` say how long the environment still soaks
// and what waits for it, from the times the verifier recorded.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { writeFiles } from '../support/temp-files.js';
import { app, CLUSTERS, healthy, pipeline, SECRETS } from './fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { silentLogger } from '../../lib/logging/logger.js';

describe('a soaking environment in status and explain', () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-soak-'));
    dataDir = join(root, 'data');
    const soaking = pipeline('apps').replace(
      'targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]',
      'targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]\n      soak: 30m',
    );
    assert.match(soaking, /soak: 30m/);
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/p.yaml': soaking,
    });
    const applied = await cli('apply', '-f', join(root, 'config'));
    assert.equal(applied.code, 0, applied.stderr);
    // dev became healthy on 6.9.2 ten minutes ago; staging and prod run 6.9.1. The soak's end is kept to the second and
    // the time left is rounded up to whole minutes, so it reads 19 to 21 minutes depending on when status runs.
    const backend = await openLocalBackend(dataDir, silentLogger);
    try {
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
      await backend.store.recordTargetStatus(app('dev', 'apps'), healthy('6.9.2'), tenMinutesAgo);
      await backend.store.recordTargetStatus(app('prod', 'apps-staging'), healthy('6.9.1'), tenMinutesAgo);
      await backend.store.recordTargetStatus(app('prod', 'apps'), healthy('6.9.1'), tenMinutesAgo);
    } finally {
      await backend.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('status: dev soaks with about 20 minutes left; staging waits for it', async () => {
    const table = await cli('status');
    assert.equal(table.code, 0, table.stderr);
    // The end carries its date when it falls on another day than now (a run just before midnight UTC).
    assert.match(table.stdout, /soaking \((19|20|21)m left \(until (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC\)\)/);

    const json = await cli('status', '-o', 'json');
    const [podinfo] = (JSON.parse(json.stdout) as StatusJson).pipelines;
    const [dev, staging] = podinfo?.environments ?? [];
    assert.equal(dev?.state, 'soaking');
    assert.equal(staging?.reason, 'AwaitingSoak');
    const endsIn = Date.parse(dev?.soakEndsAt ?? '') - Date.now();
    assert.ok(endsIn > 19 * 60_000 && endsIn <= 20 * 60_000 + 1_000, `soakEndsAt ${dev?.soakEndsAt}`);
    assert.equal(staging?.soakEndsAt, dev?.soakEndsAt);
  });

  it('explain: the soak and what waits for it', async () => {
    const explain = await cli('explain', 'flux-system/podinfo');
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /^ {2}soaking: (19|20|21)m left/m);
    assert.match(explain.stdout, /^ {2}waiting for a soak: (19|20|21)m left/m);
  });
});
