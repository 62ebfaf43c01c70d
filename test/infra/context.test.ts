// infra/context.ts: CDK context (`-c key=value` strings or cdk.json JSON) → the stack's props.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RemovalPolicy } from 'aws-cdk-lib';
import { DEFAULT_STACK_NAME, settingsFromContext } from '../../infra/context.js';

const fromContext = (context: Record<string, unknown>, env: Record<string, string> = {}) =>
  settingsFromContext((key) => context[key], env);

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
    assert.throws(() => fromContext({ eksClusterArns: [1, 2] }), /list of strings/);
    assert.throws(() => fromContext({ retentionDays: 'ninety' }), /retentionDays must be a number/);
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
    assert.throws(() => fromContext({ removalPolicy: 'snapshot' }), /retain or destroy/);
  });
});
