// The controller's alarms: the dead-letter queue is not empty (a message failed maxReceiveCount times, or the
// verifier set aside a body it cannot parse), and each function's errors and throttles. With a topic, each alarm
// notifies it on ALARM and on OK; the user's own actions run on ALARM.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { FunctionName } from './bundling.js';
import type { ControllerMetrics } from './metrics.js';

export interface ControllerAlarms {
  deadLetterQueueNotEmpty: cloudwatch.Alarm;
  errors: Record<FunctionName, cloudwatch.Alarm>;
  throttles: Record<FunctionName, cloudwatch.Alarm>;
}

/** Period of the function alarms: one errored or throttled invocation in five minutes is enough. */
export const FUNCTION_ALARM_PERIOD = Duration.minutes(5);
/** The DLQ's depth is looked at every minute. */
export const DEAD_LETTER_ALARM_PERIOD = Duration.minutes(1);

export function addAlarms(
  scope: Construct,
  input: {
    metrics: ControllerMetrics;
    functions: Record<FunctionName, lambda.IFunction>;
    topic: sns.ITopic | undefined;
    /** Run on ALARM only (an OK is news for the topic's subscribers, not for an action such as paging). */
    alarmActions: readonly cloudwatch.IAlarmAction[];
  },
): ControllerAlarms {
  const alarm = (id: string, metric: cloudwatch.IMetric, description: string): cloudwatch.Alarm => {
    const created = new cloudwatch.Alarm(scope, id, {
      metric,
      alarmDescription: description,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (input.topic) {
      const action = new SnsAction(input.topic);
      created.addAlarmAction(action);
      created.addOkAction(action);
    }
    if (input.alarmActions.length > 0) created.addAlarmAction(...input.alarmActions);
    return created;
  };

  const deadLetterQueueNotEmpty = alarm(
    'DeadLetterQueueNotEmptyAlarm',
    input.metrics.deadLetters({ period: DEAD_LETTER_ALARM_PERIOD }),
    'pipeline-controller: messages in the dead-letter queue (a check failed repeatedly or a body was invalid)',
  );
  const names = Object.keys(input.functions) as FunctionName[];
  const errors = {} as Record<FunctionName, cloudwatch.Alarm>;
  const throttles = {} as Record<FunctionName, cloudwatch.Alarm>;
  for (const name of names) {
    const fn = input.functions[name];
    const id = name.charAt(0).toUpperCase() + name.slice(1);
    errors[name] = alarm(
      `${id}ErrorsAlarm`,
      fn.metricErrors({ period: FUNCTION_ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      `pipeline-controller: the ${name} function failed`,
    );
    throttles[name] = alarm(
      `${id}ThrottlesAlarm`,
      fn.metricThrottles({ period: FUNCTION_ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      `pipeline-controller: the ${name} function was throttled`,
    );
  }
  return { deadLetterQueueNotEmpty, errors, throttles };
}
