import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatProblem, loadConfiguration, loadConfigurationText, type LoadResult } from '../../lib/config/index.js';
import { tempFiles } from '../support/temp-files.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'weave');

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

function configurationOf(result: LoadResult) {
  if (!result.ok) assert.fail(`expected a valid configuration, got:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.configuration;
}

const kubeconfigSecret = (namespace: string, name: string) => `apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: ${namespace}}
stringData:
  value: |
    apiVersion: v1
    kind: Config
`;
const cluster = (
  namespace: string,
  name: string,
  secret = `${name}-kubeconfig`,
) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  secretRef: {name: ${secret}}
`;

describe('loading Weave example pipelines unchanged', () => {
  it('loads the GitHub pull-request example with a default cluster', async (t) => {
    const pipeline = await readFile(join(fixtures, 'github', 'pipeline.yaml'), 'utf8');
    const dir = await tempFiles(t, {
      'pipeline.yaml': pipeline,
      'cluster.yaml': `${cluster('flux-system', 'management')}---\n${kubeconfigSecret('flux-system', 'management-kubeconfig')}`,
      'secrets/github.yaml': `apiVersion: v1
kind: Secret
metadata: {name: github-promotion-credentials, namespace: flux-system}
type: Opaque
data:
  token: Z2hwX2V4YW1wbGU=
  username: Z2l0
`,
    });
    const configuration = configurationOf(
      await loadConfiguration(dir, { defaultCluster: { namespace: 'flux-system', name: 'management' } }),
    );
    assert.equal(configuration.pipelines.length, 1);
    const [resolved] = configuration.pipelines;
    assert.deepEqual(
      resolved?.environments.map((env) => [env.name, env.targets]),
      [
        ['dev', [{ cluster: { namespace: 'flux-system', name: 'management' }, namespace: 'dev-github' }]],
        ['prod', [{ cluster: { namespace: 'flux-system', name: 'management' }, namespace: 'prod-github' }]],
      ],
    );
    assert.equal(resolved?.environments[1]?.promotion?.strategy['pull-request']?.baseBranch, 'main');
    const secret = configuration.secrets.find((s) => s.key.name === 'github-promotion-credentials');
    assert.equal(secret?.values.token, 'ghp_example', 'data is base64-decoded');
  });

  it('loads the notification example, whose targets name their clusters', async (t) => {
    const pipeline = await readFile(join(fixtures, 'notification', 'pipeline.yaml'), 'utf8');
    const dir = await tempFiles(t, {
      'pipeline.yaml': pipeline,
      'clusters.yaml': [
        cluster('default', 'dev'),
        kubeconfigSecret('default', 'dev-kubeconfig'),
        cluster('default', 'prod'),
        kubeconfigSecret('default', 'prod-kubeconfig'),
      ].join('---\n'),
    });
    const configuration = configurationOf(await loadConfiguration(dir));
    const [resolved] = configuration.pipelines;
    assert.deepEqual(resolved?.environments[0]?.targets, [
      { cluster: { namespace: 'default', name: 'dev' }, namespace: 'default' },
    ]);
    assert.deepEqual(resolved?.environments[1]?.promotion, { strategy: { notification: {} } });
    assert.equal(configuration.clusters.length, 2);
  });

  it('rejects the GitHub example without a default cluster, saying how to fix it', async () => {
    const result = await loadConfiguration(join(fixtures, 'github', 'pipeline.yaml'));
    const problems = problemsOf(result);
    const file = join(fixtures, 'github', 'pipeline.yaml');
    assert.ok(
      problems.includes(
        `${file}:14:11: Pipeline flux-system/podinfo-github: spec.environments[0].targets[0]: target has no clusterRef and no default cluster is set: add a clusterRef, or set a default cluster`,
      ),
      problems.join('\n'),
    );
    assert.ok(problems.some((p) => p.includes('Secret flux-system/github-promotion-credentials not found')));
  });
});

describe('resolving defaults', () => {
  it('applies namespaces, env-level promotion over pipeline-level, and the extension fields', async (t) => {
    const dir = await tempFiles(t, {
      'all.yaml': `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata:
  name: shop
  labels: {team: payments}
  annotations: {owner: sre}
  uid: 6c1b1e3a-5d0e-4d7e-9d55-0a5e1d1f3b11
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  appRef: {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: shop}
  promotion:
    strategy:
      notification: {}
      secretRef: {name: webhook-hmac}
  environments:
    - name: dev
      targets:
        - namespace: shop
          clusterRef: {kind: GitopsCluster, name: dev-eks}
    - name: prod
      promotion:
        manual: true
        strategy:
          pull-request:
            type: github
            url: https://github.com/acme/fleet
            baseBranch: main
            secretRef: {name: github-app}
      targets:
        - namespace: shop
          clusterRef: {apiVersion: gitops.weave.works/v1alpha1, kind: GitopsCluster, name: prod-capi, namespace: fleet}
status:
  observedGeneration: 3
  environments: {prod: {waitingApproval: {revision: "main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1"}}}
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: dev-eks}
spec:
  eks: {clusterName: dev, region: eu-west-1, roleArn: "arn:aws:iam::123456789012:role/pipeline-reader"}
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod-capi, namespace: fleet}
spec:
  capiClusterRef: {name: prod}
  clusterReadinessBackoff: 60s
---
apiVersion: v1
kind: Secret
metadata: {name: prod-kubeconfig, namespace: fleet}
data: {value: YXBpVmVyc2lvbjogdjE=}
---
apiVersion: v1
kind: Secret
metadata: {name: webhook-hmac}
stringData: {hmac-key: s3cr3t}
---
apiVersion: v1
kind: Secret
metadata: {name: github-app}
stringData: {githubAppID: "12345", githubAppInstallationID: "678", githubAppPrivateKey: "-----BEGIN RSA PRIVATE KEY-----"}
`,
    });
    const configuration = configurationOf(await loadConfiguration(join(dir, 'all.yaml')));
    const [shop] = configuration.pipelines;
    assert.equal(shop?.namespace, 'default', 'a document without namespace is in default, as with kubectl');
    assert.deepEqual(shop?.environments[0]?.targets[0]?.cluster, { namespace: 'default', name: 'dev-eks' });
    assert.deepEqual(shop?.environments[1]?.targets[0]?.cluster, { namespace: 'fleet', name: 'prod-capi' });
    assert.deepEqual(
      shop?.environments[0]?.promotion?.strategy.notification,
      {},
      'dev inherits the pipeline promotion',
    );
    assert.equal(shop?.environments[1]?.promotion?.manual, true, 'prod has its own promotion');
    assert.equal(shop?.environments[1]?.promotion?.strategy.notification, undefined);
    assert.equal(configuration.clusters.find((c) => c.key.name === 'dev-eks')?.document.spec.eks?.region, 'eu-west-1');
    assert.equal(configuration.pipelineDocuments[0]?.origin, `${join(dir, 'all.yaml')}:1`);
  });

  it('accepts a kubectl List export and a pipeline whose references were applied before', () => {
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: pipelines.weave.works/v1alpha1
    kind: Pipeline
    metadata: {name: api, namespace: apps, resourceVersion: "42", managedFields: [{manager: kubectl}]}
    spec:
      appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: api}
      environments:
        - name: dev
          targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: dev, namespace: fleet}}]
        - name: prod
          targets: [{namespace: api, clusterRef: {kind: GitopsCluster, name: prod, namespace: fleet}}]
          promotion: {strategy: {pull-request: {type: github, url: "https://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}}}
`;
    const configuration = configurationOf(
      loadConfigurationText(text, '<stdin>', {
        known: {
          clusters: [
            { namespace: 'fleet', name: 'dev' },
            { namespace: 'fleet', name: 'prod' },
          ],
          secrets: [{ namespace: 'apps', name: 'gh', keys: ['token'] }],
        },
      }),
    );
    assert.equal(configuration.pipelines[0]?.name, 'api');
    assert.equal(configuration.pipelines[0]?.environments[0]?.promotion, undefined, 'dev has no promotion of its own');
  });
});

describe('reporting every problem at once, each located', () => {
  it('reports schema and reference problems of several documents and files in one run', async (t) => {
    const dir = await tempFiles(t, {
      'a-pipelines.yaml': `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: web, namespace: apps}
spec:
  appRef: {apiVersion: apps/v1, kind: HelmRelease, name: web}
  environments:
    - name: dev
      targets:
        - namespace: web
          clusterRef: {kind: GitopsCluster, name: missing}
    - name: dev
      targets: []
    - name: prod
      targets:
        - namespace: web
          clusterRef: {kind: GitopsCluster, name: prod}
          cluster: typo
  promotion:
    strategy:
      pull-request: {type: github, url: "http://github.com/acme/fleet", baseBranch: main, secretRef: {name: gh}}
      notification: {}
---
apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: api, namespace: apps}
spec:
  appRef: {apiVersion: apps/v1, kind: Deployment}
  environments:
    - name: dev
      targets:
        - namespace: api
          clusterRef: {kind: GitopsCluster, name: prod}
  promotion:
    notification: {}
`,
      'b-clusters.yaml': `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: apps}
spec:
  secretRef: {name: prod-kubeconfig}
---
apiVersion: v1
kind: Secret
metadata: {name: prod-kubeconfig, namespace: apps}
stringData: {config: "not the right key"}
---
apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: apps}
spec:
  secretRef: {name: prod-kubeconfig}
  capiClusterRef: {name: prod}
