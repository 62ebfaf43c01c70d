// The log retentions CloudWatch Logs accepts. CloudFormation takes any number for RetentionInDays and the deployment
// then fails (cfn-lint reports it as E3030), so the construct and the app's context check the value at synth time.
import * as logs from 'aws-cdk-lib/aws-logs';

const INFINITE_DAYS: number = logs.RetentionDays.INFINITE;

/** The numbers of days CloudWatch Logs accepts, in order (the values of `logs.RetentionDays`, except INFINITE). */
export const LOG_RETENTION_DAYS: readonly number[] = Object.values(logs.RetentionDays)
  .filter((value): value is number => typeof value === 'number')
  .filter((days) => days !== INFINITE_DAYS)
  .sort((a, b) => a - b);

/** What `logRetentionDays` in the context may also say for `RetentionDays.INFINITE` (the log is never expired). */
export const INFINITE_RETENTION = 'infinite';

/** The allowed values, as one line for an error message. */
export function allowedLogRetentions(): string {
  return `${LOG_RETENTION_DAYS.join(', ')} or ${INFINITE_RETENTION}`;
}

export function isLogRetention(value: number): boolean {
  return value === INFINITE_DAYS || LOG_RETENTION_DAYS.includes(value);
}
