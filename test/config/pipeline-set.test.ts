import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText, type LoadOptions, type LoadResult } from '../../lib/config/index.js';
import { appsElements, foundAfterPoll, PIPELINE_SET_LABEL, type FoundApp } from '../../lib/pipeline/pipeline-set.js';

const clusters = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: dev-1, namespace: flux-system}
spec: {secretRef: {name: dev-1-kubeconfig}}
---
apiVersion: v1
kind: Secret
metadata: {name: dev-1-kubeconfig, namespace: flux-system}
stringData: {value: kubeconfig}
`;

/** A set whose generators and template spec's environments are given as YAML flow text. */
function pipelineSet(options: { name?: string; generators: string; templateName?: string; environments?: string }) {
  const {
    name = 'web-apps',
    templateName = "'{{ app }}'",
    environments = '[{name: dev, targets: [{namespace: "{{ app }}", clusterRef: {kind: GitopsCluster, name: dev-1}}]}]',
  } = options;
  return `apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: {name: ${name}, namespace: flux-system}
spec:
  generators: ${options.generators}
  template:
    metadata: {name: ${templateName}}
    spec:
      appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}'}
      environments: ${environments}
`;
}

const handWritten = (name: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name}}
  environments: [{name: dev, targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev-1}}]}]
`;

function load(text: string, options: LoadOptions = {}): LoadResult {
  return loadConfigurationText(`${clusters}---\n${text}`, 'sets.yaml', options);
}

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('a PipelineSet generates one ordinary Pipeline per element', () => {
  const generating: {
    name: string;
    text: string;
    options?: LoadOptions;
    pipelines: { name: string; namespaces: string[]; app: string }[];
  }[] = [
    {
      name: 'a list generator: every key substituted, in every string',
      text: pipelineSet({
        generators: '[{list: {elements: [{app: podinfo}, {app: frontend, team: web}]}}]',
        environments:
          '[{name: dev, targets: [{namespace: "{{ app }}", clusterRef: {kind: GitopsCluster, name: dev-1}}]}]',
      }),
      pipelines: [
        { name: 'podinfo', namespaces: ['podinfo'], app: 'podinfo' },
        { name: 'frontend', namespaces: ['frontend'], app: 'frontend' },
      ],
    },
    {
      name: 'a key other than app, several placeholders in one string, a number taken as written',
      text: pipelineSet({
        generators: '[{list: {elements: [{app: api, team: payments, shard: 2}]}}]',
        templateName: "'{{team}}-{{ app }}-{{ shard }}'",
        environments:
          '[{name: dev, targets: [{namespace: "{{ team }}", clusterRef: {kind: GitopsCluster, name: dev-1}}]}]',
      }),
      pipelines: [{ name: 'payments-api-2', namespaces: ['payments'], app: 'api' }],
    },
    {
      name: 'an apps generator: the elements found by the poll, none before',
      text: pipelineSet({
        generators:
          '[{apps: {clusterRef: {kind: GitopsCluster, name: dev-1}, kind: HelmRelease, namespace: apps, matchLabels: {promotion: standard}}}]',
      }),
      options: { appsElements: () => [{ app: 'billing', promotion: 'standard' }] },
      pipelines: [{ name: 'billing', namespaces: ['billing'], app: 'billing' }],
    },
    {
      name: 'an apps generator whose elements are not known yet: no pipeline, the set itself valid',
      text: pipelineSet({
        generators: '[{apps: {clusterRef: {kind: GitopsCluster, name: dev-1}, kind: HelmRelease, namespace: apps}}]',
      }),
      pipelines: [],
    },
  ];
  for (const row of generating) {
    it(row.name, () => {
      const result = load(row.text, row.options);
      if (!result.ok) assert.fail(result.problems.map(formatProblem).join('\n'));
      const { pipelines, pipelineDocuments, pipelineSets } = result.configuration;
      assert.deepEqual(
        pipelines.map((pipeline) => ({
          name: pipeline.name,
          namespaces: pipeline.environments.flatMap((env) => env.targets.map((target) => target.namespace)),
          app: pipeline.appRef.name,
        })),
        row.pipelines,
      );
      for (const { document } of pipelineDocuments) {
        assert.equal(document.metadata.namespace, 'flux-system');
        assert.equal(document.metadata.labels?.[PIPELINE_SET_LABEL], 'web-apps');
      }
      assert.deepEqual(
        pipelineSets.map((set) => [set.key.name, set.generated.map((key) => key.name)]),
        [['web-apps', row.pipelines.map((pipeline) => pipeline.name)]],
      );
    });
  }
});

