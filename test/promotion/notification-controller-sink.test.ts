// The notification-controller sink: what Weave's notification strategy did (a Flux event recorder POSTing to the
// management cluster's notification-controller, docs/weave-compatibility.md), against a local stand-in of its event
// receiver. The request is the Flux event, unsigned; the metadata also carries the keys prefixed with the Pipeline's
// API group, the only ones notification-controller forwards; a 429 (an identical event already taken within its
// rate-limit interval) means the event is there.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PromotionError } from '../../lib/promotion/index.js';
import {
  encodeEvent,
  NotificationControllerSink,
  NotificationPromoter,
  promotionEvent,
  type PromotionEvent,
} from '../../lib/promotion/notification-strategy/index.js';
import { createPromoter } from '../../lib/runtime/promoter.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { promotionRequest } from './promoter-contract.js';
import { startLocalServer, type LocalServer } from './notification-servers.js';

const event: PromotionEvent = promotionEvent(promotionRequest('6.9.2'), new Date('2026-03-14T09:26:53Z'), {
  instance: 'promoter-1',
});

describe('NotificationControllerSink', () => {
  let server: LocalServer;
  let sink: NotificationControllerSink;

  before(async () => {
    server = await startLocalServer();
    // The address Weave's Helm chart gave its event recorder, here on the stand-in's port.
    sink = new NotificationControllerSink({ url: `${server.url}/` });
  });
  beforeEach(() => {
    server.received = [];
    server.reply = () => ({ status: 202 });
  });
  after(() => server.stop());

  it('POSTs the Flux event as JSON to the receiver address, unsigned, its metadata also under the API group', async () => {
    await sink.send(event);
    const [request] = server.received;
    assert.ok(request);
    assert.equal(server.received.length, 1);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-signature'], undefined);
    const sent = JSON.parse(request.body.toString('utf8')) as PromotionEvent & { metadata: Record<string, string> };
    const { promotionId } = event.metadata;
    // Go marshals a map with its keys sorted; notification-controller keeps the `pipelines.weave.works/` ones,
    // without the prefix, which gives back the event's own metadata.
    assert.deepEqual(Object.keys(sent.metadata), [
      'environment',
      'pipelines.weave.works/environment',
      'pipelines.weave.works/promotionId',
      'pipelines.weave.works/version',
      'promotionId',
      'version',
    ]);
    assert.deepEqual(sent.metadata, {
      environment: 'prod',
      'pipelines.weave.works/environment': 'prod',
      'pipelines.weave.works/promotionId': promotionId,
      'pipelines.weave.works/version': '6.9.2',
      promotionId,
      version: '6.9.2',
    });
    assert.deepEqual({ ...sent, metadata: event.metadata }, event, 'every other field as the webhook sends it');
    assert.equal(request.body.toString('utf8'), encodeEvent({ ...event, metadata: sent.metadata }));
  });

  it('takes a 429 as delivered: notification-controller drops a copy of an event it took moments ago', async () => {
    server.reply = () => ({ status: 429, headers: { 'Retry-After': '300' } });
    await sink.send(event);
    assert.equal(server.received.length, 1);
  });

  it('reports other failures as the webhook does, naming notification-controller and its host', async () => {
    server.reply = () => ({ status: 503 });
    const unavailable = await sink.send(event).catch((error: unknown) => error);
    assert.ok(unavailable instanceof PromotionError && unavailable.retryable);
    assert.match(unavailable.message, /^notification-controller 127\.0\.0\.1:\d+: HTTP 503$/);
    server.reply = () => ({ status: 400 });
    const refused = await sink.send(event).catch((error: unknown) => error);
    assert.ok(refused instanceof PromotionError && !refused.retryable);
    assert.match(sink.name, /^notification-controller 127\.0\.0\.1:\d+$/);
  });

  it('carries a notification promotion on its own, as the only sink', async () => {
    const promoter = new NotificationPromoter({ sinks: [sink], now: () => new Date('2026-03-14T09:26:53Z') });
    assert.deepEqual(await promoter.promote(promotionRequest('6.9.3')), {});
    const sent = JSON.parse(server.received[0]?.body.toString('utf8') ?? '{}') as PromotionEvent;
    assert.equal(sent.message, 'Promote pipeline flux-system/podinfo to prod with version 6.9.3');
  });

  it('is the sink a deployment gets from its notification-controller setting (NOTIFICATION_CONTROLLER_URL, serve)', async () => {
    const promoter = createPromoter({ secrets: new StaticSecretSource(), notificationController: { url: server.url } });
    assert.deepEqual(await promoter.promote(promotionRequest('6.9.4')), {});
    const sent = JSON.parse(server.received[0]?.body.toString('utf8') ?? '{}') as PromotionEvent;
    assert.equal(sent.metadata.version, '6.9.4');
    assert.equal(server.received[0]?.headers['x-signature'], undefined);
  });
});
