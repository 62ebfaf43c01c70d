// Evaluating a `cloudwatchAlarms` check (docs/verification.md, "Checks"): every alarm named is in state OK.
// CloudWatch's DescribeAlarms, signed with the controller's own AWS credentials, answers each alarm's state: metric,
// composite and log alarms alike. An alarm in ALARM is the service failing: `failed`. Whatever else keeps every alarm
// from reading OK is `inconclusive`, never `failed`: an alarm that does not exist (in that region, for these
// credentials), one with INSUFFICIENT_DATA, and the way to CloudWatch (credentials refused, throttling, 5xx, no answer).
import type { CloudWatchClient, CloudWatchClientConfig } from '@aws-sdk/client-cloudwatch';
import type { AwsCredentialsProvider } from '../clusters/eks.js';
import { printable } from '../logging/printable.js';
import { redact } from '../logging/redaction.js';
import type { CheckReason, CheckResult, CheckVerdict, CloudWatchAlarmsCheck } from '../pipeline/verification.js';
import type { CheckContext } from './check-context.js';

/** What CloudWatch says of one alarm. */
export interface AlarmState {
  name: string;
  type: 'MetricAlarm' | 'CompositeAlarm' | 'LogAlarm';
  state: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  /** CloudWatch's explanation of the state, as written (`Threshold Crossed: 1 datapoint [12.0 …]`). */
  reason?: string;
  updatedAt?: Date;
}

/** Reads alarms' states: the real CloudWatch (`cloudWatchAlarmsReader`), or whatever a test or the demo gives. */
export interface CloudWatchAlarmsReader {
  /**
   * The alarms among `alarmNames` that exist in `region` (undefined: the controller's own). Rejects when CloudWatch
   * cannot be asked or refuses: with the AWS SDK's error, whose name, HTTP status and fault say why.
   */
  describeAlarms(region: string | undefined, alarmNames: string[]): Promise<AlarmState[]>;
}

export interface CloudWatchAlarmsReaderOptions {
  /** CloudWatch's endpoint instead of the region's (a test's fake, a VPC endpoint). */
  endpoint?: string;
  /** The credentials requests are signed with. Default: the AWS SDK's default provider chain (the function's role). */
  credentials?: AwsCredentialsProvider;
  /** The whole DescribeAlarms exchange, retries and pages included, in ms. Default 10 000. */
  timeoutMs?: number;
  /** Attempts per request, throttling and 5xx retried by the SDK within the time limit. Default 3. */
  maxAttempts?: number;
}

/** DescribeAlarms takes at most this many names, and returns at most this many records, per request. */
export const DESCRIBE_ALARMS_MAX_NAMES = 100;
/** The alarm types asked for: without them, DescribeAlarms answers metric alarms only. */
export const ALARM_TYPES = ['MetricAlarm', 'CompositeAlarm', 'LogAlarm'] as const;
const DEFAULT_TIMEOUT_MS = 10_000;
/** How much of an alarm's state reason, or of CloudWatch's error text, a message quotes. */
const QUOTED_CHARS = 200;
/** How long a result's value may grow when many alarms decide it. */
const MAX_VALUE_CHARS = 300;

/** The AWS error names that say our credentials were refused (JSON names, and the Query names CloudWatch maps to). */
const CREDENTIALS_REFUSED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'NotAuthorized',
  'CredentialsProviderError',
]);
const THROTTLED = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
]);
const TIMED_OUT = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
]);

/**
 * The reader over the real CloudWatch: DescribeAlarms for up to 100 names a request, every page followed, one client
 * per region kept for the process. The SDK is loaded on first use.
 */
