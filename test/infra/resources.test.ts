// The PipelineController's resources and their settings (infra/README.md), read from the synthesized template.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import { readAwsEnvironment } from '../../lib/runtime/aws.js';
import { TABLE_SCHEMA } from '../../lib/store/index.js';
import { DEFAULT_CLUSTER_OUTPUT, OUTPUTS } from '../../infra/stack.js';
import { ACCOUNT, importedVpc, REGION, resources, synth, synthConstruct } from './synth.js';

const base = synth();
const { template } = base;
const controller = base.stack.controller;
const ids = {
  receiver: base.logicalId(controller.receiver),
  verifier: base.logicalId(controller.verifier),
  poller: base.logicalId(controller.poller),
  table: base.logicalId(controller.table),
  queue: base.logicalId(controller.queue),
  deadLetterQueue: base.logicalId(controller.deadLetterQueue),
  secret: base.logicalId(controller.masterKeySecret),
};
const functionProps = (template: typeof base.template, id: string) => {
  const fn = resources(template, 'AWS::Lambda::Function')[id];
  assert.ok(fn, `function ${id}`);
  return fn.Properties;
};
const environmentOf = (template: typeof base.template, id: string) =>
  (functionProps(template, id).Environment as { Variables: Record<string, unknown> }).Variables;