describe('what a PipelineSet cannot generate is a problem naming the set, the element and the field', () => {
  const refused: { name: string; text: string; problems: RegExp[] }[] = [
    {
      name: 'a generated Pipeline invalid as a hand-written one would be, located in the template',
      text: pipelineSet({
        generators: '[{list: {elements: [{app: podinfo}, {app: frontend}]}}]',
        environments: '[{name: dev}]',
      }),
      problems: [
        /^sets\.yaml:\d+:\d+: PipelineSet flux-system\/web-apps \(element app=podinfo\): spec\.environments\[0\]\.targets: an environment needs at least one target, or a targetSelector \(and 1 more element of the set\)$/,
      ],
    },
    {
      name: 'a generated name that is no Kubernetes name',
      text: pipelineSet({ generators: '[{list: {elements: [{app: Front_End}]}}]' }),
      problems: [
        /PipelineSet flux-system\/web-apps \(element app=Front_End\): metadata\.name: must be a lowercase RFC 1123 name/,
        /PipelineSet flux-system\/web-apps \(element app=Front_End\): spec\.appRef\.name: must be a lowercase RFC 1123 name/,
        /PipelineSet flux-system\/web-apps \(element app=Front_End\): spec\.environments\[0\]\.targets\[0\]\.namespace: must be a lowercase RFC 1123 label/,
      ],
    },
    {
      name: 'a key the element lacks',
      text: pipelineSet({ generators: '[{list: {elements: [{app: api}]}}]', templateName: "'{{ team }}-{{ app }}'" }),
      problems: [
        /PipelineSet flux-system\/web-apps \(element app=api\): metadata\.name: the element has no key "team" \(its keys: app\)/,
      ],
    },
    {
      name: 'a reference the generated Pipeline makes to a cluster that does not exist',
      text: pipelineSet({
        generators: '[{list: {elements: [{app: api, cluster: dev-2}]}}]',
        environments:
          '[{name: dev, targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: "{{ cluster }}"}}]}]',
      }),
      problems: [
        /PipelineSet flux-system\/web-apps \(element app=api\): spec\.environments\[0\]\.targets\[0\]\.clusterRef.*GitopsCluster flux-system\/dev-2/,
      ],
    },
    {
      name: 'an apps generator looking at a cluster that is not registered',
      text: pipelineSet({
        generators: '[{apps: {clusterRef: {kind: GitopsCluster, name: dev-9}, kind: HelmRelease, namespace: apps}}]',
      }),
      problems: [
        /PipelineSet flux-system\/web-apps: spec\.generators\[0\]\.apps\.clusterRef\.name: GitopsCluster flux-system\/dev-9 not found \(did you mean flux-system\/dev-1\?\)/,
      ],
    },
    {
      name: 'two elements generating one name: both elements named',
      text: pipelineSet({
        generators: '[{list: {elements: [{app: api, team: a}, {app: api, team: b}]}}]',
        templateName: "'{{ app }}'",
      }),
      problems: [
        /PipelineSet flux-system\/web-apps \(element app=api\): metadata\.name: duplicate Pipeline flux-system\/api: already defined at sets\.yaml:\d+ \(PipelineSet flux-system\/web-apps \(element app=api\)\)/,
      ],
    },
    {
      name: 'a generated name a hand-written Pipeline has: both named',
      text: `${handWritten('frontend')}---\n${pipelineSet({ generators: '[{list: {elements: [{app: frontend}]}}]' })}`,
      problems: [
        /PipelineSet flux-system\/web-apps \(element app=frontend\): metadata\.name: duplicate Pipeline flux-system\/frontend: already defined at sets\.yaml:\d+$/,
      ],
    },
    {
      name: 'a generated name another set generates: both sets named',
      text: `${pipelineSet({ generators: '[{list: {elements: [{app: api}]}}]' })}---\n${pipelineSet({ name: 'other-apps', generators: '[{list: {elements: [{app: api}]}}]' })}`,
      problems: [
        /PipelineSet flux-system\/other-apps \(element app=api\): metadata\.name: duplicate Pipeline flux-system\/api: already defined at sets\.yaml:\d+ \(PipelineSet flux-system\/web-apps \(element app=api\)\)/,
      ],
    },
    {
      name: 'a generator that is neither list nor apps, or both',
      text: pipelineSet({
        generators:
          '[{}, {list: {elements: [{app: a}]}, apps: {clusterRef: {kind: GitopsCluster, name: dev-1}, kind: HelmRelease, namespace: apps}}]',
      }),
      problems: [
        /PipelineSet flux-system\/web-apps: spec\.generators\[0\]: give one generator: list or apps/,
        /PipelineSet flux-system\/web-apps: spec\.generators\[1\]: give exactly one generator: list or apps/,
      ],
    },
    {
      name: 'an unknown field of the set, with the nearest known one',
      text: pipelineSet({ generators: '[{list: {element: [{app: a}]}}]' }),
      problems: [
        /PipelineSet flux-system\/web-apps: spec\.generators\[0\]\.list\.elements: is required/,
        /PipelineSet flux-system\/web-apps: spec\.generators\[0\]\.list\.element: unknown field "element".*did you mean elements\?/,
      ],
    },
  ];
  for (const row of refused) {
    it(row.name, () => {
      const problems = problemsOf(load(row.text));
      for (const expected of row.problems) {
        assert.ok(
          problems.some((problem) => expected.test(problem)),
          `expected a problem matching ${expected}, got:\n${problems.join('\n')}`,
        );
      }
      assert.equal(problems.length, row.problems.length, problems.join('\n'));
    });
  }

  it('says once what is wrong the same way in many elements, counting them', () => {
    const apps = Array.from({ length: 300 }, (_, i) => `{app: app-${i + 1}}`).join(', ');
    const text = pipelineSet({ generators: `[{list: {elements: [${apps}]}}]`, environments: '[{name: dev}]' });
    const problems = problemsOf(load(text));
    assert.equal(problems.length, 1, problems.slice(0, 3).join('\n'));
    assert.match(
      problems[0] ?? '',
      /PipelineSet flux-system\/web-apps \(element app=app-1\): spec\.environments\[0\]\.targets: an environment needs at least one target, or a targetSelector \(and 299 more elements of the set\)$/,
    );
  });

  it("locates a generated Pipeline's problem at the template's line in the set's file", () => {
    const text = pipelineSet({ generators: '[{list: {elements: [{app: podinfo}]}}]', environments: '[{name: dev}]' });
    const [problem] = problemsOf(load(text));
    const environmentsLine =
      `${clusters}---\n${text}`.split('\n').findIndex((line) => line.includes('environments:')) + 1;
    assert.match(problem ?? '', new RegExp(`^sets\\.yaml:${environmentsLine}:`));
  });
});