export function cloudWatchAlarmsReader(options: CloudWatchAlarmsReaderOptions = {}): CloudWatchAlarmsReader {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clients = new Map<string, Promise<CloudWatchClient>>();
  const clientFor = (region: string | undefined): Promise<CloudWatchClient> => {
    const key = region ?? '';
    let client = clients.get(key);
    if (!client) {
      client = import('@aws-sdk/client-cloudwatch').then(
        ({ CloudWatchClient }) =>
          new CloudWatchClient({
            ...(region !== undefined ? { region } : {}),
            ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
            ...(options.credentials ? { credentials: options.credentials } : {}),
            maxAttempts: options.maxAttempts ?? 3,
            // Without throwOnRequestTimeout the handler only warns when requestTimeout passes.
            requestHandler: { requestTimeout: timeoutMs, connectionTimeout: timeoutMs, throwOnRequestTimeout: true },
          } satisfies CloudWatchClientConfig),
      );
      clients.set(key, client);
    }
    return client;
  };
  return {
    async describeAlarms(region, alarmNames) {
      const { DescribeAlarmsCommand } = await import('@aws-sdk/client-cloudwatch');
      const client = await clientFor(region);
      const abortSignal = AbortSignal.timeout(timeoutMs);
      const found: AlarmState[] = [];
      for (let start = 0; start < alarmNames.length; start += DESCRIBE_ALARMS_MAX_NAMES) {
        const names = alarmNames.slice(start, start + DESCRIBE_ALARMS_MAX_NAMES);
        let nextToken: string | undefined;
        do {
          const page = await client
            .send(
              new DescribeAlarmsCommand({
                AlarmNames: names,
                AlarmTypes: [...ALARM_TYPES],
                MaxRecords: DESCRIBE_ALARMS_MAX_NAMES,
                ...(nextToken !== undefined ? { NextToken: nextToken } : {}),
              }),
              { abortSignal },
            )
            .catch((error: unknown) => {
              // The SDK names its own abort AbortError; the deadline is what aborted it.
              throw abortSignal.aborted
                ? Object.assign(new Error('no answer in time'), { name: 'TimeoutError' })
                : error;
            });
          const groups = [
            ['MetricAlarm', page.MetricAlarms],
            ['CompositeAlarm', page.CompositeAlarms],
            ['LogAlarm', page.LogAlarms],
          ] as const;
          for (const [type, alarms] of groups) {
            for (const alarm of alarms ?? []) {
              if (alarm.AlarmName === undefined || !isStateValue(alarm.StateValue)) continue;
              found.push({
                name: alarm.AlarmName,
                type,
                state: alarm.StateValue,
                ...(alarm.StateReason !== undefined ? { reason: alarm.StateReason } : {}),
                ...(alarm.StateUpdatedTimestamp !== undefined ? { updatedAt: alarm.StateUpdatedTimestamp } : {}),
              });
            }
          }
          nextToken = page.NextToken === '' ? undefined : page.NextToken;
        } while (nextToken !== undefined);
      }
      return found;
    },
  };
}

/** The readers over the real CloudWatch, by time limit: each keeps its clients for the process. */
const defaultReaders = new Map<number, CloudWatchAlarmsReader>();

function defaultReader(timeoutMs: number): CloudWatchAlarmsReader {
  let reader = defaultReaders.get(timeoutMs);
  if (!reader) defaultReaders.set(timeoutMs, (reader = cloudWatchAlarmsReader({ timeoutMs })));
  return reader;
}

