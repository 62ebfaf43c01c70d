// Configuration documents as Weave's pipeline-controller accepts them (docs/weave-compatibility.md): a pipeline-level
// strategy holding only the webhook key, both strategies in one block, the same target in two environments (each
// accepted with a warning naming the file and field), and a `kubectl get -o yaml` export whose status waits for an
// approval.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  formatProblem,
  formatWarning,
  loadConfiguration,
  loadConfigurationText,
  type LoadOptions,
  type LoadResult,
} from '../../lib/config/index.js';
import { tempFiles } from '../support/temp-files.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'weave');
const MANAGEMENT = { namespace: 'flux-system', name: 'management' };

function accepted(result: LoadResult) {
  if (!result.ok) assert.fail(`expected a valid configuration, got:\n${result.problems.map(formatProblem).join('\n')}`);
  return { configuration: result.configuration, warnings: result.warnings.map(formatWarning) };
}

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

const pipeline = (spec: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
${spec}`;
const known: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'prod' },
    ],
    secrets: [
      { namespace: 'flux-system', name: 'gh', keys: ['token'] },
      { namespace: 'flux-system', name: 'hmac', keys: ['hmac-key'] },
    ],
  },
};
const pullRequest = `{type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}`;

describe('a pipeline-level strategy holding only the webhook key (Weave: every strategy field is optional)', () => {
  it("loads Weave's e2e pipeline with the strategies in the environments; an environment without one has none", async (t) => {
    const file = join(fixtures, 'env-strategies', 'pipeline.yaml');
    const dir = await tempFiles(t, {
      'pipeline.yaml': await readFile(file, 'utf8'),
      'secrets.yaml': `apiVersion: v1
kind: Secret
metadata: {name: github-promotion-credentials, namespace: flux-system}
stringData: {token: ghp_example}
---
apiVersion: v1
kind: Secret
metadata: {name: promotion-hmac, namespace: flux-system}
stringData: {hmac-key: not-so-secret}
`,
    });
    const { configuration, warnings } = accepted(
      await loadConfiguration(dir, { defaultCluster: MANAGEMENT, known: { clusters: [MANAGEMENT] } }),
    );
    assert.deepEqual(warnings, []);
    const [resolved] = configuration.pipelines;
    assert.deepEqual(
      resolved?.environments.map((env) => [env.name, env.promotion?.manual ?? false, env.promotion?.strategy]),
      [
        ['dev', false, undefined],
        [
          'staging',
          false,
          {
            'pull-request': {
              type: 'github',
              baseBranch: 'main',
              url: 'https://github.com/weaveworks/pipeline-controller-e2e',
              secretRef: { name: 'github-promotion-credentials' },
            },
          },
        ],
        ['prod', true, resolved?.environments[1]?.promotion?.strategy],
      ],
    );
    assert.deepEqual(resolved?.promotion, { strategy: { secretRef: { name: 'promotion-hmac' } } }, 'the webhook key');
  });

  it('an environment without a strategy of its own then has none (no inherited secretRef-only block)', () => {
    const { configuration } = accepted(
      loadConfigurationText(
        pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion:
    manual: true
    strategy: {secretRef: {name: hmac}}
`),
        'config.yaml',
        known,
      ),
    );
    assert.equal(configuration.pipelines[0]?.environments[1]?.promotion, undefined);
  });

  it('still rejects an environment block without a strategy, and a pipeline block with nothing in it', () => {
    assert.deepEqual(
      problemsOf(
        loadConfigurationText(
          pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
      promotion: {strategy: {secretRef: {name: hmac}}}
  promotion:
    strategy: {}
`),
          'config.yaml',
          known,
        ),
      ),
      [
        'config.yaml:11:19: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy: set a promotion strategy: pull-request, notification or external-service (a secretRef alone belongs in spec.promotion.strategy, the only place the webhook key is read from)',
        'config.yaml:13:5: Pipeline flux-system/podinfo: spec.promotion.strategy: set a promotion strategy (pull-request, notification or external-service), the webhook key (secretRef), or both',
      ],
    );
  });
});

describe('accepted with a warning, as Weave accepts them', () => {
  it('pull-request and notification in one block: the pull request is used; the warning names the file and field', () => {
    const text = pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
      promotion:
        strategy:
          notification: {}
          pull-request: ${pullRequest}
  promotion:
    strategy: {pull-request: ${pullRequest}, notification: {}, secretRef: {name: hmac}}
`);
    const { configuration, warnings } = accepted(loadConfigurationText(text, 'config.yaml', known));
    assert.deepEqual(warnings, [
      'config.yaml:13:11: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy.notification: pull-request and notification are both set: the pull request is used and notification is ignored, as in Weave (remove one of them)',
      'config.yaml:16:125: Pipeline flux-system/podinfo: spec.promotion.strategy.notification: pull-request and notification are both set: the pull request is used and notification is ignored, as in Weave (remove one of them)',
    ]);
    const prod = configuration.pipelines[0]?.environments[1];
    assert.equal(prod?.promotion?.strategy['pull-request']?.url, 'https://github.com/acme/fleet');
  });

  it('the same target in two environments, or twice in one: it counts wherever it is listed', () => {
    const text = pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets:
        - {namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}
        - {namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}
        - {namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}
  promotion: {strategy: {notification: {}}}
`);
    const { configuration, warnings } = accepted(loadConfigurationText(text, 'config.yaml', known));
    assert.deepEqual(warnings, [
      'config.yaml:12:11: Pipeline flux-system/podinfo: spec.environments[1].targets[1]: the same target as environments[0].targets[0] (cluster flux-system/dev, namespace apps): accepted, as in Weave; it is read once and its status counts in every environment that lists it',
      'config.yaml:13:11: Pipeline flux-system/podinfo: spec.environments[1].targets[2]: the same target as environments[1].targets[0] (cluster flux-system/prod, namespace apps): accepted, as in Weave; it is read once and its status counts in every environment that lists it',
    ]);
    assert.deepEqual(
      configuration.pipelines[0]?.environments[1]?.targets.map((target) => target.cluster.name),
      ['prod', 'dev', 'prod'],
      'kept as written',
    );
  });

  it('warnings are in reading order across files, and a configuration with a problem is still refused', async (t) => {
    const dir = await tempFiles(t, {
      'b.yaml': pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
`),
      'a.yaml': pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion: {strategy: {notification: {}, pull-request: ${pullRequest}}}
`).replace('name: podinfo,', 'name: other,'),
    });
    const { warnings } = accepted(await loadConfiguration(dir, known));
    assert.deepEqual(
      warnings.map((warning) => warning.replace(`${dir}/`, '').split(': ').slice(0, 3).join(': ')),
      [
        'a.yaml:9:26: Pipeline flux-system/other: spec.promotion.strategy.notification',
        'b.yaml:10:17: Pipeline flux-system/podinfo: spec.environments[1].targets[0]',
      ],
    );
    const broken = await tempFiles(t, { 'b.yaml': `${pipeline('  environments: []\n')}` });
    assert.deepEqual(problemsOf(await loadConfiguration(broken, known)), [
      `${join(broken, 'b.yaml')}:6:3: Pipeline flux-system/podinfo: spec.environments: a pipeline needs at least one environment`,
    ]);
  });
});

describe('a kubectl export with a status that waits for an approval', () => {
  const clusters: LoadOptions = {
    known: {
      clusters: known.known?.clusters,
      secrets: [
        { namespace: 'flux-system', name: 'github-promotion-credentials', keys: ['token'] },
        { namespace: 'flux-system', name: 'promotion-hmac', keys: ['hmac-key'] },
      ],
    },
  };

  it('carries status.environments.<env>.waitingApproval.revision of a manual environment; a reset one ("") is nothing', async () => {
    const file = join(fixtures, 'export', 'pipelines.yaml');
    const { configuration, warnings } = accepted(await loadConfiguration(file, clusters));
    assert.deepEqual(warnings, []);
    assert.deepEqual(configuration.waitingApprovals, [
      {
        pipeline: { namespace: 'flux-system', name: 'podinfo' },
        env: 'prod',
        revision: '6.0.1',
        origin: `${file}:61`,
      },
    ]);
  });

  it('a waiting approval the pipeline cannot hold (environment not manual, or gone) is a warning, not carried', () => {
    const text = `${pipeline(`  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion: {strategy: {notification: {}}}
`)}status:
  environments:
    prod: {waitingApproval: {revision: 6.0.1}}
    qa: {waitingApproval: {revision: 6.0.0}}
    dev: null
`;
    const { configuration, warnings } = accepted(loadConfigurationText(text, 'export.yaml', known));
    assert.deepEqual(configuration.waitingApprovals, []);
    assert.deepEqual(warnings, [
      'export.yaml:14:30: Pipeline flux-system/podinfo: status.environments.prod.waitingApproval.revision: the approval of 6.0.1 is not carried over: environment prod is not manual',
      'export.yaml:15:28: Pipeline flux-system/podinfo: status.environments.qa.waitingApproval.revision: the approval of 6.0.0 is not carried over: the Pipeline has no environment qa',
    ]);
  });
});
