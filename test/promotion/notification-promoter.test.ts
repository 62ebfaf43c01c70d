// NotificationPromoter: one event to every sink, failures combined into one PromotionError, and the Promoter contract
// against a webhook endpoint and an EventBridge bus, where an effect is a distinct promotionId the receiver took.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PromotionError } from '../../lib/promotion/index.js';
import {
  EventBridgeSink,
  NotificationPromoter,
  promotionId,
  WebhookSink,
  type NotificationSink,
  type PromotionEvent,
} from '../../lib/promotion/notification-strategy/index.js';
import { promoterContract, promotionRequest, type PromoterUnderTest } from './promoter-contract.js';
import {
  putEventsEntries,
  putEventsReply,
  startLocalEventBridge,
  startLocalServer,
  type ReceivedRequest,
  type Reply,
} from './notification-servers.js';

class MemorySink implements NotificationSink {
  readonly events: PromotionEvent[] = [];
  failures: Error[] = [];

  constructor(readonly name: string) {}

  send(event: PromotionEvent): Promise<void> {
    this.events.push(event);
    const failure = this.failures.shift();
    return failure === undefined ? Promise.resolve() : Promise.reject(failure);
  }
}

const NOW = new Date('2026-03-14T09:26:53Z');

async function promotionFailure(promoter: NotificationPromoter): Promise<PromotionError> {
  const error = await promoter.promote(promotionRequest('6.9.2')).then(
    () => assert.fail('expected a PromotionError'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PromotionError, `not a PromotionError: ${String(error)}`);
  return error;
}

describe('NotificationPromoter', () => {
  it('sends the same event to every sink and has no result to show', async () => {
    const sinks = [new MemorySink('a'), new MemorySink('b')];
    const promoter = new NotificationPromoter({ sinks, now: () => NOW, instance: 'promoter-1' });
    assert.deepEqual(await promoter.promote(promotionRequest('6.9.2')), {});
    const [a, b] = sinks.map((sink) => sink.events);
    assert.equal(a?.length, 1);
    assert.deepEqual(b, a);
    assert.equal(a?.[0]?.timestamp, '2026-03-14T09:26:53Z');
    assert.equal(a?.[0]?.reportingInstance, 'promoter-1');
    assert.equal(a?.[0]?.message, 'Promote pipeline flux-system/podinfo to prod with version 6.9.2');
  });

  it('fails when one sink fails, naming it, after the others got the event', async () => {
    const ok = new MemorySink('webhook ok.example.com');
    const broken = new MemorySink('webhook broken.example.com');
    broken.failures.push(
      new PromotionError('HostUnavailable', 'webhook broken.example.com: HTTP 503', { retryAfterMs: 5_000 }),
    );
    const error = await promotionFailure(new NotificationPromoter({ sinks: [ok, broken] }));
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 5_000);
    assert.equal(
      error.message,
      'promotion event for flux-system/podinfo prod 6.9.2 not delivered to 1 of 2 sinks: ' +
        'webhook broken.example.com: HTTP 503',
    );
    assert.equal(ok.events.length, 1);
  });

  it('is retryable only when every failure is, waiting for the longest Retry-After', async () => {
    const [a, b, c] = [new MemorySink('a'), new MemorySink('b'), new MemorySink('c')];
    a.failures.push(new PromotionError('RateLimited', 'a: HTTP 429', { retryAfterMs: 1_000 }));
    b.failures.push(new PromotionError('HostUnavailable', 'b: HTTP 500'));
    c.failures.push(new PromotionError('RateLimited', 'c: HTTP 429', { retryAfterMs: 9_000 }));
    const transient = await promotionFailure(new NotificationPromoter({ sinks: [a, b, c] }));
    assert.equal(transient.retryable, true);
    assert.equal(transient.kind, 'RateLimited', "every sink's fault is retried: the first one's kind");
    assert.equal(transient.retryAfterMs, 9_000);
    assert.match(transient.message, /not delivered to 3 of 3 sinks: a: HTTP 429; b: HTTP 500; c: HTTP 429$/);
    assert.ok(transient.cause instanceof AggregateError);

    a.failures.push(new PromotionError('RateLimited', 'a: HTTP 429', { retryAfterMs: 1_000 }));
    b.failures.push(new PromotionError('NotFound', 'b: HTTP 404'));
    const permanent = await promotionFailure(new NotificationPromoter({ sinks: [a, b, c] }));
    assert.equal(permanent.retryable, false);
    assert.equal(permanent.kind, 'NotFound', 'the kind of the fault a person must see to');
    assert.equal(permanent.retryAfterMs, undefined);
    assert.match(permanent.message, /not delivered to 2 of 3 sinks: a: HTTP 429; b: HTTP 404$/);
  });

  it('counts anything else a sink throws as retryable, without repeating its text', async () => {
    const sink = new MemorySink('custom');
    sink.failures.push(new TypeError('secret-in-message'));
    const error = await promotionFailure(new NotificationPromoter({ sinks: [sink] }));
    assert.equal(error.retryable, true);
    assert.match(error.message, /not delivered to 1 of 1 sinks: custom: unexpected TypeError$/);
    assert.ok(error.cause instanceof TypeError);
  });

  it('treats a sink that throws instead of rejecting as a failed sink', async () => {
    const ok = new MemorySink('ok');
    const throwing: NotificationSink = {
      name: 'throwing',
      send: () => {
        throw new RangeError('bad');
      },
    };
    const error = await promotionFailure(new NotificationPromoter({ sinks: [throwing, ok] }));
    assert.equal(error.retryable, true);
    assert.match(error.message, /not delivered to 1 of 2 sinks: throwing: unexpected RangeError$/);
    assert.equal(ok.events.length, 1);
  });

  it('needs a sink', () => {
    assert.throws(() => new NotificationPromoter({ sinks: [] }), /at least one sink/);
  });

  it("sends Weave's event unchanged when the request carries evidence", async () => {
    const plain = new MemorySink('plain');
    const withEvidence = new MemorySink('with evidence');
    await new NotificationPromoter({ sinks: [plain], now: () => NOW }).promote(promotionRequest('6.9.2'));
    await new NotificationPromoter({ sinks: [withEvidence], now: () => NOW }).promote({
      ...promotionRequest('6.9.2'),
      evidence: { from: 'dev', targets: [{ name: 'dev/apps/podinfo', revision: '6.9.2', phase: 'Ready' }] },
    });
    assert.deepEqual(withEvidence.events, plain.events);
    assert.deepEqual(Object.keys(withEvidence.events[0]?.metadata ?? {}), ['environment', 'promotionId', 'version']);
  });

  it('refuses a rollback for good, sending nothing: rollback is by pull request only', async () => {
    const sink = new MemorySink('a');
    const promoter = new NotificationPromoter({ sinks: [sink], now: () => NOW });
    const error = await promoter.promote({ ...promotionRequest('6.9.1'), rollback: { from: '6.9.2' } }).then(
      () => assert.fail('the rollback was sent'),
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof PromotionError);
    assert.equal(error.retryable, false);
    assert.equal(
      error.message,
      'environment prod cannot be rolled back by notification: rollback needs the pull-request strategy',
    );
    assert.deepEqual(sink.events, []);
  });
});

