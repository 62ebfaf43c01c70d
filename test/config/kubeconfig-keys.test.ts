// Which keys of a GitopsCluster's kubeconfig Secret `apply` accepts: `value`, `value.yaml` (both read by Weave's
// cluster-controller) and `kubeconfig` for a secretRef; `value` and `value.yaml` for the Cluster API Secret.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';

const KUBECONFIG = '    apiVersion: v1\n    kind: Config\n';

const secretRefCluster = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: fleet}
spec:
  secretRef: {name: prod-kc}
`;
const capiCluster = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: fleet}
spec:
  capiClusterRef: {name: prod}
`;

function secret(name: string, key: string): string {
  return `apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: fleet}
stringData:
  ${key}: |
${KUBECONFIG}`;
}

function problemsOf(text: string, options: LoadOptions = {}): string[] {
  const result = loadConfigurationText(text, 'clusters.yaml', options);
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('kubeconfig Secret keys', () => {
  for (const key of ['value', 'value.yaml', 'kubeconfig']) {
    it(`a secretRef Secret holding only "${key}" passes`, () => {
      assert.deepEqual(problemsOf(`${secretRefCluster}---\n${secret('prod-kc', key)}`), []);
    });
  }

  for (const key of ['value', 'value.yaml']) {
    it(`a Cluster API <name>-kubeconfig Secret holding only "${key}" passes`, () => {
      assert.deepEqual(problemsOf(`${capiCluster}---\n${secret('prod-kubeconfig', key)}`), []);
    });
  }

  it('a Secret applied before with only "value.yaml" passes, for secretRef and Cluster API alike', () => {
    const known = {
      secrets: [
        { namespace: 'fleet', name: 'prod-kc', keys: ['value.yaml'] },
        { namespace: 'fleet', name: 'prod-kubeconfig', keys: ['value.yaml'] },
      ],
    };
    assert.deepEqual(problemsOf(secretRefCluster, { known }), []);
    assert.deepEqual(problemsOf(capiCluster, { known }), []);
  });

  it('a Secret with none of the keys names every key it may use', () => {
    assert.deepEqual(problemsOf(`${secretRefCluster}---\n${secret('prod-kc', 'config')}`), [
      'clusters.yaml:5:15: GitopsCluster fleet/prod: spec.secretRef.name: Secret fleet/prod-kc has no non-empty "value", "value.yaml" or "kubeconfig" key (it holds the kubeconfig)',
    ]);
    // Cluster API writes `value`; a Secret with only `kubeconfig` is not a Cluster API kubeconfig Secret.
    assert.deepEqual(problemsOf(`${capiCluster}---\n${secret('prod-kubeconfig', 'kubeconfig')}`), [
      'clusters.yaml:5:20: GitopsCluster fleet/prod: spec.capiClusterRef.name: Secret fleet/prod-kubeconfig has no non-empty "value" or "value.yaml" key (it holds the Cluster API kubeconfig)',
    ]);
  });
});
