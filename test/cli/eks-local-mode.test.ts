// The local mode reads no EKS cluster (it assumes no AWS identity to sign a token with: docs/local-mode.md), so a
// GitopsCluster given by `spec.eks` would be accepted and then never read. `apply` to a data directory and `serve`
// at start say so, naming the cluster and what would work; a deployed stack, which reads EKS clusters, says nothing.
// The configuration is applied all the same.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { applyLocalConfiguration } from '../../lib/local/configuration.js';
import { runCli } from '../support/pipelinectl.js';
import { tempFiles } from '../support/temp-files.js';
import { applyWorld, type ApplyWorld } from './apply-world.js';
import { lines } from './helpers.js';

const EKS_CLUSTER = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: prod, namespace: flux-system }
spec:
  eks: { clusterName: prod-eu-1, region: eu-west-1 }
`;

const CLUSTERS = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: dev, namespace: flux-system }
spec: { secretRef: { name: dev-kubeconfig } }
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: prod, namespace: flux-system }
spec:
  eks: { clusterName: prod-eu-1, region: eu-west-1 }
---
apiVersion: v1
kind: Secret
metadata: { name: dev-kubeconfig, namespace: flux-system }
stringData: { kubeconfig: "apiVersion: v1\\nkind: Config\\n" }
`;

const PIPELINE = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: podinfo, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo }
  environments:
    - name: dev
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: prod
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: prod } }]
`;

const warningFor = (file: string, description: string) =>
  `${file}:10:3: GitopsCluster flux-system/prod: spec.eks: ${description} cannot read EKS cluster prod-eu-1 ` +
  `(eu-west-1): the local mode has no AWS identity to sign its token with, so the targets on GitopsCluster ` +
  `flux-system/prod are never read; give the cluster a kubeconfig Secret instead (spec.secretRef: a Secret with a ` +
  `"kubeconfig" key), or deploy to AWS`;

describe('an EKS GitopsCluster in the local mode', () => {
  it('apply to a data directory warns, naming the cluster and what the local mode needs, and applies it', async (t) => {
    const root = await tempFiles(t, { 'config/clusters.yaml': CLUSTERS, 'config/pipeline.yaml': PIPELINE });
    const dataDir = join(root, 'data');
    const file = join(root, 'config', 'clusters.yaml');
    const run = await runCli(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      lines(run.stderr).filter((line) => line.startsWith('warning: ')),
      [`warning: ${warningFor(file, `local data directory ${dataDir}`)}`],
      run.stderr,
    );
    assert.match(run.stdout, /^gitopscluster flux-system\/prod created$/m);
    assert.match(run.stdout, /^pipeline flux-system\/podinfo created$/m);
  });

  describe('serve, and a deployed stack', { concurrency: false }, () => {
    let local: ApplyWorld;
    let aws: ApplyWorld;
    before(async () => {
      local = await applyWorld('data directory');
      aws = await applyWorld('AWS');
    });
    after(async () => {
      await local?.stop();
      await aws?.stop();
    });

    it('serve logs the same warning at start for its configuration directory, and applies it', async (t) => {
      const root = await tempFiles(t, { 'config/clusters.yaml': CLUSTERS, 'config/pipeline.yaml': PIPELINE });
      const warned: string[] = [];
      const applied = await applyLocalConfiguration({
        configDir: join(root, 'config'),
        dataDir: join(root, 'data'),
        store: local.backend.store,
        logger: { debug: () => {}, info: () => {}, warn: (message) => warned.push(message), error: () => {} },
        now: () => new Date(),
      });
      assert.deepEqual(warned, [warningFor(join(root, 'config', 'clusters.yaml'), 'pipelinectl serve')]);
      assert.deepEqual(
        applied.clusters.map(({ name }) => name),
        ['flux-system/dev', 'flux-system/prod'],
      );
    });

    it('apply to a deployed stack, which reads EKS clusters, does not warn', async (t) => {
      // (The stand-in has no Secrets Manager: no Secret is applied here.)
      const pipeline = PIPELINE.replace(
        'namespace: apps, clusterRef: { kind: GitopsCluster, name: dev }',
        'namespace: web, clusterRef: { kind: GitopsCluster, name: prod }',
      );
      const root = await tempFiles(t, { 'config/clusters.yaml': EKS_CLUSTER, 'config/pipeline.yaml': pipeline });
      const result = await applyConfiguration(aws.backend, { source: { paths: [join(root, 'config')] } });
      assert.ok(result.ok, result.ok ? '' : result.problems.join('\n'));
      assert.deepEqual(result.warnings, []);
    });
  });
});
