// The `cloudwatchAlarms` check's verdicts, through the real `@aws-sdk/client-cloudwatch` against a CloudWatch that
// speaks its wire protocol and checks its signatures: every alarm OK passes, an alarm in ALARM fails, and whatever
// keeps every alarm from reading OK (no such alarm, no data, credentials refused, throttling, no answer) is
// inconclusive.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CloudWatchAlarmsCheck } from '../../lib/pipeline/verification.js';
import { FAKE_CLOUDWATCH_CREDENTIALS, FakeCloudWatch } from '../../lib/testing/fake-cloudwatch.js';
import {
  cloudWatchAlarmsReader,
  evaluateCloudWatchAlarmsCheck,
  type CloudWatchAlarmsReaderOptions,
} from '../../lib/verification/cloudwatch-alarms-check.js';

const REGION = 'eu-west-1';

describe('a cloudwatchAlarms check', () => {
  let cloudwatch: FakeCloudWatch;
  before(async () => (cloudwatch = await FakeCloudWatch.start({ regions: [REGION, 'us-east-1'] })));
  after(() => cloudwatch.stop());
  beforeEach(() => cloudwatch.fail(undefined));

  const reader = (options: CloudWatchAlarmsReaderOptions = {}) =>
    cloudWatchAlarmsReader({
      endpoint: cloudwatch.endpoint,
      credentials: () => Promise.resolve(FAKE_CLOUDWATCH_CREDENTIALS),
      timeoutMs: 60_000,
      ...options,
    });
  const evaluate = (check: CloudWatchAlarmsCheck, options?: CloudWatchAlarmsReaderOptions) =>
    evaluateCloudWatchAlarmsCheck('errors', check, { cloudwatch: reader(options) });

  it('passes when every alarm named is OK', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK').setAlarm('podinfo-p99', 'OK');
    const result = await evaluate({ alarmNames: ['podinfo-5xx', 'podinfo-p99'], region: REGION });
    assert.deepEqual(
      [result.name, result.kind, result.verdict, result.reason, result.value],
      ['errors', 'cloudwatchAlarms', 'passed', 'AlarmsOK', '2 alarms OK'],
    );
    const request = cloudwatch.requests.at(-1);
    assert.equal(request?.target, 'GraniteServiceVersion20100801.DescribeAlarms');
    assert.equal(request?.region, REGION);
    assert.deepEqual(request?.alarmNames, ['podinfo-5xx', 'podinfo-p99']);
    assert.deepEqual(request?.alarmTypes, ['MetricAlarm', 'CompositeAlarm', 'LogAlarm']);
  });

  it('fails when an alarm is in ALARM, naming it and quoting its reason on one line', async () => {
    cloudwatch
      .setAlarm('podinfo-5xx', 'ALARM', {
        reason: 'Threshold Crossed: 1 datapoint [12.0 (29/11/26 04:55:00)]\nwas greater than the threshold (5.0).',
      })
      .setAlarm('podinfo-p99', 'OK');
    const result = await evaluate({ alarmNames: ['podinfo-5xx', 'podinfo-p99'], region: REGION });
    assert.deepEqual([result.verdict, result.reason, result.value], ['failed', 'InAlarm', 'podinfo-5xx ALARM']);
    assert.match(result.message, /podinfo-5xx .*ALARM: Threshold Crossed: 1 datapoint \[12\.0 .* threshold \(5\.0\)/);
    assert.ok(!result.message.includes('\n'));
  });

  it('fails on an ALARM even when another alarm has no data or does not exist', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'ALARM').setAlarm('podinfo-p99', 'INSUFFICIENT_DATA');
    const result = await evaluate({ alarmNames: ['podinfo-p99', 'podinfo-5xx', 'podinfo-gone'], region: REGION });
    assert.deepEqual([result.verdict, result.reason, result.value], ['failed', 'InAlarm', 'podinfo-5xx ALARM']);
  });

  it('is inconclusive while an alarm has insufficient data', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK').setAlarm('podinfo-p99', 'INSUFFICIENT_DATA');
    const result = await evaluate({ alarmNames: ['podinfo-5xx', 'podinfo-p99'], region: REGION });
    assert.deepEqual(
      [result.verdict, result.reason, result.value],
      ['inconclusive', 'InsufficientData', 'podinfo-p99 INSUFFICIENT_DATA'],
    );
  });

  it('is inconclusive when an alarm named does not exist, naming it', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK');
    const result = await evaluate({ alarmNames: ['podinfo-5xx', 'podinfo-5xxx'], region: REGION });
    assert.deepEqual(
      [result.verdict, result.reason, result.value],
      ['inconclusive', 'AlarmNotFound', 'podinfo-5xxx not found'],
    );
    // Alarms live in a region: the same name elsewhere is not found either.
    const elsewhere = await evaluate({ alarmNames: ['podinfo-5xx'], region: 'us-east-1' });
    assert.deepEqual([elsewhere.verdict, elsewhere.reason], ['inconclusive', 'AlarmNotFound']);
    assert.equal(cloudwatch.requests.at(-1)?.region, 'us-east-1');
  });

  it('reads composite alarms as metric alarms', async () => {
    cloudwatch.setAlarm('podinfo-health', 'OK', { type: 'CompositeAlarm' }).setAlarm('podinfo-5xx', 'OK');
    const ok = await evaluate({ alarmNames: ['podinfo-health', 'podinfo-5xx'], region: REGION });
    assert.deepEqual([ok.verdict, ok.value], ['passed', '2 alarms OK']);
    cloudwatch.setAlarm('podinfo-health', 'ALARM', { type: 'CompositeAlarm' });
    const inAlarm = await evaluate({ alarmNames: ['podinfo-health', 'podinfo-5xx'], region: REGION });
    assert.deepEqual([inAlarm.verdict, inAlarm.value], ['failed', 'podinfo-health ALARM']);
  });

  it('reads more than a page, and more than 100 names, every alarm once', async () => {
    const names = Array.from({ length: 230 }, (_, index) => `svc-${String(index).padStart(3, '0')}`);
    for (const name of names)
      cloudwatch.setAlarm(name, 'OK', { type: name.endsWith('7') ? 'CompositeAlarm' : 'MetricAlarm' });
    const before = cloudwatch.requests.length;
    const ok = await evaluate({ alarmNames: names, region: REGION });
    assert.deepEqual([ok.verdict, ok.value], ['passed', '230 alarms OK']);
    const sent = cloudwatch.requests.slice(before);
    assert.ok(sent.every((request) => (request.alarmNames?.length ?? 0) <= 100 && request.status === 200));
    assert.deepEqual([...new Set(sent.flatMap((request) => request.alarmNames ?? []))].sort(), [...names].sort());

    // The last alarm of the last batch decides: it was read.
    cloudwatch.setAlarm('svc-229', 'ALARM');
    const last = await evaluate({ alarmNames: names, region: REGION });
    assert.deepEqual([last.verdict, last.value], ['failed', 'svc-229 ALARM']);
    for (const name of names) cloudwatch.removeAlarm(name);
  });

  it('follows CloudWatch’s pages when an answer is cut short', async () => {
    const paged = await FakeCloudWatch.start({ regions: [REGION], pageLimit: 25 });
    try {
      const names = Array.from({ length: 60 }, (_, index) => `page-${String(index).padStart(2, '0')}`);
      for (const name of names) paged.setAlarm(name, 'OK');
      paged.setAlarm('page-59', 'INSUFFICIENT_DATA');
      const result = await evaluateCloudWatchAlarmsCheck(
        'errors',
        { alarmNames: names, region: REGION },
        { cloudwatch: reader({ endpoint: paged.endpoint }) },
      );
      assert.deepEqual([result.reason, result.value], ['InsufficientData', 'page-59 INSUFFICIENT_DATA']);
      assert.deepEqual(
        paged.requests.map((request) => [request.maxRecords, request.nextToken !== undefined]),
        [
          [100, false],
          [100, true],
          [100, true],
        ],
      );
    } finally {
      await paged.stop();
    }
  });

  it('is Unauthorized when the signature is bad, and says nothing of the secret', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK');
    const wrongSecret = await evaluate(
      { alarmNames: ['podinfo-5xx'], region: REGION },
      {
        credentials: () =>
          Promise.resolve({ ...FAKE_CLOUDWATCH_CREDENTIALS, secretAccessKey: 'not-the-right-secret-key-0123' }),
      },
    );
    assert.deepEqual(
      [wrongSecret.verdict, wrongSecret.reason, wrongSecret.value],
      ['inconclusive', 'Unauthorized', 'HTTP 403'],
    );
    assert.equal(cloudwatch.requests.at(-1)?.status, 403);
    assert.ok(!wrongSecret.message.includes('not-the-right-secret-key'), wrongSecret.message);
    const unknownKey = await evaluate(
      { alarmNames: ['podinfo-5xx'], region: REGION },
      { credentials: () => Promise.resolve({ accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x'.repeat(40) }) },
    );
    assert.deepEqual([unknownKey.verdict, unknownKey.reason], ['inconclusive', 'Unauthorized']);
    assert.match(unknownKey.message, /UnrecognizedClient/);
  });

  it('is Unauthorized when CloudWatch denies access', async () => {
    cloudwatch.fail({
      status: 403,
      type: 'com.amazon.coral.service#AccessDeniedException',
      queryError: 'AccessDenied;Sender',
      message:
        'User: arn:aws:sts::123456789012:assumed-role/verifier/fn is not authorized to perform: cloudwatch:DescribeAlarms',
    });
    const result = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION });
    assert.deepEqual([result.verdict, result.reason, result.value], ['inconclusive', 'Unauthorized', 'HTTP 403']);
    assert.match(result.message, /AccessDenied/);
  });

  it('is a ServerError when throttled or failing, after the SDK’s retries', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK').fail({ throttling: true });
    const before = cloudwatch.requests.length;
    const throttled = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION }, { maxAttempts: 2 });
    assert.deepEqual(
      [throttled.verdict, throttled.reason, throttled.value],
      ['inconclusive', 'ServerError', 'HTTP 400'],
    );
    assert.match(throttled.message, /throttled \(Throttling/);
    assert.equal(cloudwatch.requests.length - before, 2, 'the SDK retried once');

    cloudwatch.fail({ status: 500 });
    const failing = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION }, { maxAttempts: 1 });
    assert.deepEqual([failing.verdict, failing.reason, failing.value], ['inconclusive', 'ServerError', 'HTTP 500']);

    // A throttled first attempt the retry gets past is no failure.
    cloudwatch.fail({ throttling: true }, 1);
    const recovered = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION }, { maxAttempts: 2 });
    assert.equal(recovered.verdict, 'passed', recovered.message);
  });

  it('is a Timeout when CloudWatch never answers', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK').fail({ never: true });
    const result = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION }, { timeoutMs: 300 });
    assert.deepEqual([result.verdict, result.reason], ['inconclusive', 'Timeout']);
  });

  it('is Unreachable when nothing listens', async () => {
    const gone = await FakeCloudWatch.start();
    const endpoint = gone.endpoint;
    await gone.stop();
    const result = await evaluate({ alarmNames: ['podinfo-5xx'], region: REGION }, { endpoint, maxAttempts: 1 });
    assert.deepEqual([result.verdict, result.reason], ['inconclusive', 'Unreachable']);
    assert.match(result.message, /ECONNREFUSED/);
  });

  it('uses the SDK’s default credentials, region and endpoint settings without a reader given', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK').setAlarm('podinfo-5xx', 'ALARM', { region: 'us-east-1' });
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: FAKE_CLOUDWATCH_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: FAKE_CLOUDWATCH_CREDENTIALS.secretAccessKey,
      AWS_REGION: REGION,
      AWS_ENDPOINT_URL_CLOUDWATCH: cloudwatch.endpoint,
    });
    try {
      const own = await evaluateCloudWatchAlarmsCheck('errors', { alarmNames: ['podinfo-5xx'] });
      assert.deepEqual([own.verdict, own.value], ['passed', '1 alarm OK'], own.message);
      assert.equal(cloudwatch.requests.at(-1)?.region, REGION);
      const other = await evaluateCloudWatchAlarmsCheck('errors', { alarmNames: ['podinfo-5xx'], region: 'us-east-1' });
      assert.deepEqual([other.verdict, other.value], ['failed', 'podinfo-5xx ALARM'], other.message);
      assert.equal(cloudwatch.requests.at(-1)?.region, 'us-east-1');
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      cloudwatch.removeAlarm('podinfo-5xx', 'us-east-1');
    }
  });

  it('stamps the result with the time given', async () => {
    cloudwatch.setAlarm('podinfo-5xx', 'OK');
    const result = await evaluateCloudWatchAlarmsCheck(
      'errors',
      { alarmNames: ['podinfo-5xx'], region: REGION },
      { cloudwatch: reader(), now: () => new Date('2026-11-29T05:00:00Z') },
    );
    assert.equal(result.checkedAt, '2026-11-29T05:00:00.000Z');
  });
});
