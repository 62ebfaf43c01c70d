// The local mode starting on a fleet that runs: the `resume` check of every pipeline and the first poll's decision
// read the same statuses at once, and the history has each environment's `environment-passed` once.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { startLocalMode } from '../../lib/local/mode.js';
import { podinfoServeFiles } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { deployed } from '../loop/harness.js';
import { tempFiles } from '../support/temp-files.js';
import { silentLogger } from '../../lib/logging/logger.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };

it('the local mode starting on a running fleet records each environment passed once', async (t) => {
  const kube = await new FakeKubeApi().start();
  t.after(() => kube.stop());
  kube.put(deployed('6.9.1', 'dev'));
  kube.put(deployed('6.9.1', 'prod'));
  const github = await new FakeGitHub().start();
  t.after(() => github.stop());
  const root = await tempFiles(t, podinfoServeFiles(kube.kubeconfig(), github.token));
  const dataDir = join(root, 'data');

  const mode = await startLocalMode({
    configDir: join(root, 'config'),
    dataDir,
    port: 0,
    pollIntervalMs: 3_600_000,
    logger: silentLogger,
  });
  t.after(() => mode.stop());
  await mode.poll();
  await waitFor('dev and prod recorded as passed', async () => {
    const { items } = await mode.store.listAudit(PIPELINE);
    const envs = new Set(items.filter((entry) => entry.type === 'environment-passed').map((entry) => entry.env));
    return envs.has('dev') && envs.has('prod');
  });
  await mode.stop(); // lets the messages in hand finish

  const backend = await openLocalBackend(dataDir, silentLogger);
  try {
    const { items } = await backend.store.listAudit(PIPELINE);
    assert.deepEqual(
      items
        .filter((entry) => entry.type === 'environment-passed')
        .map((entry) => `${entry.env} ${entry.revision} ${entry.actor}`)
        .sort(),
      ['dev 6.9.1 pipeline-controller', 'prod 6.9.1 pipeline-controller'],
    );
  } finally {
    await backend.close();
  }
});
