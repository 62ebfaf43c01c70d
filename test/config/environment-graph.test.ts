// Environment graphs in a Pipeline (docs/environment-graphs.md): `after` loads onto the resolved environment, a
// pipeline without it keeps the listed order, and a graph that cannot be walked is refused naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions, type LoadResult } from '../../lib/config/index.js';
import {
  isGraph,
  predecessorsOf,
  successorsOf,
  walkOrder,
  type GraphEnvironment,
} from '../../lib/pipeline/environment-graph.js';

const known: LoadOptions = {
  known: { clusters: [{ namespace: 'flux-system', name: 'dev' }], secrets: [] },
};

/** A notification pipeline whose environments are `name` or `name after a,b` (an empty list after `after`: `[]`). */
function pipeline(...environments: string[]): string {
  const lines = environments.map((written) => {
    const [name, after] = written.split(' after ');
    const afterField = after === undefined ? '' : `, after: [${after === '[]' ? '' : after}]`;
    return `    - {name: ${name}${afterField}, targets: [{namespace: ${name}, clusterRef: {kind: GitopsCluster, name: dev}}]}`;
  });
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  promotion: {strategy: {notification: {}}}
  environments:
${lines.join('\n')}
`;
}

const load = (...environments: string[]) => loadConfigurationText(pipeline(...environments), 'fleet.yaml', known);

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be refused');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('environment graphs that load', () => {
  it('a diamond: after is carried onto the resolved environments, and the graph reads it', () => {
    const result = load('staging', 'prod-eu after staging', 'prod-us after staging', 'global after prod-eu,prod-us');
    if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
    const environments = result.configuration.pipelines[0]?.environments ?? [];
    assert.deepEqual(
      environments.map((env) => [env.name, predecessorsOf(environments, env.name)]),
      [
        ['staging', []],
        ['prod-eu', ['staging']],
        ['prod-us', ['staging']],
        ['global', ['prod-eu', 'prod-us']],
      ],
    );
    assert.deepEqual(successorsOf(environments, 'staging'), ['prod-eu', 'prod-us']);
    assert.equal(isGraph(environments), true);
  });

  it('without after, each environment follows the one listed before it, as in Weave', () => {
    const result = load('dev', 'staging', 'prod');
    if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
    const environments = result.configuration.pipelines[0]?.environments ?? [];
    assert.deepEqual(predecessorsOf(environments, 'prod'), ['staging']);
    assert.deepEqual(successorsOf(environments, 'prod'), []);
    assert.equal(isGraph(environments), false);
    assert.equal(environments[1]?.after, undefined);
  });
});

describe('environment graphs that are refused, naming the field', () => {
  const rows: { name: string; environments: string[]; problems: string[] }[] = [
    {
      name: 'after on the first environment',
      environments: ['dev after prod', 'prod'],
      problems: ['spec.environments[0].after: the first environment follows nothing'],
    },
    {
      name: 'an unknown name',
      environments: ['dev', 'prod after stagin'],
      problems: ['spec.environments[1].after[0]: the pipeline has no environment "stagin" (it has dev, prod)'],
    },
    {
      name: 'an environment after itself',
      environments: ['dev', 'prod after prod'],
      problems: ['spec.environments[1].after[0]: an environment cannot follow itself'],
    },
    {
      name: 'a name given twice',
      environments: ['dev', 'prod after dev,dev'],
      problems: ['spec.environments[1].after[1]: "dev" is named twice'],
    },
    {
      name: 'an empty list',
      environments: ['dev', 'prod after []'],
      problems: ['spec.environments[1].after: must name at least one environment'],
    },
    {
      name: 'a cycle',
      environments: ['dev', 'a after c', 'b after a', 'c after b'],
      problems: ['spec.environments[1].after: the environments form a cycle: a → b → c → a'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const problems = problemsOf(load(...row.environments));
      for (const expected of row.problems) {
        assert.ok(
          problems.some((problem) => problem.includes(expected)),
          `expected "${expected}" in:\n${problems.join('\n')}`,
        );
      }
      for (const problem of problems) assert.match(problem, /^fleet\.yaml/, 'each problem names the file');
    });
  }
});

describe('walkOrder', () => {
  it('puts every environment after all it follows, keeping the listed order where it can', () => {
    const environments: GraphEnvironment[] = [
      { name: 'staging' },
      { name: 'global', after: ['prod-eu', 'prod-us'] },
      { name: 'prod-us', after: ['staging'] },
      { name: 'prod-eu', after: ['staging'] },
    ];
    assert.deepEqual(
      walkOrder(environments).map((env) => env.name),
      ['staging', 'prod-us', 'prod-eu', 'global'],
    );
  });
});
