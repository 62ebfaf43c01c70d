// `pull-request.deployments` and `pull-request.environmentUrl` in a Pipeline (docs/deployments.md): optional, off by
// default, carried into the resolved model; a wrong type or an address that is not http(s) is refused, naming the
// field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';

const known: LoadOptions = {
  known: {
    clusters: [{ namespace: 'flux-system', name: 'dev' }],
    secrets: [{ namespace: 'flux-system', name: 'gh', keys: ['token'] }],
  },
};

function pipeline(extra: string): string {
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: dev
      targets: [{namespace: dev, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: prod, clusterRef: {kind: GitopsCluster, name: dev}}]
  promotion:
    strategy:
      pull-request: {type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}${extra}}
`;
}

const prodPullRequest = (extra: string) => {
  const result = loadConfigurationText(pipeline(extra), 'fleet.yaml', known);
  if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
  return result.configuration.pipelines[0]?.environments[1]?.promotion?.strategy['pull-request'];
};

const problemsOf = (extra: string) => {
  const result = loadConfigurationText(pipeline(extra), 'fleet.yaml', known);
  return result.ok ? [] : result.problems.map(formatProblem);
};

describe('deployments on the Git host, in a Pipeline', () => {
  it('is off unless asked for, and carries the environment URL', () => {
    assert.equal(prodPullRequest('')?.deployments, undefined);
    const on = prodPullRequest(', deployments: true, environmentUrl: "https://prod.example.com"');
    assert.equal(on?.deployments, true);
    assert.equal(on?.environmentUrl, 'https://prod.example.com');
  });

  it('refuses a deployments that is not a boolean and an environment URL that is not http(s)', () => {
    const notBoolean = problemsOf(', deployments: "yes"');
    assert.ok(
      notBoolean.some((problem) => problem.includes('spec.promotion.strategy.pull-request.deployments')),
      notBoolean.join('\n'),
    );
    const notUrl = problemsOf(', deployments: true, environmentUrl: "ftp://prod.example.com"');
    assert.ok(
      notUrl.some((problem) => problem.includes('environmentUrl') && problem.includes('http:// or https:// URL')),
      notUrl.join('\n'),
    );
  });
});
