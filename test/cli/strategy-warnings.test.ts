// `apply` warns about a Pipeline promoted by notification where nothing would carry the promotion out: no sink
// configured (the running serve's serve.json, the stack's NotificationSinks output), or no way to tell (serve not
// running, a stack without the output). The warning names the file and the field that chose the strategy, and how to
// add a sink; the configuration is applied all the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { strategyWarnings } from '../../lib/apply/strategy-warnings.js';
import type { Backend, NotificationSinksInfo } from '../../lib/cli/backend.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import { loadConfigurationText, type Configuration } from '../../lib/config/index.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';

const CLUSTERS = ['dev', 'staging', 'prod']
  .map(
    (name) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: ${name}, namespace: flux-system }
spec: { eks: { clusterName: ${name}, region: eu-west-1 } }
`,
  )
  .join('---\n');

const env = (name: string, extra = '') =>
  `    - name: ${name}
      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: ${name} } }]
${extra}`;

/** Pipeline `flux-system/<name>`: dev → staging → prod, promoted by `strategy` unless an environment says otherwise. */
const pipeline = (name: string, strategy: string, environments = [env('dev'), env('staging'), env('prod')]) =>
  `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: ${name}, namespace: flux-system }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name} }
  environments:
${environments.join('')}  promotion:
    strategy:
      ${strategy}
`;

const PULL_REQUEST =
  "pull-request: { type: github, url: 'https://github.com/acme/fleet', baseBranch: main, secretRef: { name: github } }";
const GITHUB_SECRET = `apiVersion: v1
kind: Secret
metadata: { name: github, namespace: flux-system }
stringData: { token: ghp_x }
`;

function load(...documents: string[]): Configuration {
  const result = loadConfigurationText([CLUSTERS, GITHUB_SECRET, ...documents].join('---\n'), 'config.yaml');
  if (!result.ok) assert.fail(JSON.stringify(result.problems));
  return result.configuration;
}

const backendWith = (info: NotificationSinksInfo | undefined): Pick<Backend, 'description' | 'notificationSinks'> => ({
  description: 'local data directory .data (serve running at http://127.0.0.1:8080)',
  ...(info && { notificationSinks: () => Promise.resolve(info) }),
});
const REMEDY = 'pipelinectl serve must be started with --notification-webhook-url';

describe('apply: strategy warnings', () => {
  it('warns, naming the file, line and field, when a notification pipeline meets a deployment without sinks', async () => {
    const configuration = load(pipeline('podinfo', 'notification: {}'));
    const warnings = await strategyWarnings(backendWith({ known: true, kinds: [], remedy: REMEDY }), configuration);
    assert.deepEqual(warnings, [
      'warning: config.yaml:35:7: Pipeline flux-system/podinfo: spec.promotion.strategy.notification: environments ' +
        'staging, prod are promoted by notification, but local data directory .data (serve running at ' +
        'http://127.0.0.1:8080) has no notification sink: each such promotion will fail for good (pipelinectl ' +
        'serve must be started with --notification-webhook-url)',
    ]);
  });

  it('says nothing when a sink is configured, or when no environment is promoted by notification', async () => {
    const notification = load(pipeline('podinfo', 'notification: {}'));
    for (const kinds of [['webhook'], ['notification-controller'], ['event-bus'], ['a-later-kind']]) {
      assert.deepEqual(await strategyWarnings(backendWith({ known: true, kinds, remedy: REMEDY }), notification), []);
    }
    const none = { known: true, kinds: [], remedy: REMEDY } as const;
    assert.deepEqual(await strategyWarnings(backendWith(none), load(pipeline('podinfo', PULL_REQUEST))), []);
    // Only the first environment uses notification: it is never promoted into.
    const first = [env('dev', '      promotion: { strategy: { notification: {} } }\n'), env('prod')];
    assert.deepEqual(await strategyWarnings(backendWith(none), load(pipeline('podinfo', PULL_REQUEST, first))), []);
  });

  it("points at an environment's own block, and says when it cannot tell", async () => {
    const own = [env('dev'), env('staging'), env('prod', '      promotion: { strategy: { notification: {} } }\n')];
    const configuration = load(pipeline('podinfo', PULL_REQUEST, own));
    const reason = 'pipelinectl serve is not running';
    const [warning, ...rest] = await strategyWarnings(
      backendWith({ known: false, reason, remedy: REMEDY }),
      configuration,
    );
    assert.deepEqual(rest, []);
    assert.equal(
      warning,
      'warning: config.yaml:33:32: Pipeline flux-system/podinfo: spec.environments[2].promotion.strategy.notification: ' +
        'environment prod is promoted by notification; cannot tell whether a notification sink is ' +
        'configured (pipelinectl serve is not running): without one each such promotion fails for good ' +
        '(pipelinectl serve must be started with --notification-webhook-url)',
    );
    const silent = await strategyWarnings(backendWith(undefined), configuration);
    assert.match(silent[0] ?? '', /cannot tell whether a notification sink is configured \(local data directory/);
  });
});

describe('apply: the sinks of a deployed stack', () => {
  const STACK = 'PipelineControllerStack';
  let aws: AwsStandIn;
  let cloudFormation: CloudFormationClient;
  // Never called: the sinks come from the stack's outputs only.
  const dynamodb = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' });
  before(async () => {
    aws = await startAwsStandIn();
    cloudFormation = new CloudFormationClient({
      endpoint: aws.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });
  after(async () => {
    cloudFormation.destroy();
    dynamodb.destroy();
    await aws.stop();
  });

  const sinksOf = async (outputs: Record<string, string>, named = true) => {
    aws.stacks.set(STACK, { TableName: 'table', QueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q', ...outputs });
    const backend = await openAwsBackend(
      named ? { stack: STACK } : { table: 'table', queueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q' },
      { cloudFormation, dynamodb },
    );
    try {
      return await backend.notificationSinks?.();
    } finally {
      await backend.close();
    }
  };

  it('reads the NotificationSinks output: none, or the kinds', async () => {
    assert.deepEqual(await sinksOf({ NotificationSinks: 'none' }), {
      known: true,
      kinds: [],
      remedy:
        'deploy the stack with a notification sink: context notificationWebhookUrl, notificationControllerUrl or ' +
        'notificationEventBusArn (infra/README.md)',
    });
    const both = await sinksOf({ NotificationSinks: 'webhook,event-bus' });
    assert.deepEqual(both?.known ? both.kinds : undefined, ['webhook', 'event-bus']);
  });

  it('cannot tell for a stack deployed before the output existed, or without --stack', async () => {
    const old = await sinksOf({});
    assert.equal(old?.known, false);
    assert.match(old && !old.known ? old.reason : '', /stack PipelineControllerStack has no NotificationSinks output/);
    const unnamed = await sinksOf({ NotificationSinks: 'webhook' }, false);
    assert.equal(unnamed?.known, false);
  });

  it('warns about a notification pipeline on a stack without sinks', async () => {
    aws.stacks.set(STACK, {
      TableName: 'table',
      QueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q',
      NotificationSinks: 'none',
    });
    const backend = await openAwsBackend({ stack: STACK }, { cloudFormation, dynamodb });
    try {
      const [warning] = await strategyWarnings(backend, load(pipeline('podinfo', 'notification: {}')));
      assert.match(warning ?? '', /but stack PipelineControllerStack \(table table\) has no notification sink/);
      assert.match(
        warning ?? '',
        /context notificationWebhookUrl, notificationControllerUrl or notificationEventBusArn/,
      );
    } finally {
      await backend.close();
    }
  });
});
