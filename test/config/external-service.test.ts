// The external-service strategy in a Pipeline (docs/external-service.md): it loads alone in its block, and beside
// another strategy it is refused, naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';
import { strategyOf } from '../../lib/pipeline/promotion.js';

const known: LoadOptions = {
  known: {
    clusters: [{ namespace: 'flux-system', name: 'dev' }],
    secrets: [{ namespace: 'flux-system', name: 'gh', keys: ['token'] }],
  },
};

function pipeline(prodStrategy: string): string {
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
      promotion: {manual: true, strategy: ${prodStrategy}}
`;
}

describe('the external-service strategy', () => {
  it('loads alone in its block, and is the strategy in force', () => {
    const result = loadConfigurationText(pipeline('{external-service: {}}'), 'fleet.yaml', known);
    if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
    const prod = result.configuration.pipelines[0]?.environments[1];
    assert.ok(prod?.promotion);
    assert.equal(strategyOf(prod.promotion), 'external-service');
    assert.equal(prod.promotion.manual, true);
  });

  it('is refused beside a pull request or a notification, naming the field', () => {
    const pullRequest = '{type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}';
    for (const [other, strategy] of [
      ['pull-request', `{external-service: {}, pull-request: ${pullRequest}}`],
      ['notification', '{external-service: {}, notification: {}}'],
    ] as const) {
      const result = loadConfigurationText(pipeline(strategy), 'fleet.yaml', known);
      assert.equal(result.ok, false, other);
      const problems = result.ok ? [] : result.problems.map(formatProblem);
      assert.ok(
        problems.some((problem) =>
          problem.includes(
            `spec.environments[1].promotion.strategy.external-service: external-service promotes without Git or ` +
              `notification: remove ${other}`,
          ),
        ),
        problems.join('\n'),
      );
    }
  });

  it('takes no settings', () => {
    const result = loadConfigurationText(
      pipeline('{external-service: {url: "https://example.com"}}'),
      'fleet.yaml',
      known,
    );
    assert.equal(result.ok, false);
  });
});
