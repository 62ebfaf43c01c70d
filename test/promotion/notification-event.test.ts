// The promotion event: Weave's notification strategy (docs/notifications.md) in Flux's event.v1beta1 wire form
// (docs/flux-status.md, "The event"), and the encoder checked against Flux's own bytes (the test vector, example A).
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { encodeEvent, promotionEvent, promotionId } from '../../lib/promotion/notification-strategy/index.js';
import { promotionRequest } from './promoter-contract.js';

const NOW = new Date('2026-03-14T09:26:53.589Z');

describe('promotionEvent', () => {
  it('is the Flux event Weave sent for a promotion, fields in Flux order', () => {
    const event = promotionEvent(promotionRequest('6.9.2'), NOW, { instance: 'promoter-7f9c' });
    const id = createHash('sha256').update('flux-system/podinfo/prod/6.9.2').digest('hex').slice(0, 32);
    assert.equal(
      encodeEvent(event),
      '{"involvedObject":{"kind":"Pipeline","namespace":"flux-system","name":"podinfo",' +
        '"apiVersion":"pipelines.weave.works/v1alpha1"},"severity":"info","timestamp":"2026-03-14T09:26:53Z",' +
        '"message":"Promote pipeline flux-system/podinfo to prod with version 6.9.2","reason":"Promote",' +
        `"metadata":{"environment":"prod","promotionId":"${id}","version":"6.9.2"},` +
        '"reportingController":"pipeline-controller","reportingInstance":"promoter-7f9c"}',
    );
  });

  it('leaves reportingInstance out when none is configured, as omitempty does', () => {
    const event = promotionEvent(promotionRequest('6.9.2'), NOW);
    assert.equal('reportingInstance' in event, false);
    assert.deepEqual(Object.keys(event), [
      'involvedObject',
      'severity',
      'timestamp',
      'message',
      'reason',
      'metadata',
      'reportingController',
    ]);
  });

  it('has a timestamp in UTC with whole seconds, whatever the milliseconds', () => {
    assert.equal(
      promotionEvent(promotionRequest('1'), new Date('2026-01-01T00:00:00.999Z')).timestamp,
      '2026-01-01T00:00:00Z',
    );
    assert.throws(() => promotionEvent(promotionRequest('1'), new Date(Number.NaN)), RangeError);
  });

  it('carries a promotion id that is the same on every attempt and differs between promotions', () => {
    const first = promotionEvent(promotionRequest('6.9.2', 1), NOW);
    const retry = promotionEvent(promotionRequest('6.9.2', 4), new Date(NOW.getTime() + 60_000));
    assert.match(first.metadata.promotionId, /^[0-9a-f]{32}$/);
    assert.equal(retry.metadata.promotionId, first.metadata.promotionId);
    assert.notEqual(retry.timestamp, first.timestamp);

    const request = promotionRequest('6.9.2');
    const dev = request.pipeline.environments[0];
    assert.ok(dev);
    const ids = new Set([
      promotionId(request),
      promotionId({ ...request, revision: '6.9.3' }),
      promotionId({ ...request, env: dev }),
      promotionId({ ...request, pipeline: { ...request.pipeline, name: 'other' } }),
      promotionId({ ...request, pipeline: { ...request.pipeline, namespace: 'other' } }),
    ]);
    assert.equal(ids.size, 5);
  });
});

describe('encodeEvent', () => {
  it('gives the bytes notification-controller sends, so the Flux HMAC test vector holds', () => {
    const body =
      '{"involvedObject":{"kind":"HelmRelease","namespace":"apps","name":"podinfo","uid":"0d3c3a1e-6a7b-4c1e-9a53-2f1f0e6b8a11","apiVersion":"helm.toolkit.fluxcd.io/v2","resourceVersion":"4183302"},"severity":"info","timestamp":"2025-10-01T12:00:05Z","message":"Helm upgrade succeeded for release apps/podinfo.v3 with chart podinfo@6.9.2","reason":"UpgradeSucceeded","metadata":{"app-version":"6.9.2","revision":"6.9.2"},"reportingController":"helm-controller","reportingInstance":"helm-controller-5f7d8c9b6-x2k4q"}';
    const encoded = encodeEvent(JSON.parse(body) as object);
    assert.equal(encoded, body);
    assert.equal(Buffer.byteLength(encoded), 508);
    assert.equal(
      createHmac('sha256', 's3cr3t').update(encoded).digest('hex'),
      'fc604718c2790c83b0603eb07a42ff2045af3df794484c246896756c3dd17108',
    );
  });

  it('escapes <, >, & and the JavaScript line separators as Go does, and the result parses back', () => {
    const event = { message: 'a<b>&c\u2028d\u2029é' };
    const encoded = encodeEvent(event);
    assert.equal(encoded, '{"message":"a\\u003cb\\u003e\\u0026c\\u2028d\\u2029é"}');
    assert.deepEqual(JSON.parse(encoded), event);
  });
});
