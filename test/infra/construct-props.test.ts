// The construct's knobs (infra/README.md, "Props of PipelineController"): memory, architecture, tracing, log
// retention, alarm actions, a table and queue of the user's own, and the metric helpers, read from the template.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { EVENT_REJECTIONS } from '../../lib/http/event-outcome.js';
import { METRIC_NAMESPACE } from '../../lib/observability/metric-names.js';
import type { PipelineControllerProps } from '../../infra/pipeline-controller.js';
import {
  ACCOUNT,
  asList,
  importedVpc,
  REGION,
  resources,
  statementsOfRole,
  synthConstruct,
  type SynthesizedConstruct,
} from './synth.js';

type FunctionProperties = Record<string, unknown> & { Environment: { Variables: Record<string, unknown> } };

function functionsOf(
  synthesized: SynthesizedConstruct,
): Record<'receiver' | 'verifier' | 'poller', FunctionProperties> {
  const all = resources(synthesized.template, 'AWS::Lambda::Function');
  const of = (fn: lambda.IFunction) => all[synthesized.logicalId(fn)]?.Properties as FunctionProperties;
  const { controller } = synthesized;
  return { receiver: of(controller.receiver), verifier: of(controller.verifier), poller: of(controller.poller) };
}

/** A table with lib/store's schema, as a user would define it; `change` breaks one thing. */
function ownTable(stack: Stack, change: { sortKey?: string; index?: boolean; ttl?: boolean } = {}): dynamodb.Table {
  const table = new dynamodb.Table(stack, 'OwnTable', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: change.sortKey ?? 'sk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    ...(change.ttl !== false && { timeToLiveAttribute: 'expiresAt' }),
  });
  if (change.index !== false) {
    table.addGlobalSecondaryIndex({
      indexName: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'gsi1sk', type: dynamodb.AttributeType.STRING },
    });
  }
  return table;
}

/** A queue as the README asks for one, redriving to its own dead-letter queue. */
function ownQueue(stack: Stack, visibilityTimeout = Duration.seconds(360)): sqs.Queue {
  const deadLetterQueue = new sqs.Queue(stack, 'OwnDeadLetters', { enforceSSL: true });
  return new sqs.Queue(stack, 'OwnQueue', {
    enforceSSL: true,
    visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: 5 },
  });
}

const rejects = (props: (stack: Stack) => PipelineControllerProps, message: RegExp) =>
  assert.throws(() => synthConstruct(props), message);

