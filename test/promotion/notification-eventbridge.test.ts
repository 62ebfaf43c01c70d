// EventBridgeSink through a real EventBridgeClient talking to a local PutEvents endpoint (AWS JSON 1.1): the entry it
// puts, and how failed entries and service errors map to retryable or permanent PromotionErrors.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { PromotionError } from '../../lib/promotion/index.js';
import { EventBridgeSink, encodeEvent, promotionEvent } from '../../lib/promotion/notification-strategy/index.js';
import { promotionRequest } from './promoter-contract.js';
import {
  AWS_CREDENTIALS,
  putEventsEntries,
  putEventsReply,
  startLocalEventBridge,
  startLocalServer,
  type LocalEventBridge,
} from './notification-servers.js';

const event = promotionEvent(promotionRequest('6.9.2'), new Date('2026-03-14T09:26:53Z'));

async function failure(promise: Promise<unknown>, retryable: boolean): Promise<PromotionError> {
  const error = await promise.then(
    () => assert.fail('expected a PromotionError'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PromotionError, `not a PromotionError: ${String(error)}`);
  assert.equal(error.retryable, retryable, error.message);
  assert.ok(!error.message.includes(AWS_CREDENTIALS.secretAccessKey));
  assert.ok(!inspect(error, { depth: 10 }).includes(AWS_CREDENTIALS.secretAccessKey));
  return error;
}

describe('EventBridgeSink', () => {
  let bus: LocalEventBridge;
  let sink: EventBridgeSink;

  before(async () => {
    bus = await startLocalEventBridge();
    sink = new EventBridgeSink({ client: bus.client, eventBusName: 'promotions' });
  });
  beforeEach(() => {
    bus.server.received = [];
    bus.putEvents = () => putEventsReply.accepted();
  });
  after(() => bus.stop());

  it('puts one signed PutEvents entry: Source, DetailType Promote, the event as Detail, the bus', async () => {
    await sink.send(event);
    const [request] = bus.server.received;
    assert.ok(request);
    assert.equal(bus.server.received.length, 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['x-amz-target'], 'AWSEvents.PutEvents');
    assert.equal(request.headers['content-type'], 'application/x-amz-json-1.1');
    assert.match(
      String(request.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIDLOCALTEST\/\d{8}\/eu-west-1\/events\/aws4_request, /,
    );
    const entries = putEventsEntries(request);
    assert.deepEqual(entries, [
      { Source: 'pipeline-controller', DetailType: 'Promote', Detail: encodeEvent(event), EventBusName: 'promotions' },
    ]);
    assert.deepEqual(JSON.parse(String(entries[0]?.Detail)), event);
  });

  it('uses the configured source and a bus ARN', async () => {
    const arn = 'arn:aws:events:eu-west-1:123456789012:event-bus/promotions';
    await new EventBridgeSink({ client: bus.client, eventBusName: arn, source: 'acme.promotions' }).send(event);
    const [entry] = putEventsEntries(bus.server.received[0] ?? assert.fail('no request'));
    assert.equal(entry?.Source, 'acme.promotions');
    assert.equal(entry?.EventBusName, arn);
  });

  it('reports a failed entry, retryable only when the failure is transient', async () => {
    for (const [code, retryable] of [
      ['ThrottlingException', true],
      ['InternalFailure', true],
      ['NotAuthorizedForSourceException', false],
      ['MalformedDetail', false],
    ] as const) {
      bus.putEvents = () => putEventsReply.failedEntry(code);
      const error = await failure(sink.send(event), retryable);
      assert.equal(error.message, `EventBridge bus promotions: PutEvents rejected the event (${code})`);
    }
  });

  it('reports service errors by name and status, retryable for throttling and 5xx only', async () => {
    for (const [status, type, retryable] of [
      [400, 'ThrottlingException', true],
      [500, 'InternalException', true],
      [503, 'ServiceUnavailable', true],
      [400, 'AccessDeniedException', false],
      [400, 'ValidationException', false],
      [400, 'ResourceNotFoundException', false],
    ] as const) {
      bus.putEvents = () => putEventsReply.error(status, type, `User: arn:aws:iam::123456789012:role/x says ${type}`);
      const error = await failure(sink.send(event), retryable);
      assert.equal(error.message, `EventBridge bus promotions: PutEvents failed (${type}, HTTP ${status})`);
      assert.ok(error.cause instanceof Error, 'the SDK error is kept as the cause');
    }
  });

  it('reports an endpoint it cannot reach as retryable', async () => {
    const gone = await startLocalServer();
    await gone.stop();
    const client = new EventBridgeClient({
      endpoint: gone.url,
      region: 'eu-west-1',
      credentials: AWS_CREDENTIALS,
      maxAttempts: 1,
    });
    try {
      await failure(new EventBridgeSink({ client, eventBusName: 'promotions' }).send(event), true);
    } finally {
      client.destroy();
    }
  });
});
