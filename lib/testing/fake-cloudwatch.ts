// A fake Amazon CloudWatch on 127.0.0.1, for tests, benchmarks and the demo: DescribeAlarms as
// `@aws-sdk/client-cloudwatch` speaks it (AWS JSON 1.0, query-compatible): `POST /` with
// `X-Amz-Target: GraniteServiceVersion20100801.DescribeAlarms`, `Content-Type: application/x-amz-json-1.0` and a JSON
// body (`AlarmNames`, `AlarmTypes`, `MaxRecords`, `NextToken`); the answer lists the alarms of those names that exist
// (`MetricAlarms`, `CompositeAlarms`, `LogAlarms`; metric alarms only when no `AlarmTypes` are given, as CloudWatch
// does), sorted by name, at most `MaxRecords` (default 50) a page with a `NextToken` for the rest. Errors are AWS JSON
// errors (`{__type, message}`) with their status and, as a query-compatible service answers, the
// `x-amzn-query-error: <Query code>;<Sender|Receiver>` header the client takes the error's name from.
//
// Every request must carry a SigV4 signature for the service `monitoring` in a region the fake serves, from known
// credentials (403 otherwise); the region signed for selects the alarms. Tests script each alarm's state and reason,
// and faults: throttling, any error status, a late answer or none.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { LoopbackServer, withBody } from './listen.js';
import { verifySigv4, type FakeAwsCredentials } from './sigv4-verifier.js';

export type { FakeAwsCredentials } from './sigv4-verifier.js';

export type FakeAlarmType = 'MetricAlarm' | 'CompositeAlarm' | 'LogAlarm';
export type FakeAlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface FakeAlarmOptions {
  /** Default `MetricAlarm`. */
  type?: FakeAlarmType;
  /** The state's reason, as CloudWatch writes it. Default a reason of the state's kind. */
  reason?: string;
  /** Default the fake's first region. */
  region?: string;
}

/** How requests answer while a fault lasts. */
export type FakeCloudWatchFault =
  /** 400 ThrottlingException (`Throttling;Sender`), as CloudWatch throttles. */
  | { throttling: true }
  /** An AWS JSON error with this status (default type for 5xx: InternalServiceFault, `InternalServiceError`). */
  | { status: number; type?: string; queryError?: string; message?: string }
  /** The right answer, this late. */
  | { delayMs: number }
  /** No answer, until the server stops. */
  | { never: true };

export interface FakeCloudWatchRequest {
  /** `X-Amz-Target`. */
  target?: string;
  /** The region the request was signed for. */
  region?: string;
  alarmNames?: string[];
  alarmTypes?: string[];
  maxRecords?: number;
  nextToken?: string;
  headers: IncomingHttpHeaders;
  /** The status answered; undefined while an answer is pending. */
  status?: number;
}

export interface FakeCloudWatchOptions {
  /** The regions served; the first is where alarms go by default. Default `['eu-west-1']`. */
  regions?: string[];
  /** The credentials whose signatures are accepted. Default `[FAKE_CLOUDWATCH_CREDENTIALS]`. */
  credentials?: FakeAwsCredentials[];
  /** The fake's clock (ms since the epoch), for X-Amz-Date and state timestamps. Default `Date.now`. */
  now?: () => number;
  /** Pages cut shorter than `MaxRecords` asks, as CloudWatch may: at most this many alarms a page. Default none. */
  pageLimit?: number;
}

/** The test credentials the fake knows unless told otherwise. Not secret, not for any real use. */
export const FAKE_CLOUDWATCH_CREDENTIALS: FakeAwsCredentials = {
  accessKeyId: 'AKIAFAKECLOUDWATCH01',
  secretAccessKey: 'fake-cloudwatch-secret-access-key-for-tests-only',
};

export const FAKE_CLOUDWATCH_ACCOUNT = '123456789012';
const SERVICE_TARGET = 'GraniteServiceVersion20100801';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const DEFAULT_MAX_RECORDS = 50;
const MAX_RECORDS = 100;
const MAX_NAMES = 100;