describe('what an apps generator keeps between polls, and the elements it yields', () => {
  const rows: {
    name: string;
    previous: FoundApp[];
    listed: { name: string; labels: Record<string, string> }[];
    kept: FoundApp[];
  }[] = [
    {
      name: 'a new app is kept, with its labels',
      previous: [],
      listed: [{ name: 'web', labels: { team: 'a' } }],
      kept: [{ name: 'web', labels: { team: 'a' } }],
    },
    {
      name: 'an app missing for the first time is kept, marked missing',
      previous: [{ name: 'web', labels: { team: 'a' } }],
      listed: [],
      kept: [{ name: 'web', labels: { team: 'a' }, missing: true }],
    },
    {
      name: 'an app missing a second time is dropped',
      previous: [{ name: 'web', labels: { team: 'a' }, missing: true }],
      listed: [],
      kept: [],
    },
    {
      name: 'an app back after one missing poll is kept as listed, its mark gone and its labels new',
      previous: [{ name: 'web', labels: { team: 'a' }, missing: true }],
      listed: [{ name: 'web', labels: { team: 'b' } }],
      kept: [{ name: 'web', labels: { team: 'b' } }],
    },
    {
      name: 'sorted by name, whatever the order listed',
      previous: [{ name: 'b', labels: {} }],
      listed: [
        { name: 'c', labels: {} },
        { name: 'a', labels: {} },
      ],
      kept: [
        { name: 'a', labels: {} },
        { name: 'b', labels: {}, missing: true },
        { name: 'c', labels: {} },
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(foundAfterPoll(row.previous, row.listed), row.kept));
  }

  it('yields one element per app whose labels match, its labels as keys and app its name', () => {
    const found: FoundApp[] = [
      { name: 'web', labels: { promotion: 'standard', app: 'label-value', team: 'a' } },
      { name: 'batch', labels: { team: 'b' } },
      { name: 'gone', labels: { promotion: 'standard' }, missing: true },
    ];
    assert.deepEqual(appsElements(found, { promotion: 'standard' }), [
      { promotion: 'standard', app: 'web', team: 'a' },
      { promotion: 'standard', app: 'gone' },
    ]);
    assert.equal(appsElements(found).length, 3, 'no matchLabels: every app');
    assert.deepEqual(appsElements(undefined, {}), [], 'nothing found yet: no element');
  });
});
