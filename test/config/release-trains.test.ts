// A Pipeline's release-train fields (docs/release-trains.md): `pull-request.group` and `waitForAll`, carried onto the
// resolved pipeline, and refused with a problem naming the field when the group cannot name a branch or `waitForAll`
// has no group to wait for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadResult } from '../../lib/config/index.js';
import { promotionGroupOf } from '../../lib/pipeline/promotion.js';

const known = {
  known: {
    clusters: [{ namespace: 'flux-system', name: 'dev' }],
    secrets: [{ namespace: 'flux-system', name: 'gh', keys: ['token'] }],
  },
};

function load(extra: string): LoadResult {
  return loadConfigurationText(
    `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: cart, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: cart}
  environments:
    - name: dev
      targets: [{namespace: dev, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: prod, clusterRef: {kind: GitopsCluster, name: dev}}]
  promotion:
    strategy:
      pull-request: {type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}${extra}}
`,
    'config.yaml',
    known,
  );
}

describe('release-train fields of a Pipeline', () => {
  it('carries group and waitForAll onto every environment the block applies to', () => {
    const result = load(', group: shop, waitForAll: true');
    if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
    const prod = result.configuration.pipelines[0]?.environments[1];
    assert.deepEqual(promotionGroupOf(prod?.promotion), {
      name: 'shop',
      type: 'github',
      url: 'https://github.com/acme/fleet',
      baseBranch: 'main',
      waitForAll: true,
    });
  });

  it('refuses a group that cannot be part of a branch name, and waitForAll without a group, naming the field', () => {
    for (const [extra, field] of [
      [', group: Shop Apps', 'spec.promotion.strategy.pull-request.group'],
      [', waitForAll: true', 'spec.promotion.strategy.pull-request.waitForAll'],
      [', group: shop, waitForAll: "yes"', 'spec.promotion.strategy.pull-request.waitForAll'],
    ] as const) {
      const result = load(extra);
      assert.equal(result.ok, false, extra);
      const problems = result.ok ? [] : result.problems.map(formatProblem);
      assert.ok(
        problems.some((problem) => problem.includes(field)),
        `${extra}: a problem naming ${field}, got ${problems.join('; ')}`,
      );
    }
  });
});
