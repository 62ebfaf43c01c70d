// The EventBridge news sink: one PutEvents entry per piece of news, through the port (a fake client) and through a
// real EventBridgeClient against the local PutEvents stand-in the notification strategy's tests use.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  NEWS_DETAIL_TYPE,
  NewsEventBusSink,
  NotificationDeliveryError,
  configSyncNewsOf,
  newsDocument,
  newsId,
  newsOf,
  type News,
} from '../../lib/notify/index.js';
import {
  putEventsEntries,
  putEventsReply,
  startLocalEventBridge,
  type LocalEventBridge,
} from '../promotion/notification-servers.js';
import { BAD_COMMIT, configSyncFailure, effect, fakePutEvents } from './support.js';

const failed = newsOf(
  effect({ type: 'promotion-failed', env: 'prod', error: 'no $promotion marker for prod' }),
) as News;

describe('NewsEventBusSink', () => {
  it('puts one entry: Source pipeline-controller, DetailType "Pipeline news", the news as Detail, the bus', async () => {
    const client = fakePutEvents();
    await new NewsEventBusSink({ client, eventBusName: 'pipelines' }).deliver(failed);
    assert.deepEqual(client.entries, [
      {
        Source: 'pipeline-controller',
        DetailType: NEWS_DETAIL_TYPE,
        Detail: JSON.stringify(newsDocument(failed)),
        EventBusName: 'pipelines',
      },
    ]);
    assert.equal(NEWS_DETAIL_TYPE, 'Pipeline news');
  });

  it('puts news about a ConfigSource with the source, the commit and the sync’s reason in its Detail', async () => {
    const client = fakePutEvents();
    const news = configSyncNewsOf(configSyncFailure({ reason: 'Conflict' }), new Date('2026-11-29T10:00:00Z'));
    assert.ok(news);
    await new NewsEventBusSink({ client, eventBusName: 'pipelines' }).deliver(news);
    assert.equal(client.entries.length, 1);
    assert.equal(client.entries[0]?.DetailType, 'Pipeline news');
    assert.deepEqual(JSON.parse(client.entries[0]?.Detail ?? '{}'), {
      version: 'pipeline-news/v1',
      id: newsId(news),
      kind: 'config-sync-failed',
      configSource: { namespace: 'flux-system', name: 'fleet' },
      revision: BAD_COMMIT,
      syncReason: 'Conflict',
      reason: news.reason,
      at: '2026-11-29T10:00:00.000Z',
    });
  });

  it('reports a rejected entry by its error code', async () => {
    const sink = new NewsEventBusSink({ client: fakePutEvents('NotAuthorizedForSourceException'), eventBusName: 'b' });
    await assert.rejects(sink.deliver(failed), (error: unknown) => {
      assert.ok(error instanceof NotificationDeliveryError);
      assert.equal(error.failure, 'rejected');
      assert.equal(error.message, 'EventBridge bus b: the entry was rejected (NotAuthorizedForSourceException)');
      return true;
    });
  });

  describe('with a real EventBridgeClient', () => {
    let bus: LocalEventBridge;
    before(async () => (bus = await startLocalEventBridge()));
    after(() => bus.stop());

    it('fits the port and puts the same entry', async () => {
      await new NewsEventBusSink({ client: bus.client, eventBusName: 'pipelines' }).deliver(failed);
      assert.equal(bus.server.received.length, 1);
      const [entry] = putEventsEntries(bus.server.received[0] ?? assert.fail('no request'));
      assert.equal(entry?.DetailType, 'Pipeline news');
      assert.deepEqual(JSON.parse(String(entry?.Detail)), newsDocument(failed));
    });

    it('reports a service error by its name and status, not AWS’s text', async () => {
      bus.putEvents = () => putEventsReply.error(400, 'AccessDeniedException', 'User arn:aws:iam::123 is not allowed');
      await assert.rejects(
        new NewsEventBusSink({ client: bus.client, eventBusName: 'pipelines' }).deliver(failed),
        (error: unknown) => {
          assert.ok(error instanceof NotificationDeliveryError);
          assert.equal(error.message, 'EventBridge bus pipelines: HTTP 400 (AccessDeniedException)');
          return true;
        },
      );
    });
  });
});
