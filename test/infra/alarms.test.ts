// The alarms: the DLQ is not empty, and each function's errors and throttles; actions only with a topic.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resources, synth } from './synth.js';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:alarms';

interface AlarmProperties {
  Namespace: string;
  MetricName: string;
  Dimensions: { Name: string; Value: unknown }[];
  Statistic: string;
  Period: number;
  Threshold: number;
  EvaluationPeriods: number;
  ComparisonOperator: string;
  TreatMissingData: string;
  AlarmActions?: unknown[];
  OKActions?: unknown[];
}

const plain = synth();
const withTopic = synth({ alarmTopicArn: TOPIC });
const alarmsOf = (template: typeof plain.template) =>
  Object.values(resources(template, 'AWS::CloudWatch::Alarm')).map(
    (alarm) => alarm.Properties as unknown as AlarmProperties,
  );

describe('alarms', () => {
  const alarms = alarmsOf(plain.template);
  const controller = plain.stack.controller;

  it('fire on one message in the dead-letter queue', () => {
    const dlq = alarms.filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    assert.equal(dlq.length, 1);
    assert.equal(dlq[0]?.Namespace, 'AWS/SQS');
    assert.deepEqual(dlq[0]?.Dimensions, [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [plain.logicalId(controller.deadLetterQueue), 'QueueName'] } },
    ]);
    assert.equal(dlq[0]?.Statistic, 'Maximum');
    assert.equal(dlq[0]?.Period, 60);
  });

  it('fire on one error and on one throttle of each function in five minutes', () => {
    for (const fn of [controller.receiver, controller.verifier, controller.poller]) {
      for (const metric of ['Errors', 'Throttles']) {
        const matching = alarms.filter(
          (alarm) =>
            alarm.MetricName === metric &&
            alarm.Dimensions.some(
              (d) =>
                d.Name === 'FunctionName' && JSON.stringify(d.Value) === JSON.stringify({ Ref: plain.logicalId(fn) }),
            ),
        );
        assert.equal(matching.length, 1, `${metric} of ${fn.node.id}`);
        assert.equal(matching[0]?.Namespace, 'AWS/Lambda');
        assert.equal(matching[0]?.Statistic, 'Sum');
        assert.equal(matching[0]?.Period, 300);
      }
    }
  });

  it('are seven, each at ≥ 1 in one period, quiet without data', () => {
    assert.equal(alarms.length, 7);
    for (const alarm of alarms) {
      assert.equal(alarm.Threshold, 1);
      assert.equal(alarm.EvaluationPeriods, 1);
      assert.equal(alarm.ComparisonOperator, 'GreaterThanOrEqualToThreshold');
      assert.equal(alarm.TreatMissingData, 'notBreaching');
    }
  });

  it('have no actions without a topic', () => {
    for (const alarm of alarms) {
      assert.equal(alarm.AlarmActions, undefined);
      assert.equal(alarm.OKActions, undefined);
    }
  });

  it('notify the topic on ALARM and on OK when one is given', () => {
    const notified = alarmsOf(withTopic.template);
    assert.equal(notified.length, 7);
    for (const alarm of notified) {
      assert.deepEqual(alarm.AlarmActions, [TOPIC]);
      assert.deepEqual(alarm.OKActions, [TOPIC]);
    }
  });
});
