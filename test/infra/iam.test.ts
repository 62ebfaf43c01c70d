// Least privilege: each function's role holds only the actions its code calls, on its own resources. Checked on a
// stack with every option on (EKS clusters, roles, notification sinks, VPC, alarm topic), so every statement the
// construct can write is covered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import {
  ACCOUNT,
  asList,
  importedVpc,
  REGION,
  render,
  resources,
  statementsOfRole,
  synthConstruct,
  type Statement,
} from './synth.js';

const EKS_CLUSTER = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/prod`;
const CLUSTER_ROLE = `arn:aws:iam::${ACCOUNT}:role/pipeline-controller-reader`;
const WEBHOOK_SECRET = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:hooks-AbCdEf`;
const EVENT_BUS = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/promotions`;
const ALARMS = [
  `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:podinfo-5xx`,
  `arn:aws:cloudwatch:${REGION}:${ACCOUNT}:alarm:podinfo-p99`,
];
const WORKSPACE = `arn:aws:aps:${REGION}:${ACCOUNT}:workspace/ws-1234`;

const full = synthConstruct((stack) => ({
  eksClusterArns: [EKS_CLUSTER],
  assumeRoleArns: [CLUSTER_ROLE],
  verification: { cloudwatchAlarmArns: ALARMS, prometheusWorkspaceArns: [WORKSPACE] },
  vpc: importedVpc(stack),
  alarmTopic: Topic.fromTopicArn(stack, 'Topic', `arn:aws:sns:${REGION}:${ACCOUNT}:alarms`),
  notification: {
    webhookUrl: 'https://hooks.example.com/promotions',
    webhookSecret: Secret.fromSecretCompleteArn(stack, 'WebhookSecret', WEBHOOK_SECRET),
    eventBus: EventBus.fromEventBusArn(stack, 'Bus', EVENT_BUS),
  },
}));
const { template, controller } = full;
const id = {
  table: full.logicalId(controller.table),
  queue: full.logicalId(controller.queue),
  deadLetterQueue: full.logicalId(controller.deadLetterQueue),
  secret: full.logicalId(controller.masterKeySecret),
};
const statementsOf = (name: 'receiver' | 'verifier' | 'poller'): Statement[] =>
  statementsOfRole(template, full.logicalId(controller.roles[name]));
const actionsOf = (statements: Statement[]): string[] =>
  [...new Set(statements.flatMap((s) => asList(s.Action)))].sort();
const resourcesOf = (statements: Statement[], action: string): string[] =>
  statements.filter((s) => asList(s.Action).includes(action)).flatMap((s) => asList(s.Resource).map(render));

const SECRETS_PATTERN =
  'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:pipeline-controller/*';
const ENI_PATTERN = 'arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:*/*';

/**
 * The only resources with a wildcard, each with why. `*` itself only for the actions that have no resource-level
 * permissions.
 */
const WILDCARD_RESOURCES: Record<string, { reason: string; actions?: readonly string[] }> = {
  [SECRETS_PATTERN]: { reason: 'configuration Secrets are named <prefix><ns>/<name> at apply time' },
  [ENI_PATTERN]: { reason: "the verifier's VPC network interfaces do not exist at deploy time" },
  '*': {
    reason: 'ec2:DescribeNetworkInterfaces and ec2:DescribeSubnets have no resource-level permissions',
    actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
  },
};

describe('every IAM policy', () => {
  const policies = resources(template, 'AWS::IAM::Policy');
  const statements = Object.values(policies).flatMap(
    (policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement,
  );

  it('has one policy per function role and no managed policies on any role', () => {
    assert.equal(Object.keys(policies).length, 3);
    for (const role of Object.values(resources(template, 'AWS::IAM::Role'))) {
      assert.equal(role.Properties.ManagedPolicyArns, undefined);
    }
  });

  it('allows only, and names every action: no `*` and no `service:*`', () => {
    assert.ok(statements.length > 10);
    for (const statement of statements) {
      assert.equal(statement.Effect, 'Allow');
      for (const action of asList(statement.Action)) {
        assert.match(action, /^[a-z0-9-]+:[A-Za-z]+$/, `action ${action}`);
      }
    }
  });

  it('scopes every resource; the wildcards are the listed ones, `*` only for actions without resource scoping', () => {
    const seen = new Set<string>();
    for (const statement of statements) {
      for (const resource of asList(statement.Resource).map(render)) {
        if (!resource.includes('*')) continue;
        const allowed = WILDCARD_RESOURCES[resource];
        assert.ok(allowed, `unexpected wildcard resource ${resource} for ${asList(statement.Action).join(', ')}`);
        if (allowed.actions) assert.deepEqual(asList(statement.Action).sort(), [...allowed.actions].sort());
        seen.add(resource);
      }
    }
    assert.deepEqual([...seen].sort(), Object.keys(WILDCARD_RESOURCES).sort());
  });
});

describe('the receiver', () => {
  const statements = statementsOf('receiver');

  it('may read and update the table, append audit entries, enqueue, write its logs and read secrets, nothing else', () => {
    assert.deepEqual(actionsOf(statements), [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
    ]);
    assert.deepEqual(resourcesOf(statements, 'dynamodb:Query'), [`<${id.table}.Arn>`]);
    assert.deepEqual(resourcesOf(statements, 'sqs:SendMessage'), [`<${id.queue}.Arn>`]);
    const append = statements.find((statement) => asList(statement.Action).includes('dynamodb:PutItem'));
    assert.deepEqual(append?.Condition, { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } });
  });

  it('cannot reach clusters: no eks, sts or ec2 action', () => {
    assert.ok(actionsOf(statements).every((action) => !/^(eks|sts|ec2|events):/.test(action)));
  });

  it("reads the master key, and under the prefix only webhook HMAC keys and ConfigSources' Secrets, by their tag", () => {
    const reads = statements.filter((s) => asList(s.Action).includes('secretsmanager:GetSecretValue'));
    assert.equal(reads.length, 2);
    for (const statement of reads) {
      const resource = asList(statement.Resource).map(render);
      if (resource.length === 1 && resource[0] === `<${id.secret}>`) {
        assert.equal(statement.Condition, undefined);
        continue;
      }
      assert.deepEqual(resource, [SECRETS_PATTERN]);
      // Either value: a Pipeline's webhook HMAC Secret, or a ConfigSource's Secret (its push webhooks' secret);
      // never a kubeconfig or a pull request's Git token, tagged kubeconfig and git-credentials.
      assert.deepEqual(statement.Condition, {
        StringEquals: { 'secretsmanager:ResourceTag/pipeline-controller:purpose': ['webhook-hmac', 'config-source'] },
      });
    }
  });
});

describe('the verifier', () => {
  const statements = statementsOf('verifier');

  it('gets the store, the queues, the configuration secrets, the clusters, the checks, the sinks and its VPC network', () => {
    assert.deepEqual(actionsOf(statements), [
      'aps:QueryMetrics',
      'cloudwatch:DescribeAlarms',
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'ec2:AssignPrivateIpAddresses',
      'ec2:CreateNetworkInterface',
      'ec2:DeleteNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:UnassignPrivateIpAddresses',
      'eks:DescribeCluster',
      'events:PutEvents',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
      'sts:AssumeRole',
    ]);
  });

  it('scopes each of them', () => {
    assert.deepEqual(resourcesOf(statements, 'dynamodb:PutItem'), [`<${id.table}.Arn>`]);
    // What a ConfigSource's sync applies: a pipeline's apps index entries, in batches.
    assert.deepEqual(resourcesOf(statements, 'dynamodb:BatchWriteItem'), [`<${id.table}.Arn>`]);
    // A ConfigSource's sync lists the stored objects through the index, as `apply` does; nothing else reads it.
    assert.deepEqual(resourcesOf(statements, 'dynamodb:Query').sort(), [
      `<${id.table}.Arn>`,
      `<${id.table}.Arn>/index/gsi1`,
    ]);
    assert.deepEqual(resourcesOf(statements, 'sqs:ReceiveMessage'), [`<${id.queue}.Arn>`]);
    assert.deepEqual(resourcesOf(statements, 'sqs:SendMessage').sort(), [
      `<${id.deadLetterQueue}.Arn>`,
      `<${id.queue}.Arn>`,
    ]);
    assert.deepEqual(resourcesOf(statements, 'eks:DescribeCluster'), [EKS_CLUSTER]);
    assert.deepEqual(resourcesOf(statements, 'sts:AssumeRole'), [CLUSTER_ROLE]);
    assert.deepEqual(resourcesOf(statements, 'events:PutEvents'), [EVENT_BUS]);
    assert.deepEqual(resourcesOf(statements, 'cloudwatch:DescribeAlarms'), ALARMS);
    assert.deepEqual(resourcesOf(statements, 'aps:QueryMetrics'), [WORKSPACE]);
    assert.deepEqual(resourcesOf(statements, 'secretsmanager:GetSecretValue').sort(), [
      SECRETS_PATTERN,
      WEBHOOK_SECRET,
    ]);
    assert.ok(!resourcesOf(statements, 'secretsmanager:GetSecretValue').includes(`<${id.secret}>`), 'no master key');
  });
});

describe('the verifier by default', () => {
  it('gets sts:AssumeRole only with roles listed, and no eks, sts, events or ec2 action without any option', () => {
    const withRoles = synthConstruct(() => ({ assumeRoleArns: [CLUSTER_ROLE] }));
    const statements = statementsOfRole(withRoles.template, withRoles.logicalId(withRoles.controller.roles.verifier));
    assert.deepEqual(resourcesOf(statements, 'sts:AssumeRole'), [CLUSTER_ROLE]);
    assert.deepEqual(resourcesOf(statements, 'eks:DescribeCluster'), []);

    const plain = synthConstruct(() => ({}));
    const plainStatements = statementsOfRole(plain.template, plain.logicalId(plain.controller.roles.verifier));
    assert.ok(actionsOf(plainStatements).every((action) => !/^(eks|sts|ec2|events):/.test(action)));
  });
});

describe('the verifier and the verification checks', () => {
  const verifierStatements = (synthesized: ReturnType<typeof synthConstruct>) =>
    statementsOfRole(synthesized.template, synthesized.logicalId(synthesized.controller.roles.verifier));

  it('may read no alarm and query no workspace unless they are listed', () => {
    for (const props of [{}, { verification: {} }, { verification: { cloudwatchAlarmArns: [] } }]) {
      const actions = actionsOf(verifierStatements(synthConstruct(() => props)));
      assert.ok(
        actions.every((action) => !/^(cloudwatch|aps):/.test(action)),
        JSON.stringify(props),
      );
    }
  });

  it('gets exactly cloudwatch:DescribeAlarms on the alarms listed, and aps:QueryMetrics on the workspaces', () => {
    const alarmsOnly = verifierStatements(synthConstruct(() => ({ verification: { cloudwatchAlarmArns: ALARMS } })));
    const reading = alarmsOnly.filter((s) => asList(s.Action).some((action) => /^(cloudwatch|aps):/.test(action)));
    assert.deepEqual(
      reading.map((s) => [asList(s.Action), asList(s.Resource).map(render)]),
      [[['cloudwatch:DescribeAlarms'], ALARMS]],
    );

    const workspaceOnly = verifierStatements(
      synthConstruct(() => ({ verification: { prometheusWorkspaceArns: [WORKSPACE] } })),
    );
    const querying = workspaceOnly.filter((s) => asList(s.Action).some((action) => /^(cloudwatch|aps):/.test(action)));
    assert.deepEqual(
      querying.map((s) => [asList(s.Action), asList(s.Resource).map(render)]),
      [[['aps:QueryMetrics'], [WORKSPACE]]],
    );
  });

  it('grants the other roles neither', () => {
    for (const name of ['receiver', 'poller'] as const) {
      assert.ok(
        actionsOf(statementsOf(name)).every((action) => !/^(cloudwatch|aps):/.test(action)),
        name,
      );
    }
  });

  it('refuses what is not an alarm or a workspace ARN', () => {
    assert.throws(
      () => synthConstruct(() => ({ verification: { cloudwatchAlarmArns: ['podinfo-5xx'] } })),
      /verification\.cloudwatchAlarmArns: 'podinfo-5xx' is not a CloudWatch alarm ARN/,
    );
    assert.throws(
      () =>
        synthConstruct(() => ({
          verification: { prometheusWorkspaceArns: [`arn:aws:aps:${REGION}:${ACCOUNT}:rulegroupsnamespace/ws-1/x`] },
        })),
      /verification\.prometheusWorkspaceArns/,
    );
  });
});

describe('the poller', () => {
  it('may query the table and its index (the clusters and sources are listed there), enqueue and write its logs', () => {
    const statements = statementsOf('poller');
    assert.deepEqual(actionsOf(statements), [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'sqs:SendMessage',
    ]);
    assert.deepEqual(resourcesOf(statements, 'dynamodb:Query'), [`<${id.table}.Arn>`, `<${id.table}.Arn>/index/gsi1`]);
    // The configuration generation and the poll plan only: the CONFIG partition.
    for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem']) {
      const [statement] = statements.filter((each) => asList(each.Action).includes(action));
      assert.deepEqual(statement?.Condition, {
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CONFIG'] },
      });
    }
    assert.deepEqual(resourcesOf(statements, 'sqs:SendMessage'), [`<${id.queue}.Arn>`]);
  });
});

describe('logs', () => {
  it('each function writes only to its own log group', () => {
    for (const name of ['receiver', 'verifier', 'poller'] as const) {
      const fn = resources(template, 'AWS::Lambda::Function')[full.logicalId(controller[name])];
      const group = (fn?.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      assert.deepEqual(resourcesOf(statementsOf(name), 'logs:PutLogEvents'), [`<${group}.Arn>`]);
    }
  });
});