describe('table', () => {
  it('is on demand, with PITR, the TTL attribute, SSE and the gsi1 index of lib/store', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
      SSESpecification: { SSEEnabled: true },
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE_SCHEMA.index,
          KeySchema: [
            { AttributeName: TABLE_SCHEMA.indexPartitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE_SCHEMA.indexSortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('is retained, with deletion protection, by default; the removal policy prop changes both', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    const destroy = synth({ controller: { removalPolicy: RemovalPolicy.DESTROY } }).template;
    destroy.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    destroy.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
    for (const group of Object.values(destroy.findResources('AWS::Logs::LogGroup'))) {
      assert.equal((group as { DeletionPolicy: string }).DeletionPolicy, 'Delete');
    }
  });
});

describe('queues', () => {
  const queues = resources(template, 'AWS::SQS::Queue');
  const queue = queues[ids.queue]!.Properties;
  const deadLetterQueue = queues[ids.deadLetterQueue]!.Properties;

  it('both are encrypted and accept only TLS', () => {
    assert.equal(Object.keys(queues).length, 2);
    for (const properties of [queue, deadLetterQueue]) assert.equal(properties.SqsManagedSseEnabled, true);
    for (const id of [ids.queue, ids.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('the queue redrives to the DLQ after 5 receives', () => {
    assert.deepEqual(queue.RedrivePolicy, {
      deadLetterTargetArn: { 'Fn::GetAtt': [ids.deadLetterQueue, 'Arn'] },
      maxReceiveCount: 5,
    });
    assert.equal(deadLetterQueue.MessageRetentionPeriod, Duration.days(14).toSeconds());
  });

  it('the visibility timeout is at least 6× the verifier timeout', () => {
    const verifierTimeout = functionProps(template, ids.verifier).Timeout as number;
    assert.equal(verifierTimeout, 60);
    assert.ok((queue.VisibilityTimeout as number) >= 6 * verifierTimeout, `${String(queue.VisibilityTimeout)}`);
    assert.equal(queue.VisibilityTimeout, 360);
  });
});

describe('functions', () => {
  it('run nodejs22.x on arm64, without NODE_OPTIONS, with their own log group', () => {
    const functions = resources(template, 'AWS::Lambda::Function');
    assert.deepEqual(Object.keys(functions).sort(), [ids.poller, ids.receiver, ids.verifier].sort());
    for (const fn of Object.values(functions)) {
      const properties = fn.Properties;
      assert.equal(properties.Runtime, 'nodejs22.x');
      assert.deepEqual(properties.Architectures, ['arm64']);
      assert.equal(properties.Handler, 'index.handler');
      // Stack traces are mapped by the bundle itself, when one is formatted (lib/runtime/stack-traces.ts): Node's
      // --enable-source-maps would read every map at each cold start.
      assert.equal(
        (properties.Environment as { Variables: Record<string, unknown> }).Variables.NODE_OPTIONS,
        undefined,
      );
      const logGroup = (properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      assert.equal(
        resources(template, 'AWS::Logs::LogGroup')[logGroup]?.Properties.RetentionInDays,
        logs.RetentionDays.ONE_MONTH,
      );
    }
    const retention = synth({ controller: { logRetention: logs.RetentionDays.ONE_WEEK } }).template;
    for (const group of Object.values(resources(retention, 'AWS::Logs::LogGroup'))) {
      assert.equal(group.Properties.RetentionInDays, 7);
    }
  });

  it('only the receiver has reserved concurrency (default 20, a prop)', () => {
    assert.equal(functionProps(template, ids.receiver).ReservedConcurrentExecutions, 20);
    assert.equal(functionProps(template, ids.verifier).ReservedConcurrentExecutions, undefined);
    assert.equal(functionProps(template, ids.poller).ReservedConcurrentExecutions, undefined);
    const custom = synth({ controller: { receiverReservedConcurrency: 5 } });
    assert.equal(functionProps(custom.template, ids.receiver).ReservedConcurrentExecutions, 5);
  });

  it('the receiver has a function URL with auth NONE (the HMAC is checked in code)', () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [ids.receiver, 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionName: { 'Fn::GetAtt': [ids.receiver, 'Arn'] },
      FunctionUrlAuthType: 'NONE',
      Principal: '*',
    });
  });

  it('the verifier consumes the queue in batches, reporting item failures, with a maximum concurrency', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      FunctionName: { Ref: ids.verifier },
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    synth({ controller: { verifierMaxConcurrency: 50 } }).template.hasResourceProperties(
      'AWS::Lambda::EventSourceMapping',
      { ScalingConfig: { MaximumConcurrency: 50 } },
    );
  });

  it('the poller runs on an EventBridge schedule, every 5 minutes by default', () => {
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.poller, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [ids.poller, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    const hourly = synth({ controller: { pollSchedule: events.Schedule.rate(Duration.hours(1)) } });
    hourly.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });
});

describe('function environment', () => {
  const RUNTIME_VARIABLES = [
    'TABLE_NAME',
    'QUEUE_URL',
    'DEAD_LETTER_QUEUE_URL',
    'MASTER_KEY_SECRET_ID',
    'SECRETS_PREFIX',
    'RETENTION_DAYS',
  ];
  /** What a deployed function would see: references replaced by values of the right shape. */
  const deployed = (variables: Record<string, unknown>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(variables).map(([name, value]) => [
        name,
        typeof value === 'string'
          ? value
          : name.endsWith('_URL')
            ? `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/queue`
            : `arn:aws:service:${REGION}:${ACCOUNT}:thing`,
      ]),
    );

  it('every function gets exactly the variables lib/runtime/aws.ts reads, and they validate', () => {
    for (const id of [ids.receiver, ids.verifier, ids.poller]) {
      const variables = environmentOf(template, id);
      assert.deepEqual(
        Object.keys(variables).sort(),
        [...RUNTIME_VARIABLES, 'POWERTOOLS_METRICS_NAMESPACE'].sort(),
        id,
      );
      assert.deepEqual(variables.TABLE_NAME, { Ref: ids.table });
      assert.deepEqual(variables.QUEUE_URL, { Ref: ids.queue });
      assert.deepEqual(variables.DEAD_LETTER_QUEUE_URL, { Ref: ids.deadLetterQueue });
      assert.deepEqual(variables.MASTER_KEY_SECRET_ID, { Ref: ids.secret });
      assert.equal(variables.SECRETS_PREFIX, 'pipeline-controller/');
      assert.equal(variables.RETENTION_DAYS, '90');
      const environment = readAwsEnvironment(deployed(variables));
      assert.equal(environment.RETENTION_DAYS, 90);
    }
  });

  it('the optional settings reach the verifier (notification, Git hosts); the default cluster is a stack output', () => {
    const full = synth({
      controller: {
        defaultCluster: 'flux-system/management',
        githubApiUrl: 'https://github.example.com/api/v3',
        gitlabApiUrl: 'https://gitlab.example.com/api/v4',
        bitbucketServerApiUrl: 'https://bitbucket.example.com',
        azureDevOpsApiUrl: 'https://ado.example.com/tfs/Fleet',
        secretsPrefix: 'pc/',
        retentionDays: 30,
      },
      notificationWebhookUrl: 'https://hooks.example.com/promotions',
      notificationWebhookSecretArn: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:hooks-AbCdEf`,
      notificationEventBusArn: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/promotions`,
    });
    const verifier = environmentOf(full.template, ids.verifier);
    assert.equal(verifier.GITHUB_API_URL, 'https://github.example.com/api/v3');
    assert.equal(verifier.GITLAB_API_URL, 'https://gitlab.example.com/api/v4');
    assert.equal(verifier.BITBUCKET_SERVER_API_URL, 'https://bitbucket.example.com');
    assert.equal(verifier.AZURE_DEVOPS_API_URL, 'https://ado.example.com/tfs/Fleet');
    assert.equal(verifier.NOTIFICATION_WEBHOOK_URL, 'https://hooks.example.com/promotions');
    assert.equal(
      verifier.NOTIFICATION_WEBHOOK_SECRET_ID,
      `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:hooks-AbCdEf`,
    );
    assert.equal(verifier.NOTIFICATION_EVENT_BUS, `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/promotions`);
    const environment = readAwsEnvironment(deployed(verifier));
    assert.equal(environment.SECRETS_PREFIX, 'pc/');
    assert.equal(environment.RETENTION_DAYS, 30);
    for (const id of [ids.receiver, ids.poller]) {
      const variables = environmentOf(full.template, id);
      assert.deepEqual(
        Object.keys(variables).sort(),
        [...RUNTIME_VARIABLES, 'POWERTOOLS_METRICS_NAMESPACE'].sort(),
        `${id} gets no verifier-only variable, and no default cluster (only pipelinectl apply resolves targets)`,
      );
    }
    assert.ok(!('DEFAULT_CLUSTER' in verifier), 'no function reads a default cluster');
    full.template.hasOutput(DEFAULT_CLUSTER_OUTPUT, { Value: 'flux-system/management' });
  });
});

describe('master key secret', () => {
  it('is generated as {"current": <48 characters>}, retained by default', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        GenerateSecretString: {
          SecretStringTemplate: '{}',
          GenerateStringKey: 'current',
          ExcludePunctuation: true,
          PasswordLength: 48,
        },
      }),
    });
  });
});