describe('memory, architecture and tracing', () => {
  it('default to 512/1024/256 MB on arm64, without tracing', () => {
    const functions = functionsOf(synthConstruct(() => ({})));
    assert.equal(functions.receiver.MemorySize, 512);
    assert.equal(functions.verifier.MemorySize, 1024);
    assert.equal(functions.poller.MemorySize, 256);
    for (const fn of Object.values(functions)) {
      assert.deepEqual(fn.Architectures, ['arm64']);
      assert.equal(fn.TracingConfig, undefined);
      assert.equal(fn.Environment.Variables.POWERTOOLS_TRACE_ENABLED, undefined);
    }
  });

  it('follow the props: memory per function, x86_64, X-Ray active tracing with Powertools told so', () => {
    const synthesized = synthConstruct(() => ({
      memorySize: { verifier: 2048 },
      architecture: lambda.Architecture.X86_64,
      tracing: true,
    }));
    const functions = functionsOf(synthesized);
    assert.equal(functions.receiver.MemorySize, 512, 'the others keep their defaults');
    assert.equal(functions.verifier.MemorySize, 2048);
    for (const [name, fn] of Object.entries(functions)) {
      assert.deepEqual(fn.Architectures, ['x86_64'], name);
      assert.deepEqual(fn.TracingConfig, { Mode: 'Active' }, name);
      assert.equal(fn.Environment.Variables.POWERTOOLS_TRACE_ENABLED, 'true', name);
    }
    for (const role of Object.values(synthesized.controller.roles)) {
      const statements = statementsOfRole(synthesized.template, synthesized.logicalId(role));
      const xray = statements.filter((s) => asList(s.Action).some((action) => action.startsWith('xray:')));
      assert.equal(xray.length, 1);
      assert.deepEqual(asList(xray[0]?.Action).sort(), ['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('keep cdk-nag clean with tracing on, with and without a VPC (the wildcard is explained)', () => {
    for (const vpc of [false, true]) {
      const { app } = synthConstruct((stack) => ({ tracing: true, ...(vpc && { vpc: importedVpc(stack) }) }), {
        nag: true,
      });
      assert.doesNotThrow(() => app.synth({ force: true }), `vpc: ${vpc}`);
    }
  });

  it('refuse a memory size Lambda does not accept, naming the prop', () => {
    rejects(() => ({ memorySize: { poller: 64 } }), /memorySize\.poller must be an integer from 128 to 10240/);
    rejects(() => ({ memorySize: { receiver: 20000 } }), /memorySize\.receiver/);
    rejects(() => ({ verifierMaxConcurrency: 1001 }), /verifierMaxConcurrency must be an integer from 2 to 1000/);
  });
});

describe('log retention', () => {
  it('is checked at synth against the values CloudWatch accepts, which the error lists', () => {
    rejects(
      () => ({ logRetention: 45 as logs.RetentionDays }),
      /logRetention must be a retention CloudWatch Logs accepts.*got 45; allowed: 1, 3, 5, 7, 14, 30, 60, 90, .*3653 or infinite/,
    );
  });

  it('may be infinite: the log groups then have no retention', () => {
    const forever = synthConstruct(() => ({ logRetention: logs.RetentionDays.INFINITE }));
    const groups = Object.values(resources(forever.template, 'AWS::Logs::LogGroup'));
    assert.equal(groups.length, 3);
    for (const group of groups) assert.equal(group.Properties?.RetentionInDays, undefined);
  });
});

describe('Git host and notification URLs', () => {
  it('must be http(s) URLs, and a bad one is not repeated in the error', () => {
    rejects(() => ({ githubApiUrl: 'github.example.com/api/v3' }), /githubApiUrl must be an http\(s\) URL/);
    assert.throws(
      () => synthConstruct(() => ({ notification: { webhookUrl: 'hooks.example.com/s3cr3t' } })),
      (error: Error) =>
        /notification\.webhookUrl must be an http\(s\) URL/.test(error.message) && !error.message.includes('s3cr3t'),
    );
  });
});

describe('alarm actions', () => {
  it('run the user’s own actions on ALARM, beside the topic on ALARM and OK', () => {
    const topic = `arn:aws:sns:${REGION}:${ACCOUNT}:alarms`;
    const pager = `arn:aws:sns:${REGION}:${ACCOUNT}:pager`;
    const synthesized = synthConstruct((stack) => ({
      alarmTopic: Topic.fromTopicArn(stack, 'Topic', topic),
      alarmActions: [new SnsAction(Topic.fromTopicArn(stack, 'Pager', pager))],
    }));
    const alarms = Object.values(resources(synthesized.template, 'AWS::CloudWatch::Alarm'));
    assert.equal(alarms.length, 7);
    for (const alarm of alarms) {
      assert.deepEqual(alarm.Properties.AlarmActions, [topic, pager]);
      assert.deepEqual(alarm.Properties.OKActions, [topic]);
    }
  });
});

describe('a table and a queue of the user’s own', () => {
  const own = synthConstruct((stack) => ({ table: ownTable(stack), queue: ownQueue(stack) }));

  it('replace the construct’s: one table, two queues, and the functions use them', () => {
    own.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    own.template.resourceCountIs('AWS::SQS::Queue', 2);
    const ids = {
      table: own.logicalId(own.stack.node.findChild('OwnTable')),
      queue: own.logicalId(own.stack.node.findChild('OwnQueue')),
      deadLetters: own.logicalId(own.stack.node.findChild('OwnDeadLetters')),
    };
    for (const fn of Object.values(functionsOf(own))) {
      assert.deepEqual(fn.Environment.Variables.TABLE_NAME, { Ref: ids.table });
      assert.deepEqual(fn.Environment.Variables.QUEUE_URL, { Ref: ids.queue });
      assert.deepEqual(fn.Environment.Variables.DEAD_LETTER_QUEUE_URL, { Ref: ids.deadLetters });
    }
    own.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
    });
  });

  it('may be imported, the dead-letter queue then named', () => {
    const imported = synthConstruct((stack) => ({
      table: dynamodb.Table.fromTableName(stack, 'Table', 'promotions'),
      queue: sqs.Queue.fromQueueArn(stack, 'Queue', `arn:aws:sqs:${REGION}:${ACCOUNT}:work`),
      deadLetterQueue: sqs.Queue.fromQueueArn(stack, 'Dlq', `arn:aws:sqs:${REGION}:${ACCOUNT}:work-dlq`),
    }));
    imported.template.resourceCountIs('AWS::DynamoDB::Table', 0);
    imported.template.resourceCountIs('AWS::SQS::Queue', 0);
    assert.equal(functionsOf(imported).verifier.Environment.Variables.TABLE_NAME, 'promotions');
  });

  const cases: [string, (stack: Stack) => PipelineControllerProps, RegExp][] = [
    [
      'a table with other keys',
      (s) => ({ table: ownTable(s, { sortKey: 'id' }) }),
      /the key must be pk \(partition\) and sk \(sort\)/,
    ],
    [
      'a table without the index',
      (s) => ({ table: ownTable(s, { index: false }) }),
      /needs the global secondary index gsi1/,
    ],
    ['a table without TTL', (s) => ({ table: ownTable(s, { ttl: false }) }), /needs TTL on expiresAt/],
    [
      'a queue hidden for less than the verifier runs',
      (s) => ({ queue: ownQueue(s, Duration.seconds(30)) }),
      /visibility timeout \(30 s\) must be at least the verifier's timeout \(60 s\)/,
    ],
    [
      'a FIFO queue',
      (s) => ({
        queue: new sqs.Queue(s, 'Fifo', {
          fifo: true,
          deadLetterQueue: { queue: new sqs.Queue(s, 'FifoDlq', { fifo: true }), maxReceiveCount: 5 },
          visibilityTimeout: Duration.seconds(360),
        }),
      }),
      /queue must be a standard queue, not FIFO/,
    ],
    [
      'an imported queue without its dead-letter queue',
      (s) => ({ queue: sqs.Queue.fromQueueArn(s, 'Q', `arn:aws:sqs:${REGION}:${ACCOUNT}:work`) }),
      /queue has no dead-letter queue: pass deadLetterQueue/,
    ],
    [
      'a dead-letter queue without a queue',
      (s) => ({ deadLetterQueue: new sqs.Queue(s, 'Dlq') }),
      /deadLetterQueue needs queue/,
    ],
    [
      'a dead-letter queue that is not the queue’s',
      (s) => ({ queue: ownQueue(s), deadLetterQueue: new sqs.Queue(s, 'Other') }),
      /not the queue's own dead-letter queue/,
    ],
  ];
  for (const [what, props, message] of cases) {
    it(`refuse ${what}`, () => rejects(props, message));
  }
});

describe('metric helpers', () => {
  const synthesized = synthConstruct(() => ({}));
  const { controller, stack } = synthesized;
  const resolve = (value: unknown) => Stack.of(controller).resolve(value) as unknown;

  it('name the metric the verifier publishes, under its service dimension, as a 5-minute sum', () => {
    const failed = controller.metricPromotionsFailed();
    assert.equal(failed.namespace, METRIC_NAMESPACE);
    assert.equal(failed.metricName, 'PromotionsFailedForGood');
    assert.deepEqual(resolve(failed.dimensions), { service: { Ref: synthesized.logicalId(controller.verifier) } });
    assert.equal(failed.statistic, 'Sum');
    assert.equal(failed.period.toSeconds(), 300);
    assert.equal(controller.metricApprovalsWaiting().statistic, 'Maximum', 'a level, not a count');
    assert.deepEqual(resolve(controller.metricApprovalsWaiting().dimensions), {
      service: { Ref: synthesized.logicalId(controller.poller) },
    });
    assert.equal(controller.metricLeadTime({ statistic: 'p90' }).statistic, 'p90');
  });

  it('sum rejected events over every reason, or give one reason', () => {
    const total = controller.metricEventsRejected();
    assert.ok(total instanceof cloudwatch.MathExpression);
    const used = Object.values(total.usingMetrics) as cloudwatch.Metric[];
    assert.deepEqual(used.map((metric) => String(metric.dimensions?.Reason)).sort(), [...EVENT_REJECTIONS].sort());
    const one = controller.metricEventsRejected({ reason: 'bad-signature' });
    assert.ok(one instanceof cloudwatch.Metric);
    assert.equal(one.dimensions?.Reason, 'bad-signature');
  });

  it('give failed promotions in total (what an alarm watches), or those of one failure kind', () => {
    const total = controller.metricPromotionsFailed();
    assert.equal(total.dimensions?.Reason, undefined, 'the total the functions publish beside the kinds');
    const unauthorized = controller.metricPromotionsFailed({ reason: 'Unauthorized' });
    assert.equal(unauthorized.metricName, 'PromotionsFailedForGood');
    assert.equal(unauthorized.dimensions?.Reason, 'Unauthorized');
    const rateLimited = controller.metricPromotionsFailedRetrying({ reason: 'RateLimited' });
    assert.equal(rateLimited.metricName, 'PromotionsFailedRetrying');
    assert.equal(rateLimited.dimensions?.Reason, 'RateLimited');
  });

  it('are what the dead-letter alarm watches', () => {
    const alarm = synthesized.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { MetricName: 'ApproximateNumberOfMessagesVisible' },
    });
    const [properties] = Object.values(alarm).map(
      (each) => (each as { Properties: Record<string, unknown> }).Properties,
    );
    const helper = controller.metricDeadLetters();
    assert.equal(properties?.Namespace, helper.namespace);
    assert.deepEqual(properties?.Dimensions, [{ Name: 'QueueName', Value: resolve(helper.dimensions?.QueueName) }]);
    assert.equal(properties?.Statistic, helper.statistic);
    assert.ok(stack, 'the stack synthesized');
  });
});