/** The check's result now; never rejects. */
export async function evaluateCloudWatchAlarmsCheck(
  name: string,
  check: CloudWatchAlarmsCheck,
  context: CheckContext & { cloudwatch?: CloudWatchAlarmsReader } = {},
): Promise<CheckResult> {
  const checkedAt = (context.now ?? (() => new Date()))().toISOString();
  const result = (verdict: CheckVerdict, reason: CheckReason, value: string, message: string): CheckResult => ({
    name,
    kind: 'cloudwatchAlarms',
    verdict,
    reason,
    value: clip(value, MAX_VALUE_CHARS),
    message,
    checkedAt,
  });
  const where = check.region ?? "the controller's region";
  const names = [...new Set(check.alarmNames)];
  const shown = (list: readonly string[]): string => list.map((alarm) => clip(alarm, QUOTED_CHARS)).join(', ');

  const reader = context.cloudwatch ?? defaultReader(context.outbound?.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let alarms: AlarmState[];
  try {
    alarms = await reader.describeAlarms(check.region, names);
  } catch (error) {
    const { reason, value, problem } = cloudWatchFailure(error);
    return result('inconclusive', reason, value, `DescribeAlarms in ${where}: ${problem}`);
  }

  const byName = new Map(alarms.map((alarm) => [alarm.name, alarm]));
  const known = names.flatMap((alarm) => byName.get(alarm) ?? []);
  const inAlarm = known.filter((alarm) => alarm.state === 'ALARM');
  if (inAlarm.length > 0) {
    const [first] = inAlarm;
    const said = first?.reason ? `: ${clip(redact(first.reason), QUOTED_CHARS)}` : '';
    const others = inAlarm.length > 1 ? ` (and ${inAlarm.length - 1} more)` : '';
    return result(
      'failed',
      'InAlarm',
      `${shown(inAlarm.map((alarm) => alarm.name))} ALARM`,
      `alarm ${shown([first?.name ?? ''])} in ${where} is in ALARM${said}${others}`,
    );
  }
  const missing = names.filter((alarm) => !byName.has(alarm));
  if (missing.length > 0) {
    return result(
      'inconclusive',
      'AlarmNotFound',
      `${shown(missing)} not found`,
      `no alarm ${shown(missing)} in ${where} (metric, composite or log alarm), or not readable with these credentials`,
    );
  }
  const noData = known.filter((alarm) => alarm.state === 'INSUFFICIENT_DATA');
  if (noData.length > 0) {
    const [first] = noData;
    const said = first?.reason ? `: ${clip(redact(first.reason), QUOTED_CHARS)}` : '';
    return result(
      'inconclusive',
      'InsufficientData',
      `${shown(noData.map((alarm) => alarm.name))} INSUFFICIENT_DATA`,
      `alarm ${shown([first?.name ?? ''])} in ${where} has insufficient data${said}`,
    );
  }
  const count = `${known.length} ${known.length === 1 ? 'alarm' : 'alarms'}`;
  return result('passed', 'AlarmsOK', `${count} OK`, `${count} in ${where} OK: ${shown(names)}`);
}

/** Why CloudWatch could not be asked, as a check's reason, value and problem: by the error's name, status and code. */
export function cloudWatchFailure(error: unknown): { reason: CheckReason; value: string; problem: string } {
  const details = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  const errorName = typeof details.name === 'string' ? details.name : 'Error';
  const code = typeof details.code === 'string' ? details.code : undefined;
  const status = typeof details.$metadata?.httpStatusCode === 'number' ? details.$metadata.httpStatusCode : undefined;
  const value = status !== undefined ? `HTTP ${status}` : '';
  const named = clip(errorName, 80);
  const said = typeof details.message === 'string' && status !== undefined ? saidBy(details.message) : '';

  if (TIMED_OUT.has(errorName) || code === 'ETIMEDOUT') {
    return { reason: 'Timeout', value, problem: 'no answer in time' };
  }
  if (CREDENTIALS_REFUSED.has(errorName) || status === 401 || status === 403) {
    const problem =
      errorName === 'CredentialsProviderError'
        ? 'AWS credentials could not be loaded'
        : `the credentials were refused (${named}${said})`;
    return { reason: 'Unauthorized', value, problem };
  }
  if (THROTTLED.has(errorName) || status === 429) {
    return { reason: 'ServerError', value, problem: `throttled (${named})` };
  }
  if ((status !== undefined && status >= 500) || details.$fault === 'server') {
    return { reason: 'ServerError', value, problem: `CloudWatch failed (${named}${said})` };
  }
  if (code !== undefined && NETWORK_CODES.has(code)) {
    return { reason: 'Unreachable', value: '', problem: `unreachable (${code})` };
  }
  if (status === undefined && /region is missing/i.test(typeof details.message === 'string' ? details.message : '')) {
    return { reason: 'Unreachable', value: '', problem: 'no AWS region: give the check a region or set AWS_REGION' };
  }
  if (status === undefined && code !== undefined) {
    return { reason: 'Unreachable', value: '', problem: `unreachable (${clip(code, 40)})` };
  }
  return { reason: 'InvalidAnswer', value, problem: `the answer could not be read (${named}${said})` };
}

function isStateValue(value: unknown): value is AlarmState['state'] {
  return value === 'OK' || value === 'ALARM' || value === 'INSUFFICIENT_DATA';
}

/** `: <message>` of an AWS error answer, redacted and cut; empty when there is none. */
function saidBy(message: string): string {
  const text = clip(redact(message), QUOTED_CHARS);
  return text === '' || text === 'UnknownError' ? '' : `: ${text}`;
}

/** Text from CloudWatch, one printable line of at most `max` characters. */
function clip(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const line = printable(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
