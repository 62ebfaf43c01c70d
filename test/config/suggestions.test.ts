// A name one or two keystrokes from a known one is named in the problem: an unknown field, a cluster or a Secret.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';

const pipeline = (spec: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
${spec}`;
const target = (fields: string) => `  environments:\n    - name: dev\n      targets: [{${fields}}]\n`;
const devTarget = target('namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}');
const known: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'prod-eu' },
      { namespace: 'apps', name: 'staging' },
    ],
    secrets: [{ namespace: 'fleet', name: 'gitlab-token', keys: ['token'] }],
  },
};
const capiCluster = (name: string) =>
  `apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: prod, namespace: fleet}\nspec: {capiClusterRef: {name: ${name}}}\n`;

function problems(text: string, options: LoadOptions): string[] {
  const result = loadConfigurationText(text, 'config.yaml', options);
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('unknown fields name the known field they are near', () => {
  const rows: { name: string; text: string; expected: string[] }[] = [
    {
      name: 'a field differing only in case',
      text: pipeline(target('namespace: apps, clusterref: {kind: GitopsCluster, name: dev}')),
      expected: [
        'config.yaml:8:35: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterref: unknown field "clusterref" (not part of the Pipeline schema): did you mean clusterRef?',
      ],
    },
    {
      name: 'a field one letter short, at the top of the spec',
      text: pipeline(devTarget).replace('  appRef:', '  apRef:'),
      expected: [
        'config.yaml:4:1: Pipeline flux-system/podinfo: spec.appRef: is required',
        'config.yaml:5:3: Pipeline flux-system/podinfo: spec.apRef: unknown field "apRef" (not part of the Pipeline schema): did you mean appRef?',
      ],
    },
    {
      name: 'a field two edits away',
      text: pipeline(target('nmespac: apps, clusterRef: {kind: GitopsCluster, name: dev}')),
      expected: [
        'config.yaml:8:17: Pipeline flux-system/podinfo: spec.environments[0].targets[0].namespace: is required',
        'config.yaml:8:18: Pipeline flux-system/podinfo: spec.environments[0].targets[0].nmespac: unknown field "nmespac" (not part of the Pipeline schema): did you mean namespace?',
      ],
    },
    {
      name: 'a field of a Secret',
      text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringdata: {token: abc}\n',
      expected: [
        'config.yaml:4:1: Secret default/creds: stringdata: unknown field "stringdata" (not part of the Secret schema): did you mean stringData?',
      ],
    },
    {
      name: 'three edits away: no suggestion, the message as before',
      text: pipeline(target('namespace: apps, cluster: {kind: GitopsCluster, name: dev}')),
      expected: [
        'config.yaml:8:35: Pipeline flux-system/podinfo: spec.environments[0].targets[0].cluster: unknown field "cluster" (not part of the Pipeline schema; check its spelling and indentation)',
      ],
    },
    {
      name: 'a field the mapping already has is not suggested again',
      text: pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}, clusterref: {name: dev}')),
      expected: [
        'config.yaml:8:81: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterref: unknown field "clusterref" (not part of the Pipeline schema; check its spelling and indentation)',
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(problems(row.text, known), row.expected));
  }
});

describe('a missing cluster or Secret names the one it is near', () => {
  const rows: { name: string; text: string; options?: LoadOptions; expected: string[] }[] = [
    {
      name: 'a clusterRef one letter off a stored cluster',
      text: pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: prod-e}')),
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/prod-e not found (did you mean flux-system/prod-eu?)',
      ],
    },
    {
      name: 'a clusterRef one letter off a cluster of the configuration',
      text:
        pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: edge-1}')) +
        '---\napiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: edge-2, namespace: flux-system}\nspec: {eks: {clusterName: edge, region: eu-west-1}}\n',
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/edge-1 not found (did you mean flux-system/edge-2?)',
      ],
    },
    {
      name: 'a near name in another namespace is not suggested',
      text: pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: stagin}')),
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/stagin not found',
      ],
    },
    {
      name: 'two edits away is not near',
      text: pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: prod-ue}')),
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/prod-ue not found',
      ],
    },
    {
      name: 'a default cluster one letter off',
      text: pipeline(target('namespace: apps')),
      options: { ...known, defaultCluster: { namespace: 'flux-system', name: 'prod-uu' } },
      expected: [
        'config.yaml:8:17: Pipeline flux-system/podinfo: spec.environments[0].targets[0]: target has no clusterRef and the default cluster GitopsCluster flux-system/prod-uu is not found (did you mean flux-system/prod-eu?)',
      ],
    },
    {
      name: 'a stored Secret one letter off',
      text: capiCluster('gitlab-toke').replace('capiClusterRef: {name: gitlab-toke}', 'secretRef: {name: gitlab-toke}'),
      expected: [
        'config.yaml:4:20: GitopsCluster fleet/prod: spec.secretRef.name: Secret fleet/gitlab-toke not found (did you mean fleet/gitlab-token?) (it holds the kubeconfig)',
      ],
    },
    {
      name: 'a Secret of the configuration one letter off the Cluster API name',
      text:
        capiCluster('prod') +
        '---\napiVersion: v1\nkind: Secret\nmetadata: {name: prod-kubeconfg, namespace: fleet}\nstringData: {value: x}\n',
      expected: [
        'config.yaml:4:25: GitopsCluster fleet/prod: spec.capiClusterRef.name: Secret fleet/prod-kubeconfig not found (did you mean fleet/prod-kubeconfg?) (it holds the Cluster API kubeconfig)',
      ],
    },
    {
      name: 'checking files only, the near name among them is suggested',
      text:
        pipeline(target('namespace: apps, clusterRef: {kind: GitopsCluster, name: edge-1}')) +
        '---\napiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: edge-2, namespace: flux-system}\nspec: {eks: {clusterName: edge, region: eu-west-1}}\n',
      options: { filesOnly: { hint: 'or give --data-dir' } },
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/edge-1 is not among the files given (or give --data-dir) (did you mean flux-system/edge-2?)',
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(problems(row.text, row.options ?? known), row.expected));
  }
});