interface StoredAlarm {
  name: string;
  type: FakeAlarmType;
  state: FakeAlarmState;
  reason: string;
  updatedAt: number;
}

interface ErrorAnswer {
  status: number;
  type: string;
  message: string;
  /** The `x-amzn-query-error` header's value, when the error has a Query code. */
  queryError?: string;
}

export class FakeCloudWatch {
  /** Every request received, oldest first. */
  readonly requests: FakeCloudWatchRequest[] = [];
  private readonly alarms = new Map<string, Map<string, StoredAlarm>>();
  private currentFault?: { fault: FakeCloudWatchFault; remaining: number };
  private server?: LoopbackServer;

  private constructor(private readonly options: FakeCloudWatchOptions) {}

  static async start(options: FakeCloudWatchOptions = {}): Promise<FakeCloudWatch> {
    const fake = new FakeCloudWatch(options);
    fake.server = await LoopbackServer.start(
      createServer(
        withBody((request, body, response) =>
          fake.handle(request.method ?? '', request.url ?? '/', request.headers, [body], response),
        ),
      ),
    );
    return fake;
  }

  /** The endpoint a client is pointed at: `http://127.0.0.1:<port>`. */
  get endpoint(): string {
    if (this.server === undefined) throw new Error('FakeCloudWatch is not started');
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** The regions served; the first is the default. */
  get regions(): string[] {
    return this.options.regions ?? ['eu-west-1'];
  }

  /** Creates the alarm or changes its state (its state timestamp moves only when the state changes). */
  setAlarm(name: string, state: FakeAlarmState, options: FakeAlarmOptions = {}): this {
    const region = options.region ?? this.regions[0] ?? '';
    let regional = this.alarms.get(region);
    if (!regional) this.alarms.set(region, (regional = new Map<string, StoredAlarm>()));
    const previous = regional.get(name);
    const type = options.type ?? previous?.type ?? 'MetricAlarm';
    regional.set(name, {
      name,
      type,
      state,
      reason: options.reason ?? defaultReason(state, type),
      updatedAt: previous?.state === state ? previous.updatedAt : this.now(),
    });
    return this;
  }

  /** Deletes the alarm. */
  removeAlarm(name: string, region: string = this.regions[0] ?? ''): this {
    this.alarms.get(region)?.delete(name);
    return this;
  }

  /** How the next `times` requests (default: every one, until cleared with `undefined`) answer. */
  fail(fault: FakeCloudWatchFault | undefined, times = Infinity): this {
    this.currentFault = fault === undefined ? undefined : { fault, remaining: times };
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async handle(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    chunks: Buffer[],
    response: ServerResponse,
  ): Promise<void> {
    const body = Buffer.concat(chunks);
    const target = typeof headers['x-amz-target'] === 'string' ? headers['x-amz-target'] : undefined;
    const logged: FakeCloudWatchRequest = { target, headers };
    this.requests.push(logged);
    const send = (status: number, answer: unknown, extra: Record<string, string> = {}): void => {
      logged.status = status;
      response.writeHead(status, {
        'content-type': CONTENT_TYPE,
        'x-amzn-requestid': `fake-${this.requests.length}`,
        ...extra,
      });
      response.end(JSON.stringify(answer));
    };
    const sendError = (error: ErrorAnswer): void =>
      send(
        error.status,
        { __type: error.type, message: error.message },
        error.queryError === undefined ? {} : { 'x-amzn-query-error': error.queryError },
      );

    const [pathname = '', search = ''] = path.split(/\?(.*)/s);
    const signature = await verifySigv4(
      {
        service: 'monitoring',
        regions: this.regions,
        credentials: this.options.credentials ?? [FAKE_CLOUDWATCH_CREDENTIALS],
        now: () => this.now(),
      },
      { method, pathname, search, headers, body },
    );
    if (signature.refused) {
      sendError({
        status: 403,
        type: `com.amazon.coral.service#${signature.refused.type}`,
        message: signature.refused.message,
      });
      return;
    }
    logged.region = signature.region;
    if (method !== 'POST' || pathname !== '/') {
      sendError({ status: 404, type: 'UnknownOperationException', message: `${method} ${pathname} is not an API` });
      return;
    }
    if (!String(headers['content-type'] ?? '').startsWith(CONTENT_TYPE)) {
      sendError({ status: 400, type: 'com.amazon.coral.service#SerializationException', message: 'Bad content type' });
      return;
    }
    if (target !== `${SERVICE_TARGET}.DescribeAlarms`) {
      sendError({
        status: 400,
        type: 'com.amazon.coral.service#UnknownOperationException',
        message: `Unknown operation ${target ?? ''}`,
      });
      return;
    }
    const input = parseInput(body);
    if ('error' in input) {
      sendError(input.error);
      return;
    }
    Object.assign(logged, input.request);

    const fault = this.currentFault;
    if (fault && fault.remaining > 0) {
      fault.remaining -= 1;
      if (fault.remaining === 0) this.currentFault = undefined;
    }
    const active = fault?.fault;
    const answer = (): void => {
      const outcome = this.describeAlarms(signature.region, input.request);
      if ('error' in outcome) sendError(outcome.error);
      else send(200, outcome.answer);
    };
    if (!active) {
      answer();
      return;
    }
    if ('never' in active) return;
    if ('delayMs' in active) {
      this.server?.later(active.delayMs, answer);
      return;
    }
    if ('throttling' in active) {
      sendError({
        status: 400,
        type: 'com.amazon.coral.availability#ThrottlingException',
        message: 'Rate exceeded',
        queryError: 'Throttling;Sender',
      });
      return;
    }
    const server = active.status >= 500;
    sendError({
      status: active.status,
      type: active.type ?? (server ? 'com.amazonaws.cloudwatch#InternalServiceFault' : 'InvalidParameterValue'),
      message: active.message ?? (server ? 'Internal service error' : 'Invalid parameter'),
      queryError: active.queryError ?? (server ? 'InternalServiceError;Receiver' : undefined),
    });
  }

  private describeAlarms(
    region: string,
    request: ParsedRequest,
  ): { answer: Record<string, unknown> } | { error: ErrorAnswer } {
    const types = new Set(request.alarmTypes ?? ['MetricAlarm']);
    const names = request.alarmNames;
    const regional = this.alarms.get(region) ?? new Map<string, StoredAlarm>();
    const matching = [...regional.values()]
      .filter((alarm) => types.has(alarm.type) && (names === undefined || names.includes(alarm.name)))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let offset = 0;
    if (request.nextToken !== undefined) {
      const decoded = Number(
        Buffer.from(request.nextToken, 'base64url')
          .toString('utf8')
          .replace(/^offset:/, ''),
      );
      if (!Number.isInteger(decoded) || decoded < 0 || decoded > matching.length) {
        return {
          error: {
            status: 400,
            type: 'com.amazonaws.cloudwatch#InvalidNextToken',
            message: 'The next token specified is invalid.',
            queryError: 'InvalidNextToken;Sender',
          },
        };
      }
      offset = decoded;
    }
    const pageSize = Math.min(request.maxRecords ?? DEFAULT_MAX_RECORDS, this.options.pageLimit ?? MAX_RECORDS);
    const page = matching.slice(offset, offset + pageSize);
    const next = offset + pageSize < matching.length ? offset + pageSize : undefined;
    const written = (alarm: StoredAlarm) => ({
      AlarmName: alarm.name,
      AlarmArn: `arn:aws:cloudwatch:${region}:${FAKE_CLOUDWATCH_ACCOUNT}:alarm:${alarm.name}`,
      StateValue: alarm.state,
      StateReason: alarm.reason,
      StateUpdatedTimestamp: alarm.updatedAt / 1000,
      ActionsEnabled: true,
    });
    return {
      answer: {
        MetricAlarms: page.filter((alarm) => alarm.type === 'MetricAlarm').map(written),
        CompositeAlarms: page.filter((alarm) => alarm.type === 'CompositeAlarm').map(written),
        ...(types.has('LogAlarm') ? { LogAlarms: page.filter((alarm) => alarm.type === 'LogAlarm').map(written) } : {}),
        ...(next !== undefined ? { NextToken: Buffer.from(`offset:${next}`).toString('base64url') } : {}),
      },
    };
  }
}

interface ParsedRequest {
  alarmNames?: string[];
  alarmTypes?: string[];
  maxRecords?: number;
  nextToken?: string;
}

function validationError(message: string): { error: ErrorAnswer } {
  return {
    error: {
      status: 400,
      type: 'com.amazon.coral.validate#ValidationException',
      message: `1 validation error detected: ${message}`,
      queryError: 'ValidationError;Sender',
    },
  };
}

function parseInput(body: Buffer): { request: ParsedRequest } | { error: ErrorAnswer } {
  let input: unknown;
  try {
    input = JSON.parse(body.toString('utf8') || '{}');
  } catch {
    return {
      error: { status: 400, type: 'com.amazon.coral.service#SerializationException', message: 'Malformed JSON' },
    };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return validationError('the input is not a structure');
  }
  const { AlarmNames, AlarmTypes, MaxRecords, NextToken } = input as Record<string, unknown>;
  const strings = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (AlarmNames !== undefined && !strings(AlarmNames)) return validationError("'alarmNames' must be a list");
  if (AlarmNames !== undefined && AlarmNames.length > MAX_NAMES) {
    return validationError(
      `Value at 'alarmNames' failed to satisfy constraint: Member must have length less than or equal to ${MAX_NAMES}`,
    );
  }
  if (AlarmTypes !== undefined && !strings(AlarmTypes)) return validationError("'alarmTypes' must be a list");
  const unknownType = AlarmTypes?.find((type) => !['MetricAlarm', 'CompositeAlarm', 'LogAlarm'].includes(type));
  if (unknownType !== undefined) {
    return validationError(
      `Value '${unknownType}' at 'alarmTypes' failed to satisfy constraint: Member must satisfy enum value set`,
    );
  }
  if (
    MaxRecords !== undefined &&
    (typeof MaxRecords !== 'number' || !Number.isInteger(MaxRecords) || MaxRecords < 1 || MaxRecords > MAX_RECORDS)
  ) {
    return validationError(
      `Value at 'maxRecords' failed to satisfy constraint: Member must have value between 1 and ${MAX_RECORDS}`,
    );
  }
  if (NextToken !== undefined && typeof NextToken !== 'string') return validationError("'nextToken' must be a string");
  return {
    request: {
      ...(AlarmNames !== undefined ? { alarmNames: AlarmNames } : {}),
      ...(AlarmTypes !== undefined ? { alarmTypes: AlarmTypes } : {}),
      ...(MaxRecords !== undefined ? { maxRecords: MaxRecords } : {}),
      ...(NextToken !== undefined ? { nextToken: NextToken } : {}),
    },
  };
}

function defaultReason(state: FakeAlarmState, type: FakeAlarmType): string {
  if (type === 'CompositeAlarm') {
    return state === 'ALARM'
      ? 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:child transitioned to ALARM'
      : `Composite alarm is ${state}`;
  }
  if (state === 'ALARM') {
    return 'Threshold Crossed: 1 out of the last 1 datapoints [12.0 (29/11/26 05:00:00)] was greater than the threshold (5.0) (minimum 1 datapoint for OK -> ALARM transition).';
  }
  if (state === 'INSUFFICIENT_DATA') {
    return 'Insufficient Data: 1 datapoint was unknown.';
  }
  return 'Threshold Crossed: 1 out of the last 1 datapoints [0.0 (29/11/26 05:00:00)] was not greater than the threshold (5.0).';
}