describe('VPC', () => {
  it('is off by default', () => {
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    for (const id of [ids.receiver, ids.verifier, ids.poller]) {
      assert.equal(functionProps(template, id).VpcConfig, undefined);
    }
  });

  it('puts only the verifier in the given subnets, with its own security group and no inbound rule', () => {
    const withVpc = synthConstruct((stack) => ({ vpc: importedVpc(stack) }));
    const group = withVpc.controller.verifierSecurityGroup;
    assert.ok(group);
    const groupId = withVpc.logicalId(group);
    withVpc.template.resourceCountIs('AWS::EC2::SecurityGroup', 1);
    withVpc.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      VpcId: 'vpc-0123456789abcdef0',
      SecurityGroupEgress: [Match.objectLike({ CidrIp: '0.0.0.0/0' })],
      SecurityGroupIngress: Match.absent(),
    });
    const verifierId = withVpc.logicalId(withVpc.controller.verifier);
    for (const [id, fn] of Object.entries(resources(withVpc.template, 'AWS::Lambda::Function'))) {
      if (id !== verifierId) {
        assert.equal(fn.Properties.VpcConfig, undefined, id);
        continue;
      }
      assert.deepEqual(fn.Properties.VpcConfig, {
        SecurityGroupIds: [{ 'Fn::GetAtt': [groupId, 'GroupId'] }],
        SubnetIds: ['subnet-0aaaaaaaaaaaaaaaa', 'subnet-0bbbbbbbbbbbbbbbb'],
      });
    }
  });
});

describe('outputs', () => {
  it('name the function URL, the table, both queues, the master key secret and the verifier role', () => {
    assert.deepEqual(
      Object.keys(template.findOutputs('*')).sort(),
      [...OUTPUTS].sort(),
      'no DefaultCluster unless set',
    );
    template.hasOutput('ReceiverUrl', {
      Value: { 'Fn::GetAtt': [base.logicalId(controller.receiverUrl), 'FunctionUrl'] },
    });
    template.hasOutput('TableName', { Value: { Ref: ids.table } });
    template.hasOutput('QueueUrl', { Value: { Ref: ids.queue } });
    template.hasOutput('DeadLetterQueueUrl', { Value: { Ref: ids.deadLetterQueue } });
    template.hasOutput('MasterKeySecretArn', { Value: { Ref: ids.secret } });
    template.hasOutput('VerifierRoleArn', {
      Value: { 'Fn::GetAtt': [base.logicalId(controller.roles.verifier), 'Arn'] },
    });
  });
});

describe('props validation', () => {
  const cases: [string, Parameters<typeof synth>[0], RegExp][] = [
    ['a default cluster without a namespace', { controller: { defaultCluster: 'management' } }, /defaultCluster/],
    ['a maximum concurrency below 2', { controller: { verifierMaxConcurrency: 1 } }, /verifierMaxConcurrency/],
    ['no reserved concurrency', { controller: { receiverReservedConcurrency: 0 } }, /receiverReservedConcurrency/],
    ['a fractional retention', { controller: { retentionDays: 1.5 } }, /retentionDays/],
    ['a wildcard prefix', { controller: { secretsPrefix: 'pipeline-*' } }, /secretsPrefix/],
    ['an EKS ARN that is not one', { controller: { eksClusterArns: ['prod'] } }, /eksClusterArns/],
    ['a role ARN that is not one', { controller: { assumeRoleArns: ['arn:aws:iam::1:user/x'] } }, /assumeRoleArns/],
  ];
  for (const [name, props, message] of cases) {
    it(`rejects ${name}`, () => assert.throws(() => synth(props), message));
  }
});
