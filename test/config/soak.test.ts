// `spec.environments[].soak` (docs/soak.md): what `apply` accepts, what it refuses and how it names the field, and
// that the resolved pipeline keeps it as written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions } from '../../lib/config/index.js';

const clusters: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'prod' },
    ],
  },
};

/** dev → prod, with `soak` on prod (the second environment) unless it is undefined. */
const pipelineWith = (soak: string | undefined) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
${soak === undefined ? '' : `      soak: ${soak}\n`}`;

function load(soak: string | undefined) {
  return loadConfigurationText(pipelineWith(soak), 'config.yaml', clusters);
}

describe('spec.environments[].soak', () => {
  for (const soak of ['30m', '2h', '1h30m', '90s', '168h']) {
    it(`accepts ${soak}, kept as written on the resolved environment`, () => {
      const result = load(soak);
      assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
      assert.equal(result.configuration.pipelines[0]?.environments[1]?.soak, soak);
    });
  }

  it('is optional: without it the environment has no soak (a Weave Pipeline loads unchanged)', () => {
    const result = load(undefined);
    assert.ok(result.ok);
    assert.equal('soak' in (result.configuration.pipelines[0]?.environments[1] ?? {}), false);
  });

  const refused: { soak: string; problem: RegExp }[] = [
    {
      soak: '30',
      problem: /spec\.environments\[1\]\.soak: must be a string \(found a number\)/,
    },
    {
      soak: '"30"',
      problem: /spec\.environments\[1\]\.soak: must be a duration in whole hours, minutes and seconds/,
    },
    {
      soak: '1d',
      problem: /spec\.environments\[1\]\.soak: must be a duration/,
    },
    {
      soak: '1.5h',
      problem: /spec\.environments\[1\]\.soak: must be a duration/,
    },
    {
      soak: '500ms',
      problem: /spec\.environments\[1\]\.soak: must be a duration/,
    },
    {
      soak: '"-5m"',
      problem: /spec\.environments\[1\]\.soak: must be a duration/,
    },
    {
      soak: '0m',
      problem: /spec\.environments\[1\]\.soak: must be longer than 0s/,
    },
    {
      soak: '169h',
      problem: /spec\.environments\[1\]\.soak: must be at most 168h \(7 days\)/,
    },
    {
      soak: '45x',
      problem: /^config\.yaml:11:7: Pipeline flux-system\/podinfo: spec\.environments\[1\]\.soak: /,
    },
  ];
  for (const { soak, problem } of refused) {
    it(`refuses ${soak}, naming the field`, () => {
      const result = load(soak);
      assert.equal(result.ok, false);
      const problems = result.ok ? [] : result.problems.map(formatProblem);
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(problems[0] ?? '', problem);
    });
  }
});
