// `pipelinectl validate`, as a CI job runs it on the folder a ConfigSource reads: with no store and no cluster the
// Pipelines and GitopsClusters are checked among the files given (a reference outside them is a problem that says
// so), or against what a data directory stores with --data-dir; documents of other kinds are skipped and counted as
// a ConfigSource's sync skips them (one rule, in lib/config, which apply does not follow); a Secret with values is
// refused; -o github prints GitHub Actions annotations, escaped as GitHub's toolkit escapes them; -o json.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import type { ValidateJson } from '../../lib/cli/operations/validate.js';
import { loadSources } from '../../lib/config/index.js';
import { parseConfigText } from '../../lib/config/yaml-source.js';
import { startAwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite } from '../support/dynalite.js';
import { runCli } from '../support/pipelinectl.js';
import { tempFiles } from '../support/temp-files.js';
import { pipeline, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';

const HINT = '(pass --data-dir or --aws to resolve it against a deployment)';

/** Clusters reached through EKS, which need no Secret. */
const CLUSTERS = ['dev', 'prod', 'spare']
  .map(
    (name) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: flux-system}
spec: {eks: {clusterName: ${name}, region: eu-west-1}}
`,
  )
  .join('---\n');

/** A pipeline promoted by notification, whose only references are its two clusters. */
const NOTIFIED = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: web, namespace: flux-system}
spec:
  appRef: {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: web}
  environments:
    - name: dev
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: web, clusterRef: {kind: GitopsCluster, name: prod}}]
  promotion:
    strategy: {notification: {}}
`;

/** What a Flux fleet's folder holds beside the pipelines. */
const FLUX_OBJECTS = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec: {interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: apps}
spec: {interval: 5m, chart: {spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}}}
`;

const TEKTON_PIPELINE = `apiVersion: tekton.dev/v1
kind: Pipeline
metadata: {name: build, namespace: ci}
spec: {tasks: [{name: build, taskRef: {name: kaniko}}]}
`;

const CONFIG_SOURCE = `apiVersion: pipeline-controller.io/v1alpha1
kind: ConfigSource
metadata: {name: fleet, namespace: flux-system}
spec: {url: 'https://github.com/acme/fleet', branch: main, path: pipelines, secretRef: {name: fleet-config}}
`;

/** The Weave shape of a fleet's pipelines folder, every document valid. */
const WEAVE_FOLDER = {
  'pipelines/clusters.yaml': CLUSTERS,
  'pipelines/web.yaml': NOTIFIED,
  'pipelines/flux.yaml': FLUX_OBJECTS,
  // kustomize reads its file without a kind.
  'pipelines/kustomization.yaml': 'resources: [clusters.yaml, web.yaml, flux.yaml]\n',
  'pipelines/ci/build.yaml': TEKTON_PIPELINE,
  'pipelines/config-source.yaml': CONFIG_SOURCE,
  'pipelines/README.md': '# not YAML: not read\n',
};

describe('pipelinectl validate', { concurrency: true }, () => {
  it('a Weave folder: its Pipelines and GitopsClusters valid, the other kinds skipped and counted; exit 0', async (t) => {
    const root = await tempFiles(t, WEAVE_FOLDER);
    const run = await runCli(['validate', join(root, 'pipelines')]);
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, '6 files, 4 objects valid (5 documents of other kinds skipped)\n');
    assert.equal(run.code, 0);

    const json = await runCli(['validate', join(root, 'pipelines'), '-o', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as ValidateJson;
    assert.equal(report.valid, true);
    assert.equal(report.objects, 4);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(
      report.skipped.map(({ file, line, document, kind }) => [file.slice(root.length + 1), line, document, kind]),
      [
        ['pipelines/ci/build.yaml', 1, 'Pipeline ci/build', 'Pipeline'],
        ['pipelines/config-source.yaml', 1, 'ConfigSource flux-system/fleet', 'ConfigSource'],
        ['pipelines/flux.yaml', 1, 'Kustomization flux-system/apps', 'Kustomization'],
        ['pipelines/flux.yaml', 6, 'HelmRelease apps/podinfo', 'HelmRelease'],
        ['pipelines/kustomization.yaml', 1, 'document 1', null],
      ],
    );
  });

  it('with no path, validates the current directory', async (t) => {
    const root = await tempFiles(t, WEAVE_FOLDER);
    const run = await runCli(['validate'], { cwd: join(root, 'pipelines') });
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, '6 files, 4 objects valid (5 documents of other kinds skipped)\n');
    assert.equal(run.code, 0);
  });

  it('a reference to an object not among the files given is a problem that says so; exit 1', async (t) => {
    const root = await tempFiles(t, { 'pipelines/podinfo.yaml': pipeline('apps') });
    const file = join(root, 'pipelines/podinfo.yaml');
    const run = await runCli(['validate', join(root, 'pipelines')]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    const env = (i: number) => `Pipeline flux-system/podinfo: spec.environments[${i}]`;
    assert.deepEqual(lines(run.stderr), [
      `${file}:9:71: ${env(0)}.targets[0].clusterRef.name: GitopsCluster flux-system/dev is not among the files given ${HINT}`,
      `${file}:11:79: ${env(1)}.targets[0].clusterRef.name: GitopsCluster flux-system/prod is not among the files given ${HINT}`,
      `${file}:15:110: ${env(1)}.promotion.strategy.pull-request.secretRef.name: Secret flux-system/github (it holds ` +
        `the github credentials) is not among the files given ${HINT}`,
      `${file}:17:71: ${env(2)}.targets[0].clusterRef.name: GitopsCluster flux-system/prod is not among the files given ${HINT}`,
      `${file}:21:20: Pipeline flux-system/podinfo: spec.promotion.strategy.secretRef.name: Secret flux-system/webhook-hmac ` +
        `(it holds the webhook HMAC key) is not among the files given ${HINT}`,
      'error: 5 problems in the configuration',
    ]);

    // Given with the files, the clusters resolve; only the Secrets (which stay out of Git) are left.
    const withClusters = await tempFiles(t, { 'podinfo.yaml': pipeline('apps'), 'clusters.yaml': CLUSTERS });
    const again = await runCli(['validate', withClusters]);
    assert.equal(again.code, 1);
    assert.deepEqual(
      lines(again.stderr).map((line) => /: (\S+ \S+) (\(.*\) )?is not among the files given/.exec(line)?.[1] ?? line),
      ['Secret flux-system/github', 'Secret flux-system/webhook-hmac', 'error: 2 problems in the configuration'],
    );
  });

  it('--unresolved warning: such a reference is a warning (annotated as one) and the files are valid', async (t) => {
    const root = await tempFiles(t, { 'podinfo.yaml': pipeline('apps'), 'clusters.yaml': CLUSTERS });
    const file = join(root, 'podinfo.yaml');
    const text = await runCli(['validate', '--unresolved', 'warning', root]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, '2 files, 4 objects valid\n');
    assert.deepEqual(lines(text.stderr), [
      `warning: ${file}:15:110: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy.pull-request.` +
        `secretRef.name: Secret flux-system/github (it holds the github credentials) is not among the files given ${HINT}`,
      `warning: ${file}:21:20: Pipeline flux-system/podinfo: spec.promotion.strategy.secretRef.name: Secret ` +
        `flux-system/webhook-hmac (it holds the webhook HMAC key) is not among the files given ${HINT}`,
    ]);

    const github = await runCli(['validate', '-o', 'github', '--unresolved', 'warning', root]);
    assert.equal(github.code, 0, github.stderr);
    assert.deepEqual(
      lines(github.stdout).map((line) => line.split('::', 2).join('::')),
      [
        `::warning file=${file},line=15,col=110,title=Pipeline flux-system/podinfo`,
        `::warning file=${file},line=21,col=20,title=Pipeline flux-system/podinfo`,
        '2 files, 4 objects valid',
      ],
    );

    // A problem among the files is still one.
    const broken = await tempFiles(t, {
      'podinfo.yaml': pipeline('apps').replace('kind: Pipeline', 'kind: Pipeline\nspec2: 1'),
    });
    const run = await runCli(['validate', '--unresolved', 'warning', broken, join(root, 'clusters.yaml')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^\S+:4:1: Pipeline flux-system\/podinfo: spec2: unknown field "spec2"/);
    assert.match(run.stderr, /\nerror: 1 problem in the configuration\n$/);
  });

  it('--data-dir resolves them against what the data directory stores (clusters, Secret key names)', async (t) => {
    const root = await tempFiles(t, {
      'deployed/clusters.yaml': CLUSTERS,
      'deployed/secrets.yaml': SECRETS,
      'pipelines/podinfo.yaml': pipeline('apps'),
      'pipelines/flux.yaml': FLUX_OBJECTS,
      'other/podinfo.yaml': pipeline('apps').replace(/name: github/, 'name: gitlab'),
    });
    const dataDir = join(root, 'data');
    const mixed = await runCli(['validate', join(root, 'pipelines'), '--data-dir', dataDir, '--unresolved', 'warning']);
    assert.equal(mixed.code, 1);
    assert.equal(
      mixed.stderr,
      'error: --unresolved is for the files checked on their own: with --data-dir or --aws every reference is resolved\n',
    );
    const missing = await runCli(['validate', join(root, 'pipelines'), '--data-dir', dataDir]);
    assert.equal(missing.code, 1, 'a data directory that holds no store is refused, as by every command');
    assert.match(missing.stderr, /^error: the data directory .* does not exist: pass the --data-dir/);
    assert.deepEqual(await readdir(root), ['deployed', 'other', 'pipelines'], 'and none is made');

    const applied = await runCli(['apply', '-f', join(root, 'deployed'), '--data-dir', dataDir]);
    assert.equal(applied.code, 0, applied.stderr);

    const run = await runCli(['validate', join(root, 'pipelines'), '--data-dir', dataDir]);
    assert.equal(run.stderr, '');
    assert.equal(
      run.stdout,
      `2 files, 1 object valid (2 documents of other kinds skipped), references resolved against local data ` +
        `directory ${dataDir}\n`,
    );
    assert.equal(run.code, 0);

    // What the store does not hold is not found there.
    const other = await runCli(['validate', join(root, 'other'), '--data-dir', dataDir]);
    assert.equal(other.code, 1);
    assert.deepEqual(lines(other.stderr), [
      `${join(root, 'other/podinfo.yaml')}:15:110: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy.` +
        'pull-request.secretRef.name: Secret flux-system/gitlab not found (it holds the github credentials)',
      'error: 1 problem in the configuration',
    ]);
  });

  it('--aws resolves them against a deployed stack: its table, and the key names of its Secrets', async (t) => {
    const region = 'us-east-1';
    const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
    const [dynamo, aws] = await Promise.all([startDynalite(), startAwsStandIn()]);
    t.after(() => Promise.all([dynamo.stop(), aws.stop()]));
    // Validate sends nothing: the queue is only named.
    aws.stacks.set('PipelineControllerStack', { TableName: dynamo.tableName, QueueUrl: 'http://127.0.0.1:9/work' });
    const config = { endpoint: aws.endpoint, region, credentials };
    const root = await tempFiles(t, {
      'deployed/clusters.yaml': CLUSTERS,
      'deployed/secrets.yaml': SECRETS,
      'pipelines/podinfo.yaml': pipeline('apps'),
    });
    const backend = await openAwsBackend(
      { stack: 'PipelineControllerStack' },
      {
        dynamodb: dynamo.client,
        secretsManager: new SecretsManagerClient(config),
        cloudFormation: new CloudFormationClient(config),
        sts: new STSClient(config),
      },
    );
    try {
      const applied = await applyConfiguration(backend, { source: { paths: [join(root, 'deployed')] } });
      assert.ok(applied.ok, JSON.stringify(applied));
    } finally {
      await backend.close();
    }

    aws.calls.length = 0;
    const run = await runCli(
      ['validate', join(root, 'pipelines'), '--aws', '--stack', 'PipelineControllerStack', '--region', region],
      {
        env: {
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          AWS_ENDPOINT_URL_CLOUDFORMATION: aws.endpoint,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
          AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        },
      },
    );
    assert.equal(run.stderr, '');
    assert.equal(
      run.stdout,
      `1 file, 1 object valid, references resolved against stack PipelineControllerStack (table ${dynamo.tableName})\n`,
    );
    assert.equal(run.code, 0);
    assert.deepEqual(aws.calls.sort(), [
      'CloudFormation.DescribeStacks PipelineControllerStack',
      'SecretsManager.GetSecretValue pipeline-controller/flux-system/github',
      'SecretsManager.GetSecretValue pipeline-controller/flux-system/webhook-hmac',
    ]);
  });

  it('a Secret with values is refused (secrets stay out of Git); one without values is skipped', async (t) => {
    const secretWithout = 'apiVersion: v1\nkind: Secret\nmetadata: {name: placeholder, namespace: flux-system}\n';
    const root = await tempFiles(t, {
      'clusters.yaml': CLUSTERS,
      'secrets.yaml': `${SECRETS}---\n${secretWithout}`,
      'podinfo.yaml': pipeline('apps'),
    });
    const run = await runCli(['validate', root]);
    assert.equal(run.code, 1);
    const refused = (line: number, column: number, name: string, field: string) =>
      `${join(root, 'secrets.yaml')}:${line}:${column}: Secret flux-system/${name}: ${field}: a ConfigSource never ` +
      'applies a Secret with values: secrets stay out of Git (apply Secrets with pipelinectl apply, or on AWS keep ' +
      'them in Secrets Manager)';
    // One problem per Secret: the references to it are not reported again.
    assert.deepEqual(lines(run.stderr), [
      refused(5, 1, 'dev-kubeconfig', 'stringData'),
      refused(10, 1, 'webhook-hmac', 'stringData'),
      refused(15, 1, 'github', 'data'),
      'error: 3 problems in the configuration',
    ]);
  });

  it('-o github: one annotation per problem, its properties and message escaped as GitHub does', async (t) => {
    const root = await tempFiles(t, {
      'team:a,b.yaml': NOTIFIED.replace('kind: Pipeline', 'kind: Pipeline\nspec2: 1').replace(
        '  promotion:',
        '  "100%\\r\\n::warning::forged": true\n  promotion:',
      ),
      'clusters.yaml': CLUSTERS,
    });
    const run = await runCli(['validate', '-o', 'github', root]);
    assert.equal(run.code, 1);
    const file = join(root, 'team%3Aa%2Cb.yaml');
    assert.deepEqual(lines(run.stdout), [
      `::error file=${file},line=3,col=1,title=Pipeline flux-system/web::spec2: unknown field "spec2" (not part of ` +
        'the Pipeline schema; check its spelling and indentation)',
      `::error file=${file},line=12,col=3,title=Pipeline flux-system/web::spec.100%25%0D%0A::warning::forged: unknown field ` +
        '"100%25%0D%0A::warning::forged" (not part of the Pipeline schema; check its spelling and indentation)',
    ]);
    assert.equal(run.stderr, 'error: 2 problems in the configuration\n');

    const valid = await runCli(['validate', '-o', 'github', join(root, 'clusters.yaml')]);
    assert.equal(valid.code, 0, valid.stderr);
    assert.equal(valid.stdout, '1 file, 3 objects valid\n');
  });

  it('-o json: every problem with its file, line, column, document and field', async (t) => {
    const root = await tempFiles(t, {
      'web.yaml': NOTIFIED.replace('name: prod}', 'name: staging}'),
      'clusters.yaml': CLUSTERS,
      'broken.yaml': 'kind: [unclosed\n',
    });
    const run = await runCli(['validate', '-o', 'json', root]);
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as ValidateJson;
    assert.equal(report.valid, false);
    assert.deepEqual(
      report.files.map((file) => file.slice(root.length + 1)),
      ['broken.yaml', 'clusters.yaml', 'web.yaml'],
    );
    assert.deepEqual(
      report.problems.map(({ file, line, column, document, path }) => [
        file?.slice(root.length + 1),
        line,
        column,
        document,
        path,
      ]),
      [
        ['broken.yaml', 2, 1, 'document 1', null],
        ['web.yaml', 10, 68, 'Pipeline flux-system/web', 'spec.environments[1].targets[0].clusterRef.name'],
      ],
    );
    assert.match(report.problems[0]?.message ?? '', /^invalid YAML: /);
    assert.equal(report.problems[1]?.message, `GitopsCluster flux-system/staging is not among the files given ${HINT}`);
  });

  it('the rule is in the loader: apply still reports other kinds, a ConfigSource load skips them', () => {
    const text = `${NOTIFIED}---\n${FLUX_OBJECTS}---\n${CLUSTERS}`;
    const all = loadSources(parseConfigText(text, 'fleet.yaml'));
    assert.ok(!all.ok);
    assert.deepEqual(
      all.problems.map((problem) => problem.message.split(':')[0]),
      ['unsupported kind "Kustomization"', 'unsupported kind "HelmRelease"'],
    );
    const configSource = loadSources(parseConfigText(text, 'fleet.yaml'), { documents: 'config-source' });
    assert.ok(configSource.ok);
    assert.equal(configSource.configuration.pipelines.length, 1);
    assert.equal(configSource.configuration.clusters.length, 3);
    assert.deepEqual(
      configSource.skipped.map((skipped) => skipped.document),
      ['Kustomization flux-system/apps', 'HelmRelease apps/podinfo'],
    );
  });
});
