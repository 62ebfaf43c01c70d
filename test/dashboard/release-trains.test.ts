// A release train on the pipeline page and in `status -o json` (docs/release-trains.md): an environment's group
// beside its strategy, and, while the train waits for all, the members it waits for, read from the store as the
// verifier reads them.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { startDashboard, type RunningDashboard } from '../../lib/cli/dashboard/server.js';
import type { Backend } from '../../lib/cli/backend.js';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { CLUSTERS, SECRETS } from '../cli/fixtures.js';
import { runCli } from '../support/pipelinectl.js';
import { writeFiles } from '../support/temp-files.js';
import { ownerCookieOf } from './owner-cookie.js';
import { send } from './world.js';
import { silentLogger } from '../../lib/logging/logger.js';

const member = (name: string) => `
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: ${name}, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name} }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: prod } }]
  promotion:
    strategy:
      pull-request:
        { type: github, url: 'https://github.com/acme/fleet', baseBranch: main, secretRef: { name: github }, group: shop, waitForAll: true }
`;

describe('the dashboard shows a release train', () => {
  let root = '';
  let dashboard: RunningDashboard;
  let backend: Backend;
  let cookie = '';
  let closed = false;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-trains-'));
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipelines.yaml': [member('cart'), member('web')].join('---\n'),
    });
    const applied = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', join(root, 'data')]);
    assert.equal(applied.code, 0, applied.stderr);
    backend = await openLocalBackend(join(root, 'data'), silentLogger);
    const ready = (revision: string) => ({
      revision,
      phase: 'Ready' as const,
      reason: 'Deployed' as const,
      message: 'ok',
    });
    const app = (cluster: string, name: string) => ({
      cluster: { namespace: 'flux-system', name: cluster },
      kind: 'HelmRelease' as const,
      namespace: 'apps',
      name,
    });
    // cart 1.1.0 is due in prod; web runs its candidate there already, so it is not due: the train waits for it.
    await backend.store.recordTargetStatus(app('dev', 'cart'), ready('1.1.0'), new Date());
    await backend.store.recordTargetStatus(app('prod', 'cart'), ready('1.0.0'), new Date());
    await backend.store.recordTargetStatus(app('dev', 'web'), ready('2.0.0'), new Date());
    await backend.store.recordTargetStatus(app('prod', 'web'), ready('2.0.0'), new Date());
    dashboard = await startDashboard({ backend, logger: silentLogger });
    cookie = await ownerCookieOf(dashboard.ownerUrl);
  });
  after(async () => {
    if (!closed) {
      await dashboard?.close();
      await backend?.close();
    }
    await rm(root, { recursive: true, force: true });
  });

  it("names the environment's group, and the members the train waits for", async () => {
    const page = await send(`${dashboard.url}pipelines/flux-system/cart`, { headers: { cookie } });
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /pull-request, group shop \(waits for all\)/);
    assert.match(page.body, /title="[^"]*">waits for its group<\/span>/);
    assert.match(page.body, /waits for flux-system\/web \(passed\)/);
  });

  it('status -o json says the same: waiting-group, and the members in waitsForMembers', async () => {
    await dashboard.close();
    await backend.close();
    closed = true;
    const run = await runCli(['status', 'flux-system/cart', '-o', 'json', '--data-dir', join(root, 'data')]);
    assert.equal(run.code, 0, run.stderr);
    const prod = (JSON.parse(run.stdout) as StatusJson).pipelines[0]?.environments[1];
    assert.equal(prod?.state, 'waiting-group');
    assert.equal(prod?.reason, 'AwaitingGroup');
    assert.deepEqual(prod?.waitsForMembers, ['flux-system/web']);
  });
});