/** A receiver that de-duplicates by promotionId: the effects of (env, revision) are the distinct ids it took. */
function effectsOf(events: PromotionEvent[], env: string, revision: string): number {
  const request = promotionRequest(revision);
  const target = request.pipeline.environments.find((e) => e.name === env) ?? assert.fail(`no environment ${env}`);
  const id = promotionId({ ...request, env: target });
  const ids = new Set(
    events
      .filter((event) => event.metadata.environment === env && event.metadata.version === revision)
      .map((event) => event.metadata.promotionId),
  );
  assert.ok(ids.size <= 1 && (ids.size === 0 || ids.has(id)), 'one promotion, one id');
  return ids.size;
}

/** Replies with `fault` to the next request once, else with `ok`; records the events of the accepted requests. */
function faultable(
  ok: () => Reply,
  faults: { transient: Reply; permanent: Reply },
  decode: (r: ReceivedRequest) => PromotionEvent,
) {
  let next: Reply | undefined;
  const accepted: PromotionEvent[] = [];
  return {
    accepted,
    reply: (request: ReceivedRequest): Reply => {
      const fault = next;
      next = undefined;
      if (fault) return fault;
      accepted.push(decode(request));
      return ok();
    },
    inject: (kind: 'transient' | 'permanent') => {
      next = faults[kind];
    },
  };
}

promoterContract('notifications via a generic-hmac webhook', async (): Promise<PromoterUnderTest> => {
  const server = await startLocalServer();
  const endpoint = faultable(
    () => ({ status: 202 }),
    { transient: { status: 503, headers: { 'Retry-After': '1' } }, permanent: { status: 403 } },
    (request) => JSON.parse(request.body.toString('utf8')) as PromotionEvent,
  );
  server.reply = endpoint.reply;
  const sink = new WebhookSink({ url: `${server.url}/hook`, hmacKey: 'k', timeoutMs: 2_000 });
  return {
    promoter: new NotificationPromoter({ sinks: [sink] }),
    effects: (env, revision) => Promise.resolve(effectsOf(endpoint.accepted, env, revision)),
    injectFault: endpoint.inject,
    stop: () => server.stop(),
  };
});

promoterContract('notifications via EventBridge', async (): Promise<PromoterUnderTest> => {
  const bus = await startLocalEventBridge();
  const endpoint = faultable(
    putEventsReply.accepted,
    {
      transient: putEventsReply.failedEntry('ThrottlingException'),
      permanent: putEventsReply.error(400, 'AccessDeniedException'),
    },
    (request) => JSON.parse(String(putEventsEntries(request)[0]?.Detail)) as PromotionEvent,
  );
  bus.putEvents = endpoint.reply;
  const sink = new EventBridgeSink({ client: bus.client, eventBusName: 'promotions' });
  return {
    promoter: new NotificationPromoter({ sinks: [sink] }),
    effects: (env, revision) => Promise.resolve(effectsOf(endpoint.accepted, env, revision)),
    injectFault: endpoint.inject,
    stop: () => bus.stop(),
  };
});
