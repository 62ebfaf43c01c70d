// Gitless promotion end to end (docs/external-service.md), as a user runs it: one `pipelinectl serve` over a pipeline
// dev → staging → prod (manual), staging and prod promoted by the external-service strategy. Each of those leaf
// clusters runs Flux Operator, played by a FakeInputProvider: it fetches its environment's input from the receiver
// with the token `pipelinectl flux-config --external-service` printed, and applies the version it finds as its
// ResourceSet would (the HelmRelease, then Flux's event). No Git request is made.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { FakeInputProvider, type ExportedInput } from '../../lib/testing/fake-input-provider.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, environmentOf, startWorld, type World } from './world.js';

const OLD = '6.4.0';
const NEW = '6.5.0';
const APPS = 'apps';
const CLUSTERS = ['dev', 'staging', 'prod'] as const;

const PIPELINE = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: staging
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: staging}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
      promotion: {manual: true, strategy: {external-service: {}}}
  promotion:
    strategy: {external-service: {}}
`;

/** Flux rolls `version` out on `cluster` and tells: the HelmRelease and its signed event. */
async function rollOut(world: World, cluster: string, version: string): Promise<void> {
  const stored = world.cluster(cluster).put(helmReleaseRunning(APPS, version));
  assert.equal(await world.sendEvent(cluster, helmReleaseEvent(stored, version), 'helm-controller'), 202);
}

/** The leaf cluster of `env`, set up from what `flux-config --external-service` prints for it. */
async function leafOf(world: World, env: string): Promise<FakeInputProvider> {
  const printed = await world.pipelinectl(
    'flux-config',
    '--external-service',
    'flux-system/podinfo',
    env,
    '--url',
    world.serve().receiverUrl,
  );
  assert.equal(printed.code, 0, printed.stderr);
  const [secret, provider] = parseAllDocuments(printed.stdout).map(
    (document) => document.toJS() as { stringData?: { token: string }; spec?: { url: string } },
  );
  const token = secret?.stringData?.token;
  const url = provider?.spec?.url;
  assert.ok(token !== undefined && url !== undefined, printed.stdout);
  return new FakeInputProvider({
    url,
    token,
    apply: async (inputs: readonly ExportedInput[]) => {
      const version = inputs[0]?.version;
      if (typeof version === 'string') await rollOut(world, env, version);
    },
  });
}

describe('gitless promotion through external-service, through pipelinectl serve', () => {
  it('serves each environment its revision, prod only after its approval, and verifies what the leaves pulled', async (t) => {
    const world = await startWorld(t, {
      clusters: CLUSTERS,
      repository: { 'README.md': '# fleet\n' },
      pipelines: PIPELINE,
      pollInterval: '1s',
    });
    for (const cluster of CLUSTERS) world.cluster(cluster).put(helmReleaseRunning(APPS, OLD));
    await world.startServe();
    await waitFor('every target read', async () => allTargetsRun(await world.statusNow(), () => OLD));
    const staging = await leafOf(world, 'staging');
    const prod = await leafOf(world, 'prod');

    // 1. Before any promotion each leaf is served what it runs: a new provider moves nothing.
    await waitFor('staging and prod serve what they run', async () => {
      const served = [await staging.reconcile(), await prod.reconcile()];
      return served.every((inputs) => inputs[0]?.version === OLD);
    });
    assert.deepEqual(prod.exportedInputs, [
      {
        id: 'flux-system-podinfo-prod',
        pipeline: 'podinfo',
        environment: 'prod',
        version: OLD,
        previousVersion: '',
        promotedAt: '',
        approvedBy: '',
      },
    ]);

    // 2. dev runs the new version: staging is promoted, and served it; the leaf has not pulled yet.
    await rollOut(world, 'dev', NEW);
    await waitFor('staging promoted', async () => {
      const env = environmentOf(await world.statusNow(), 'podinfo', 'staging');
      return env.reason === 'InputServed';
    });
    const explained = await world.pipelinectl('explain', 'flux-system/podinfo', 'staging');
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /waiting for the leaf clusters to pull 6\.5\.0 \(served since \S+Z\)/);

    // 3. staging's leaf pulls it and Flux rolls it out: staging passes, and prod asks for an approval.
    assert.equal((await staging.reconcile())[0]?.version, NEW);
    await waitFor('prod waits for approval', async () => {
      const env = environmentOf(await world.statusNow(), 'podinfo', 'prod');
      return env.state === 'waiting-approval' && env.approval?.revision === NEW;
    });
    assert.equal((await prod.reconcile())[0]?.version, OLD, 'not served to prod before its approval');

    // 4. Approved: prod is served the new version, naming who approved it; its leaf pulls it and prod passes.
    const approved = await world.pipelinectl('approve', 'flux-system/podinfo', 'prod');
    assert.equal(approved.code, 0, approved.stderr);
    await waitFor('prod served the new version', async () => (await prod.reconcile())[0]?.version === NEW);
    const [input] = prod.exportedInputs;
    assert.equal(input?.previousVersion, OLD);
    assert.ok(typeof input?.approvedBy === 'string' && input.approvedBy !== '', JSON.stringify(input));
    assert.ok(!Number.isNaN(Date.parse(String(input?.promotedAt))));
    await waitFor(
      'prod passed',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').state === 'passed',
    );

    const status = await world.statusCli();
    for (const env of ['staging', 'prod']) {
      const { promotions, strategy } = environmentOf(status, 'podinfo', env);
      assert.equal(strategy, 'external-service');
      assert.deepEqual(
        promotions.map(({ revision, state, result }) => [revision, state, result]),
        [[NEW, 'succeeded', `served at /v1/inputs/flux-system/podinfo/${env}`]],
      );
    }
    assert.equal(world.github.count(), 0, 'the strategy makes no Git request');
  });
});