`,
    });
    const a = join(dir, 'a-pipelines.yaml');
    const b = join(dir, 'b-clusters.yaml');
    assert.deepEqual(problemsOf(await loadConfiguration(dir)), [
      `${a}:5:12: Pipeline apps/web: spec.appRef.apiVersion: must be helm.toolkit.fluxcd.io/<version> for a HelmRelease (found "apps/v1")`,
      `${a}:10:45: Pipeline apps/web: spec.environments[0].targets[0].clusterRef.name: GitopsCluster apps/missing not found`,
      `${a}:11:7: Pipeline apps/web: spec.environments[1].name: duplicate environment name "dev" (also environments[0])`,
      `${a}:12:7: Pipeline apps/web: spec.environments[1].targets: an environment needs at least one target, or a targetSelector`,
      `${a}:17:11: Pipeline apps/web: spec.environments[2].targets[0].cluster: unknown field "cluster" (not part of the Pipeline schema; check its spelling and indentation)`,
      `${a}:20:36: Pipeline apps/web: spec.promotion.strategy.pull-request.url: must be an https:// repository URL (only HTTPS is supported, as in Weave)`,
      `${a}:27:3: Pipeline apps/api: spec.appRef.name: is required`,
      `${a}:27:33: Pipeline apps/api: spec.appRef.kind: must be HelmRelease or Kustomization`,
      `${a}:33:3: Pipeline apps/api: spec.promotion.strategy: is required`,
      `${a}:34:5: Pipeline apps/api: spec.promotion.notification: unknown field "notification": move it under promotion.strategy (the current Weave Pipeline schema)`,
      `${b}:5:15: GitopsCluster apps/prod: spec.secretRef.name: Secret apps/prod-kubeconfig has no non-empty "value", "value.yaml" or "kubeconfig" key (it holds the kubeconfig)`,
      `${b}:14:12: GitopsCluster apps/prod: metadata.name: duplicate GitopsCluster apps/prod: already defined at ${b}:1`,
      `${b}:15:1: GitopsCluster apps/prod: spec: secretRef, capiClusterRef and eks are mutually exclusive (found secretRef and capiClusterRef)`,
    ]);
  });
});
