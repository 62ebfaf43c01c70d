import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ConfigError,
  formatProblem,
  loadConfiguration,
  loadConfigurationText,
  type LoadOptions,
} from '../../lib/config/index.js';
import { tempFiles } from '../support/temp-files.js';

const pipeline = (spec: string, name = 'podinfo') => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${name}, namespace: flux-system}
spec:
${spec}`;
const twoEnvs = `  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]
`;
const clusters: LoadOptions = {
  known: {
    clusters: [
      { namespace: 'flux-system', name: 'dev' },
      { namespace: 'flux-system', name: 'prod' },
    ],
  },
};

function problems(text: string, options: LoadOptions = clusters): string[] {
  const result = loadConfigurationText(text, 'config.yaml', options);
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('single-document problems', () => {
  const rows: { name: string; text: string; options?: LoadOptions; expected: string[] }[] = [
    {
      name: 'invalid YAML is located',
      text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: a\n',
      expected: [
        'config.yaml:4:1: document 1: invalid YAML: Flow map in block collection must be sufficiently indented and end with a }',
      ],
    },
    {
      name: 'a duplicate key is a YAML error',
      text: 'apiVersion: v1\nkind: Secret\nkind: Secret\nmetadata: {name: a}\n',
      expected: ['config.yaml:3:1: document 1: invalid YAML: Map keys must be unique'],
    },
    {
      name: 'a document that is not a mapping',
      text: '- just\n- a list\n',
      expected: ['config.yaml:1:1: document 1: expected a Kubernetes object (a YAML mapping)'],
    },
    {
      name: 'a document without kind',
      text: 'apiVersion: v1\nmetadata: {name: a}\n',
      expected: ['config.yaml:1:1: document 1: kind: is required'],
    },
    {
      name: 'an unsupported kind',
      text: 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: podinfo}\n',
      expected: [
        'config.yaml:2:1: HelmRelease default/podinfo: kind: unsupported kind "HelmRelease": expected Pipeline, GitopsCluster, Secret, ConfigSource, PipelineSet',
      ],
    },
    {
      name: 'a wrong apiVersion for the kind',
      text: 'apiVersion: pipelines.weave.works/v1beta1\nkind: Pipeline\nmetadata: {name: podinfo}\nspec: {}\n',
      expected: [
        'config.yaml:1:1: Pipeline default/podinfo: apiVersion: must be pipelines.weave.works/v1alpha1 for a Pipeline (found "pipelines.weave.works/v1beta1")',
      ],
    },
    {
      name: 'an invalid object name',
      text: pipeline(twoEnvs, 'Podinfo_App'),
      expected: [
        'config.yaml:3:12: Pipeline flux-system/Podinfo_App: metadata.name: must be a lowercase RFC 1123 name (a-z, 0-9, "-" and ".", starting and ending with a letter or digit)',
      ],
    },
    {
      name: 'no environments',
      text: pipeline(
        '  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}\n  environments: []\n',
      ),
      expected: [
        'config.yaml:6:3: Pipeline flux-system/podinfo: spec.environments: a pipeline needs at least one environment',
      ],
    },
    {
      name: 'environments missing altogether',
      text: pipeline('  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}\n'),
      expected: ['config.yaml:4:1: Pipeline flux-system/podinfo: spec.environments: is required'],
    },
    {
      name: 'an environment name that cannot be used in a marker',
      text: pipeline(twoEnvs.replace('name: prod', 'name: "prod:eu"')),
      expected: [
        'config.yaml:9:7: Pipeline flux-system/podinfo: spec.environments[1].name: must not contain "/", ":" or white space',
      ],
    },
    {
      name: 'a wrong type names the type found, not the value',
      text: pipeline(twoEnvs + '  promotion: {manual: "yes", strategy: {notification: {}}}\n'),
      expected: [
        'config.yaml:11:15: Pipeline flux-system/podinfo: spec.promotion.manual: must be true or false (found a string)',
      ],
    },
    {
      name: 'an unknown git provider type',
      text: pipeline(
        twoEnvs +
          '  promotion: {strategy: {pull-request: {type: subversion, url: "https://svn.example.com/r", baseBranch: main, secretRef: {name: creds}}}}\n',
      ),
      options: {
        ...clusters,
        known: { ...clusters.known, secrets: [{ namespace: 'flux-system', name: 'creds', keys: ['token'] }] },
      },
      expected: [
        'config.yaml:11:41: Pipeline flux-system/podinfo: spec.promotion.strategy.pull-request.type: must be one of github, gitlab, bitbucket-server, azure-devops',
      ],
    },
    {
      name: 'a clusterRef of another kind',
      text: pipeline(twoEnvs.replace('{kind: GitopsCluster, name: dev}', '{kind: Cluster, name: dev}')),
      expected: [
        'config.yaml:8:48: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.kind: must be GitopsCluster',
      ],
    },
    {
      name: 'a GitopsCluster with no way to reach it',
      text: 'apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: dev}\nspec: {}\n',
      expected: [
        'config.yaml:4:1: GitopsCluster default/dev: spec: set one way to reach the cluster: secretRef, capiClusterRef or eks',
      ],
    },
    {
      name: 'an EKS cluster with a malformed region and role',
      text: 'apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: dev}\nspec:\n  eks: {clusterName: dev, region: Ireland, roleArn: reader}\n',
      expected: [
        'config.yaml:5:27: GitopsCluster default/dev: spec.eks.region: must be an AWS region such as eu-west-1',
        'config.yaml:5:44: GitopsCluster default/dev: spec.eks.roleArn: must be an IAM role ARN',
      ],
    },
    {
      name: 'a Secret value that is not base64 is not echoed',
      text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\ndata: {token: "ghp_SuperSecret!!"}\n',
      expected: [
        'config.yaml:4:8: Secret default/creds: data.token: must be base64-encoded (use stringData for plain text)',
      ],
    },
    {
      name: 'a Secret value of the wrong type is not echoed',
      text: 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {token: 918273645}\n',
      expected: ['config.yaml:4:14: Secret default/creds: stringData.token: must be a string (found a number)'],
    },
    {
      name: 'an empty configuration',
      text: '# nothing here\n---\n',
      expected: ['the configuration holds no documents'],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const found = problems(row.text, row.options);
      assert.deepEqual(found, row.expected);
      for (const line of found) assert.ok(!/SuperSecret|918273645/.test(line), 'a Secret value leaked into a problem');
    });
  }
});

describe('references', () => {
  const rows: { name: string; text: string; options?: LoadOptions; expected: string[] }[] = [
    {
      name: 'a clusterRef to a GitopsCluster that does not exist',
      text: pipeline(twoEnvs),
      options: {},
      expected: [
        'config.yaml:8:69: Pipeline flux-system/podinfo: spec.environments[0].targets[0].clusterRef.name: GitopsCluster flux-system/dev not found',
        'config.yaml:10:69: Pipeline flux-system/podinfo: spec.environments[1].targets[0].clusterRef.name: GitopsCluster flux-system/prod not found',
      ],
    },
    {
      name: 'a default cluster that does not exist',
      text: pipeline(twoEnvs.replace(', clusterRef: {kind: GitopsCluster, name: dev}', '')),
      options: { ...clusters, defaultCluster: { namespace: 'flux-system', name: 'management' } },
      expected: [
        'config.yaml:8:17: Pipeline flux-system/podinfo: spec.environments[0].targets[0]: target has no clusterRef and the default cluster GitopsCluster flux-system/management is not found',
      ],
    },
    {
      name: 'an appRef apiVersion of another group',
      text: pipeline(
        twoEnvs.replace(
          'helm.toolkit.fluxcd.io/v2, kind: HelmRelease',
          'helm.toolkit.fluxcd.io/v2, kind: Kustomization',
        ),
      ),
      expected: [
        'config.yaml:5:12: Pipeline flux-system/podinfo: spec.appRef.apiVersion: must be kustomize.toolkit.fluxcd.io/<version> for a Kustomization (found "helm.toolkit.fluxcd.io/v2")',
      ],
    },
    {
      name: 'HMAC and pull-request Secrets missing or without their keys',
      text:
        pipeline(
          twoEnvs.replace(
            '      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]\n',
            '      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: prod}}]\n      promotion: {strategy: {pull-request: {type: gitlab, url: "https://gitlab.com/acme/fleet", baseBranch: main, secretRef: {name: gitlab}}}}\n',
          ) + '  promotion: {strategy: {notification: {}, secretRef: {name: hmac}}}\n',
        ) +
        '---\napiVersion: v1\nkind: Secret\nmetadata: {name: hmac, namespace: flux-system}\nstringData: {hmac-key: ""}\n',
      expected: [
        'config.yaml:11:127: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy.pull-request.secretRef.name: Secret flux-system/gitlab not found (it holds the gitlab credentials)',
        'config.yaml:12:56: Pipeline flux-system/podinfo: spec.promotion.strategy.secretRef.name: Secret flux-system/hmac has no non-empty "hmac-key" key (it holds the webhook HMAC key)',
      ],
    },
    {
      name: 'GitHub credentials need a token or every GitHub App key',
      text:
        pipeline(
          twoEnvs +
            '  promotion: {strategy: {pull-request: {type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}}}\n',
        ) +
        '---\napiVersion: v1\nkind: Secret\nmetadata: {name: gh, namespace: flux-system}\nstringData: {githubAppID: "1", username: git}\n',
      expected: [
        'config.yaml:11:123: Pipeline flux-system/podinfo: spec.promotion.strategy.pull-request.secretRef.name: Secret flux-system/gh has neither a non-empty "token" key nor the GitHub App keys githubAppID, githubAppInstallationID, githubAppPrivateKey (it holds the github credentials)',
      ],
    },
    {
      name: 'a Cluster API cluster without its kubeconfig Secret',
      text: 'apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: prod, namespace: fleet}\nspec: {capiClusterRef: {name: prod}}\n',
      expected: [
        'config.yaml:4:25: GitopsCluster fleet/prod: spec.capiClusterRef.name: Secret fleet/prod-kubeconfig not found (it holds the Cluster API kubeconfig)',
      ],
    },
    {
      name: 'a Secret applied before, without the key needed',
      text: 'apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: prod, namespace: fleet}\nspec: {secretRef: {name: prod-kc}}\n',
      options: { known: { secrets: [{ namespace: 'fleet', name: 'prod-kc', keys: ['config'] }] } },
      expected: [
        'config.yaml:4:20: GitopsCluster fleet/prod: spec.secretRef.name: Secret fleet/prod-kc has no non-empty "value", "value.yaml" or "kubeconfig" key (it holds the kubeconfig)',
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(problems(row.text, row.options ?? clusters), row.expected));
  }
});

describe('files and directories', () => {
  it('walks directories recursively, skipping hidden entries and other files, and reports every file', async (t) => {
    const dir = await tempFiles(t, {
      'clusters/dev.yml':
        'apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: dev}\nspec: {eks: {clusterName: dev, region: eu-west-1}}\n',
      'pipelines/broken.yaml': 'kind: [\n',
      'pipelines/notes.txt': 'kind: Pipeline\n',
      '.git/config.yaml': 'not: [valid\n',
      'pipelines/.hidden.yaml': 'not: [valid\n',
    });
    const result = await loadConfiguration(dir);
    assert.equal(result.ok, false);
    assert.deepEqual(result.ok ? [] : result.problems.map(formatProblem), [
      `${join(dir, 'pipelines/broken.yaml')}:2:1: document 1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    ]);
  });

  it('names a path that does not exist and a directory without YAML', async (t) => {
    const dir = await tempFiles(t, { 'README.md': '# no yaml here\n' });
    const result = await loadConfiguration([join(dir, 'missing.yaml'), dir]);
    assert.deepEqual(result.ok ? [] : result.problems.map(formatProblem), [
      `${dir}: no .yaml or .yml files found`,
      `${join(dir, 'missing.yaml')}: no such file or directory`,
    ]);
  });

  it('throws nothing for any input: a ConfigError carries the problems when a caller wants one', () => {
    for (const text of ['', '~', '42', '"text"', '[]', '{}', 'kind: 7', 'kind: Pipeline\nmetadata: 5', '&a [*a]']) {
      const result = loadConfigurationText(text, 'odd.yaml');
      assert.equal(result.ok, false, `expected ${JSON.stringify(text)} to be rejected`);
      if (!result.ok) {
        const error = new ConfigError(result.problems);
        assert.match(error.message, /^\d+ configuration problems?:\n {2}/);
      }
    }
  });
});
