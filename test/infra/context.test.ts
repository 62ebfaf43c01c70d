// infra/context.ts: CDK context (`-c key=value` strings or cdk.json JSON) → the stack's props; unknown keys and bad
// values fail with the key named.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { App, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { CONTEXT_KEYS, DEFAULT_STACK_NAME, settingsFromContext } from '../../infra/context.js';

const fromContext = (context: Record<string, unknown>, env: Record<string, string> = {}) =>
  settingsFromContext(context, env);

/** The message of what `fromContext` throws. */
function failure(context: Record<string, unknown>): string {
  try {
    fromContext(context);
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail(`accepted ${JSON.stringify(context)}`);
}

describe('settingsFromContext', () => {
  it('takes account and region from context first, then from the CDK CLI', () => {
    const chosen = fromContext(
      { account: '111111111111', region: 'eu-central-1' },
      { CDK_DEFAULT_ACCOUNT: '222222222222', CDK_DEFAULT_REGION: 'us-east-1' },
    );
    assert.deepEqual(chosen.props.env, { account: '111111111111', region: 'eu-central-1' });
    assert.deepEqual(chosen.warnings, []);
    assert.equal(chosen.stackName, DEFAULT_STACK_NAME);

    const cli = fromContext({}, { CDK_DEFAULT_ACCOUNT: '222222222222', CDK_DEFAULT_REGION: 'us-east-1' });
    assert.deepEqual(cli.props.env, { account: '222222222222', region: 'us-east-1' });
    // An account id written as a JSON number in cdk.json.
    assert.equal(fromContext({ account: 111111111111 }).props.env?.account, '111111111111');
  });

  it('warns when the region may be the CLI fallback (no -c region, no AWS_REGION)', () => {
    const silent = fromContext({}, { CDK_DEFAULT_REGION: 'us-east-1' });
    assert.equal(silent.warnings.length, 1);
    assert.match(silent.warnings[0] ?? '', /us-east-1.*-c region=/);
    assert.deepEqual(fromContext({}, { CDK_DEFAULT_REGION: 'eu-west-1', AWS_REGION: 'eu-west-1' }).warnings, []);
  });

  it('reads lists as comma-separated strings or JSON arrays, numbers as strings or numbers', () => {
    const arns = ['arn:aws:eks:eu-west-1:111111111111:cluster/a', 'arn:aws:eks:eu-west-1:111111111111:cluster/b'];
    const fromCli = fromContext({ eksClusterArns: arns.join(', '), verifierMaxConcurrency: '25', retentionDays: 30 });
    assert.deepEqual(fromCli.props.controller?.eksClusterArns, arns);
    assert.equal(fromCli.props.controller?.verifierMaxConcurrency, 25);
    assert.equal(fromCli.props.controller?.retentionDays, 30);
    const fromJson = fromContext({ eksClusterArns: arns, assumeRoleArns: [] });
    assert.deepEqual(fromJson.props.controller?.eksClusterArns, arns);
    assert.deepEqual(fromJson.props.controller?.assumeRoleArns, []);
    assert.deepEqual(fromContext({ eksClusterArns: JSON.stringify(arns) }).props.controller?.eksClusterArns, arns);
  });

  it('reads the alarms and workspaces the verification checks may read into the verification prop', () => {
    const alarm = 'arn:aws:cloudwatch:eu-west-1:111111111111:alarm:podinfo-5xx';
    const workspace = 'arn:aws:aps:eu-west-1:111111111111:workspace/ws-1234';
    const settings = fromContext({ cloudwatchAlarmArns: alarm, prometheusWorkspaceArns: [workspace] });
    assert.deepEqual(settings.props.controller?.verification, {
      cloudwatchAlarmArns: [alarm],
      prometheusWorkspaceArns: [workspace],
    });
    assert.equal(fromContext({}).props.controller?.verification, undefined);
  });

  it('maps the removal policy, the schedule and the ARNs of the sinks and the alarm topic', () => {
    const settings = fromContext({
      removalPolicy: 'destroy',
      pollSchedule: 'rate(10 minutes)',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:111111111111:alarms',
      notificationEventBusArn: 'arn:aws:events:eu-west-1:111111111111:event-bus/b',
      defaultCluster: 'flux-system/management',
      stackName: 'PromotionsStack',
    });
    assert.equal(settings.props.controller?.removalPolicy, RemovalPolicy.DESTROY);
    assert.equal(settings.props.controller?.pollSchedule?.expressionString, 'rate(10 minutes)');
    assert.equal(settings.props.alarmTopicArn, 'arn:aws:sns:eu-west-1:111111111111:alarms');
    assert.equal(settings.props.notificationEventBusArn, 'arn:aws:events:eu-west-1:111111111111:event-bus/b');
    assert.equal(settings.props.controller?.defaultCluster, 'flux-system/management');
    assert.equal(settings.stackName, 'PromotionsStack');
  });

  it('maps the function settings: memory, architecture, tracing, dashboard, log retention, the key', () => {
    const settings = fromContext({
      receiverMemorySize: '256',
      pollerMemorySize: 512,
      architecture: 'x86_64',
      tracing: 'true',
      dashboard: false,
      logRetentionDays: '14',
      encryptionKeyArn: 'arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    });
    const controller = settings.props.controller;
    assert.deepEqual(controller?.memorySize, { receiver: 256, verifier: undefined, poller: 512 });
    assert.equal(controller?.architecture, lambda.Architecture.X86_64);
    assert.equal(controller?.tracing, true);
    assert.equal(controller?.dashboard, false);
    assert.equal(controller?.logRetention, logs.RetentionDays.TWO_WEEKS);
    assert.equal(
      settings.props.encryptionKeyArn,
      'arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    );
    assert.equal(fromContext({ logRetentionDays: 'infinite' }).props.controller?.logRetention, 9999);
    assert.equal(fromContext({}).props.controller?.memorySize, undefined, 'no key, the defaults');
    assert.equal(fromContext({ tracing: '' }).props.controller?.tracing, undefined, '-c key= unsets the key');
  });
});

describe('unknown context keys', () => {
  it('fail the synth, suggesting the key that was probably meant', () => {
    assert.match(
      failure({ eksClusterArn: 'arn:aws:eks:eu-west-1:111111111111:cluster/a' }),
      /unknown context key 'eksClusterArn': did you mean eksClusterArns\?/,
    );
    assert.match(failure({ logRetention: 30 }), /'logRetention': did you mean logRetentionDays\?/);
    assert.match(failure({ Region: 'eu-west-1' }), /'Region': did you mean region\?/);
    assert.match(failure({ alarmTopic: 'x' }), /did you mean alarmTopicArn\?/);
  });

  it('list the known keys when nothing is close', () => {
    const message = failure({ vpcId: 'vpc-1' });
    assert.match(message, /unknown context key 'vpcId': the keys are account, region, /);
    for (const key of CONTEXT_KEYS) assert.ok(message.includes(key), key);
  });

  it('are all reported at once, with the bad values', () => {
    const message = failure({ eksClusterArn: 'x', verifierMaxConcurrency: 5000, removalPolicy: 'snapshot' });
    assert.match(message, /eksClusterArn/);
    assert.match(message, /context verifierMaxConcurrency: must be from 2 to 1000, got 5000/);
    assert.match(message, /context removalPolicy: must be retain or destroy, got "snapshot"/);
  });

  it("ignore CDK's own keys: feature flags, the CLI's settings, cached lookups", () => {
    const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
      context: Record<string, unknown>;
    };
    const app = new App({ context: cdkJson.context });
    const context = {
      ...(app.node.getAllContext() as Record<string, unknown>),
      // What the CDK CLI passes to every app (CDK_CONTEXT_JSON), and what cdk.context.json caches.
      'aws:cdk:enable-path-metadata': true,
      'aws:cdk:enable-asset-metadata': true,
      'aws:cdk:version-reporting': true,
      'aws:cdk:bundling-stacks': ['**'],
      '@aws-cdk/core:failSynthOnValidationErrors': false,
      'availability-zones:account=111111111111:region=eu-west-1': ['eu-west-1a'],
      'cdk-telemetry': false,
      region: 'eu-west-1',
    };
    assert.ok(Object.keys(context).length > 80, 'the recommended feature flags are among them');
    assert.equal(fromContext(context).props.env?.region, 'eu-west-1');
  });
});

describe('the app (infra/app.ts), as `cdk synth` runs it', () => {
  it('stops before synthesizing anything, with one line per problem and no stack trace', () => {
    const out = mkdtempSync(join(tmpdir(), 'pipeline-controller-context-'));
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        // How the CDK CLI hands an app its context and output directory.
        env: {
          ...process.env,
          CDK_OUTDIR: out,
          CDK_CONTEXT_JSON: JSON.stringify({
            'aws:cdk:bundling-stacks': [],
            region: 'eu-west-1',
            eksClusterArn: 'arn:aws:eks:eu-west-1:111111111111:cluster/prod',
            logRetentionDays: 45,
          }),
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /unknown context key 'eksClusterArn': did you mean eksClusterArns\?/);
      assert.match(result.stderr, /context logRetentionDays: must be a retention CloudWatch Logs accepts/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('invalid values', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a number that is not one', { retentionDays: 'ninety' }, /context retentionDays: must be a number/],
    ['a list that is not of strings', { eksClusterArns: [1, 2] }, /context eksClusterArns: must be a list of strings/],
    ['a list that is broken JSON', { assumeRoleArns: '["a",' }, /context assumeRoleArns: must be a list of strings/],
    ['a removal policy', { removalPolicy: 'snapshot' }, /context removalPolicy: must be retain or destroy/],
    [
      'a fractional concurrency',
      { receiverReservedConcurrency: '2.5' },
      /receiverReservedConcurrency: must be a whole/,
    ],
    ['a memory size over the maximum', { verifierMemorySize: 20000 }, /verifierMemorySize: must be from 128 to 10240/],
    ['an architecture', { architecture: 'arm' }, /context architecture: must be arm64 or x86_64, got "arm"/],
    ['a boolean', { tracing: 'yes' }, /context tracing: must be true or false/],
    ['a schedule', { pollSchedule: 'every 5 minutes' }, /context pollSchedule: must be a schedule expression/],
    ['an account', { account: '1234' }, /context account: must be a 12-digit AWS account id/],
    ['a region', { region: 'Ireland' }, /context region: must be an AWS region/],
    ['a stack name', { stackName: 'my_stack' }, /context stackName: must be a CloudFormation stack name/],
    [
      'a secret ARN without its suffix',
      { notifySlackSecretArn: 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:slack' },
      /context notifySlackSecretArn: must be the complete secret ARN/,
    ],
    [
      'an event bus ARN',
      { notifyEventBusArn: 'promotions' },
      /context notifyEventBusArn: must be an EventBridge bus ARN/,
    ],
    ['a topic ARN', { alarmTopicArn: 'alarms' }, /context alarmTopicArn: must be an SNS topic ARN/],
    ['a KMS key ARN', { encryptionKeyArn: 'alias/promotions' }, /context encryptionKeyArn: must be a KMS key ARN/],
    ['news kinds', { notifyNews: 'approval-waiting,merged' }, /context notifyNews: unknown "merged" \(known: /],
  ];
  for (const [what, context, message] of cases) {
    it(`fails on ${what}, naming the key`, () => assert.match(failure(context), message));
  }

  it('lists the retentions CloudWatch accepts when logRetentionDays is not one (cfn-lint E3030 otherwise)', () => {
    const message = failure({ logRetentionDays: '45' });
    assert.match(message, /context logRetentionDays: must be a retention CloudWatch Logs accepts: 1, 3, 5, 7, 14, 30/);
    assert.match(message, /3653 or infinite, got "45"/);
    assert.match(failure({ logRetentionDays: 'forever' }), /context logRetentionDays: must be a retention/);
  });

  it('does not repeat a URL, which may carry a token', () => {
    const message = failure({ notificationWebhookUrl: 'hooks.example.com/T0KEN-in-the-path' });
    assert.match(message, /context notificationWebhookUrl: must be an http\(s\) URL/);
    assert.ok(!message.includes('T0KEN'), message);
    assert.match(
      failure({ githubApiUrl: 'ftp://github.example.com' }),
      /context githubApiUrl: must be an http\(s\) URL/,
    );
  });
});
