// `spec.source` (docs/configuration.md, "The first environment is promoted too"): what `apply` accepts, and what it refuses or
// warns about, naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, formatWarning, loadConfigurationText } from '../../lib/config/index.js';

const CLUSTER = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: dev, namespace: flux-system}
spec: {eks: {clusterName: dev, region: eu-west-1}}
`;

const pipelineWith = (source: string, firstPromotion = '') => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  source: ${source}
  environments:
    - name: dev
      targets: [{namespace: podinfo, clusterRef: {kind: GitopsCluster, name: dev}}]
${firstPromotion}    - name: prod
      targets: [{namespace: podinfo-prod, clusterRef: {kind: GitopsCluster, name: dev}}]
      promotion: {strategy: {notification: {}}}
`;

const FIRST_PROMOTED = '      promotion: {strategy: {notification: {}}}\n';
const load = (pipeline: string) => loadConfigurationText(`${CLUSTER}---\n${pipeline}`, 'pipeline.yaml');

describe('spec.source', () => {
  it('resolves to the object on its cluster, the clusterRef namespace defaulting to the Pipeline’s', () => {
    const result = load(
      pipelineWith(
        '{kind: ImagePolicy, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}',
        FIRST_PROMOTED,
      ),
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.configuration.pipelines[0]?.source, {
      cluster: { namespace: 'flux-system', name: 'dev' },
      kind: 'ImagePolicy',
      namespace: 'apps',
      name: 'podinfo',
    });
    assert.deepEqual(result.warnings, []);
  });

  const problems: [string, string, RegExp][] = [
    [
      'a kind that names no version',
      '{kind: GitRepository, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}',
      /spec\.source\.kind: must be ImagePolicy or OCIRepository/,
    ],
    [
      'an unregistered cluster',
      '{kind: OCIRepository, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: build}}',
      /spec\.source\.clusterRef\.name: GitopsCluster flux-system\/build not found/,
    ],
    [
      'an apiVersion of another group',
      '{apiVersion: source.toolkit.fluxcd.io/v1, kind: ImagePolicy, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}',
      /spec\.source\.apiVersion: must be image\.toolkit\.fluxcd\.io\/<version> for an ImagePolicy/,
    ],
    [
      'no namespace',
      '{kind: ImagePolicy, name: podinfo, clusterRef: {kind: GitopsCluster, name: dev}}',
      /spec\.source\.namespace/,
    ],
    [
      'no clusterRef and no default cluster',
      '{kind: ImagePolicy, name: podinfo, namespace: apps}',
      /spec\.source: the source has no clusterRef and no default cluster is set/,
    ],
  ];
  for (const [name, source, expected] of problems) {
    it(`refuses ${name}, naming the field`, () => {
      const result = load(pipelineWith(source, FIRST_PROMOTED));
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.problems.map(formatProblem).join('\n'), expected);
    });
  }

  it('warns when the first environment has no promotion to carry the source’s versions', () => {
    const result = load(
      pipelineWith('{kind: ImagePolicy, name: podinfo, namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}'),
    );
    assert.ok(result.ok);
    assert.deepEqual(
      result.warnings.map((warning) => formatWarning(warning)).filter((line) => line.includes('spec.source')),
      [
        'pipeline.yaml:11:3: Pipeline flux-system/podinfo: spec.source: environment dev has no promotion (its own or ' +
          "the pipeline's strategy): the source's versions are shown but never promoted into it",
      ],
    );
  });
});
