// The notification listener end to end, as the verifier drives it: effects in; Slack (a local stand-in), a signed
// generic webhook (the same server, another path) and EventBridge (a fake client) out. At most one message per
// (pipeline, environment, revision, kind) however many times and by however many verifiers an effect is seen; a
// failing sink is logged and never fails the listener; `spec.notify` narrows; no secret reaches a log line.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  notificationListenerOf,
  parseNotificationSettings,
  peopleNotificationsOf,
  type NotificationSettings,
  type PutEventsClient,
} from '../../lib/notify/index.js';
import { verifySignature } from '../../lib/signing/hmac.js';
import { createDynamoStore } from '../../lib/store/index.js';
import type { Store } from '../../lib/store/port.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import type { EffectListener } from '../../lib/verifier/index.js';
import { startDynalite } from '../support/dynalite.js';
import { configSyncFailure, effect, fakePutEvents, podinfo, recordingLogger } from './support.js';

const HMAC_KEY = 'news-hmac-key-9f8e7d6c5b4a';
const WEBHOOK_PATH = '/generic/news?token=webhook-query-secret';

describe('notificationListener', () => {
  let server: FakeSlack;
  let settings: NotificationSettings;
  let bus: ReturnType<typeof fakePutEvents>;
  let logger: ReturnType<typeof recordingLogger>;
  /** Every log line of every test, to look for secrets in at the end. */
  const allLogs: string[] = [];

  before(async () => {
    server = await FakeSlack.start();
    settings = parseNotificationSettings({
      slack: { webhookUrl: server.webhookUrl },
      webhook: { url: `${server.url}${WEBHOOK_PATH}`, hmacKey: HMAC_KEY },
      eventBus: { name: 'pipelines' },
    });
  });
  beforeEach(() => {
    server.posts.length = 0;
    server.behaviour = 'slack';
    bus = fakePutEvents();
    logger = recordingLogger();
  });
  after(async () => {
    await server.stop();
    // No secret in any log line of any test above: the Slack URL (its path is the credential), the generic webhook's
    // URL, path and query, the HMAC key.
    const text = allLogs.join('\n');
    assert.ok(text.length > 0);
    for (const secret of [server.webhookUrl, new URL(server.webhookUrl).pathname, WEBHOOK_PATH, HMAC_KEY]) {
      assert.ok(!text.includes(secret), `a log line holds ${secret}`);
    }
    assert.ok(!text.includes('webhook-query-secret'));
  });

  function listener(
    store: Store,
    options: { settings?: NotificationSettings; timeoutMs?: number; client?: PutEventsClient } = {},
  ): EffectListener {
    const built = notificationListenerOf({
      settings: options.settings ?? settings,
      store,
      logger: {
        debug: (message, attributes) => {
          logger.debug(message, attributes);
          allLogs.push(`${message} ${JSON.stringify(attributes)}`);
        },
        info: (message, attributes) => {
          logger.info(message, attributes);
          allLogs.push(`${message} ${JSON.stringify(attributes)}`);
        },
        warn: (message, attributes) => {
          logger.warn(message, attributes);
          allLogs.push(`${message} ${JSON.stringify(attributes)}`);
        },
      },
      eventBridge: options.client ?? bus,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      now: () => new Date('2026-11-01T10:00:01Z'),
    });
    assert.ok(built);
    return built;
  }

  const slackPosts = () => server.posts.filter((post) => post.path.startsWith('/services/'));
  const webhookPosts = () => server.posts.filter((post) => post.path === WEBHOOK_PATH);

  it('tells every sink of a waiting approval once: Slack, the signed webhook, EventBridge', async () => {
    await listener(new MemoryStore())(effect({ type: 'approval-requested', env: 'prod' }));

    assert.equal(slackPosts().length, 1);
    assert.equal(server.messages.length, 1, 'Slack took the message');
    const slackText = slackPosts()[0]?.body ?? '';
    for (const shown of ['flux-system/podinfo', 'prod', '6.9.2', 'pipelinectl approve flux-system/podinfo prod']) {
      assert.ok(slackText.includes(shown), shown);
    }
    const [webhook] = webhookPosts();
    assert.ok(webhook);
    assert.equal(webhookPosts().length, 1);
    assert.ok(verifySignature(String(webhook.headers['x-signature']), Buffer.from(webhook.body), HMAC_KEY, ['sha256']));
    assert.equal((JSON.parse(webhook.body) as { kind: string }).kind, 'approval-waiting');
    assert.equal(bus.entries.length, 1);
    assert.equal(logger.warnings.length, 0);
  });

  it('sends the same effect told twice once', async () => {
    const notify = listener(new MemoryStore());
    const fields = {
      type: 'promotion-succeeded',
      env: 'staging',
      result: 'https://github.com/acme/fleet/pull/7',
    } as const;
    const opened = effect(fields);
    await notify(opened);
    await notify(opened);
    // A later sighting of the same news (another verifier's audit entry, a minute on) is the same news.
    await notify(effect({ ...fields, at: '2026-11-01T10:01:00.000Z', actor: 'verifier-2' }));
    assert.equal(slackPosts().length, 1);
    assert.ok(slackPosts()[0]?.body.includes('https://github.com/acme/fleet/pull/7'));
    assert.equal(webhookPosts().length, 1);
    assert.equal(bus.entries.length, 1);
  });

  it('two listeners sharing one store, told at once, send once', async () => {
    const store = new MemoryStore();
    const [a, b] = [listener(store), listener(store)];
    const waiting = effect({ type: 'approval-requested', env: 'prod', revision: '7.0.0' });
    await Promise.all([a(waiting), b(waiting), a(waiting), b(waiting)]);
    assert.equal(slackPosts().length, 1);
    assert.equal(webhookPosts().length, 1);
    assert.equal(bus.entries.length, 1);
  });

  it('two verifiers with their own DynamoDB store on one table send once', async () => {
    const dynamo = await startDynalite();
    try {
      const storeOf = () => createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
      const verifiers = Array.from({ length: 4 }, () => listener(storeOf()));
      const failedForGood = effect({ type: 'promotion-failed', env: 'prod', error: 'no $promotion marker for prod' });
      await Promise.all(verifiers.map((notify) => notify(failedForGood)));
      assert.equal(slackPosts().length, 1);
      assert.equal(webhookPosts().length, 1);
      assert.equal(bus.entries.length, 1);
      // Other news of the same promotion is another message.
      await verifiers[0]?.(effect({ type: 'approval-requested', env: 'prod' }));
      assert.equal(slackPosts().length, 2);
    } finally {
      await dynamo.stop();
    }
  });

  it('a 500 from Slack is logged by sink and status; the listener resolves and the other sinks still get it', async () => {
    server.behaviour = { status: 500, body: 'internal_error' };
    await listener(new MemoryStore())(effect({ type: 'approval-requested', env: 'prod' }));
    const failures = logger.warnings.filter((line) => line.message === 'notification not delivered');
    assert.deepEqual(
      failures.map((line) => [line.attributes.sink, line.attributes.failure, line.attributes.status]),
      [
        ['slack', 'http-status', 500],
        [`webhook ${new URL(server.url).host}`, 'http-status', 500],
      ],
    );
    assert.equal(failures[0]?.attributes.kind, 'approval-waiting');
    assert.equal(failures[0]?.attributes.pipeline, 'flux-system/podinfo');
    assert.equal(bus.entries.length, 1, 'EventBridge got it all the same');
  });

  it('a Slack that does not answer costs the listener its timeout, no more, and is logged', async () => {
    server.behaviour = { delayMs: 10_000 };
    const started = Date.now();
    await listener(new MemoryStore(), { timeoutMs: 200 })(effect({ type: 'approval-requested', env: 'prod' }));
    assert.ok(Date.now() - started < 5_000);
    assert.deepEqual(
      logger.warnings.map((line) => [line.attributes.sink, line.attributes.failure]),
      [
        ['slack', 'timeout'],
        [`webhook ${new URL(server.url).host}`, 'timeout'],
      ],
    );
  });

  it('a store that cannot claim sends nothing and is logged, without failing the listener', async () => {
    const store = new MemoryStore();
    store.claimNotification = () => Promise.reject(new Error('ProvisionedThroughputExceededException'));
    await listener(store)(effect({ type: 'approval-requested', env: 'prod' }));
    assert.equal(server.posts.length, 0);
    assert.equal(bus.entries.length, 0);
    assert.equal(logger.warnings[0]?.message, 'notification not sent: the store could not be read or written');
  });

  it('a promotion failure that is retried is not news; failed for good, it is', async () => {
    const notify = listener(new MemoryStore());
    const retried = { type: 'promotion-failed' as const, env: 'prod', error: 'GitHub answered 502' };
    await notify(effect({ ...retried, retryAt: '2026-11-01T10:05:00.000Z' }));
    assert.equal(server.posts.length + bus.entries.length, 0);
    await notify(effect(retried));
    assert.equal(slackPosts().length, 1);
    assert.ok(slackPosts()[0]?.body.includes('GitHub answered 502'));
  });

  describe('a regression', () => {
    const regressed = effect({
      type: 'environment-regressed',
      env: 'prod',
      at: '2026-11-01T12:00:00.000Z',
      message: 'a target of prod failed on 6.9.2',
    });

    it('of an environment that never passed is not news', async () => {
      const store = new MemoryStore();
      // Another environment passed; prod never did.
      await store.appendAudit({
        ...regressed.entry,
        type: 'environment-passed',
        env: 'staging',
        at: '2026-11-01T09:00:00.000Z',
      });
      await store.appendAudit(regressed.entry);
      await listener(store)(regressed);
      assert.equal(server.posts.length + bus.entries.length, 0);
    });

    it('of an environment that had passed is news, once', async () => {
      const store = new MemoryStore();
      await store.appendAudit({
        ...regressed.entry,
        type: 'environment-passed',
        revision: '6.9.1',
        at: '2026-11-01T09:00:00.000Z',
      });
      await store.appendAudit(regressed.entry);
      const notify = listener(store);
      await notify(regressed);
      await notify(regressed);
      assert.equal(slackPosts().length, 1);
      assert.ok(slackPosts()[0]?.body.includes('Environment regressed'));
      assert.ok(slackPosts()[0]?.body.includes('a target of prod failed on 6.9.2'));
    });

    it('of an environment whose previous fact is a regression is not news again', async () => {
      const store = new MemoryStore();
      await store.appendAudit({ ...regressed.entry, type: 'environment-passed', at: '2026-11-01T08:00:00.000Z' });
      await store.appendAudit({ ...regressed.entry, revision: '6.9.1', at: '2026-11-01T09:00:00.000Z' });
      await store.appendAudit(regressed.entry);
      await listener(store)(regressed);
      assert.equal(server.posts.length, 0);
    });
  });

  describe('narrowed', () => {
    const narrowed = podinfo({ news: ['promotion-failed', 'approval-waiting'], environments: ['prod'] });

    it('by the pipeline’s spec.notify: only its kinds, only its environments', async () => {
      const notify = listener(new MemoryStore());
      await notify(
        effect({ type: 'promotion-succeeded', env: 'prod', result: 'https://x/pull/1', pipeline: narrowed }),
      );
      await notify(effect({ type: 'promotion-failed', env: 'staging', error: 'refused', pipeline: narrowed }));
      assert.equal(server.posts.length + bus.entries.length, 0);
      await notify(effect({ type: 'promotion-failed', env: 'prod', error: 'refused', pipeline: narrowed }));
      assert.equal(slackPosts().length, 1);
      assert.ok(slackPosts()[0]?.body.includes('Promotion failed'));
    });

    it('by spec.notify: an empty list of kinds silences the pipeline', async () => {
      const silent = podinfo({ news: [] });
      await listener(new MemoryStore())(effect({ type: 'approval-requested', env: 'prod', pipeline: silent }));
      assert.equal(server.posts.length + bus.entries.length, 0);
    });

    it('by the installation’s kinds, and by both', async () => {
      const onlyApprovals = parseNotificationSettings({ ...settings, news: ['approval-waiting'] });
      const notify = listener(new MemoryStore(), { settings: onlyApprovals });
      await notify(effect({ type: 'promotion-failed', env: 'prod', error: 'refused' }));
      assert.equal(server.posts.length, 0);
      await notify(effect({ type: 'approval-requested', env: 'staging', pipeline: narrowed }));
      assert.equal(server.posts.length, 0, 'staging is not among the pipeline’s environments');
      await notify(effect({ type: 'approval-requested', env: 'prod', pipeline: narrowed }));
      assert.equal(slackPosts().length, 1);
    });
  });
});

describe('notificationListenerOf', () => {
  const logger = recordingLogger();
  const store = new MemoryStore();

  it('is undefined when no sink is configured: nothing to claim, nothing to send', () => {
    assert.equal(notificationListenerOf({ settings: parseNotificationSettings({}), store, logger }), undefined);
    assert.equal(
      notificationListenerOf({ settings: parseNotificationSettings({ news: ['promotion-failed'] }), store, logger }),
      undefined,
    );
  });

  it('needs an EventBridge client for an event bus', () => {
    assert.throws(
      () => notificationListenerOf({ settings: parseNotificationSettings({ eventBus: { name: 'b' } }), store, logger }),
      /an event bus is configured but no EventBridge client/,
    );
  });

  it('says which sinks it tells, by name only', () => {
    const url = 'https://hooks.slack.com/services/T1/B2/very-secret';
    const hook = 'https://hooks.example.com/news?token=also-secret';
    notificationListenerOf({
      settings: parseNotificationSettings({ slack: { webhookUrl: url }, webhook: { url: hook } }),
      store,
      logger,
    });
    assert.deepEqual(logger.lines.at(-1)?.attributes, { sinks: ['slack', 'webhook hooks.example.com'], news: 'all' });
    assert.ok(!logger.text().includes('secret'));
  });
});

describe('the ConfigSource sync’s listener: config-sync-failed', () => {
  let server: FakeSlack;
  let bus: ReturnType<typeof fakePutEvents>;
  let logger: ReturnType<typeof recordingLogger>;
  const WEBHOOK = '/generic/news';

  before(async () => (server = await FakeSlack.start()));
  beforeEach(() => {
    server.posts.length = 0;
    bus = fakePutEvents();
    logger = recordingLogger();
  });
  after(() => server.stop());

  function people(store: Pick<Store, 'claimNotification' | 'listAudit'>, news?: NotificationSettings['news']) {
    const built = peopleNotificationsOf({
      settings: parseNotificationSettings({
        slack: { webhookUrl: server.webhookUrl },
        webhook: { url: `${server.url}${WEBHOOK}` },
        eventBus: { name: 'pipelines' },
        ...(news === undefined ? {} : { news }),
      }),
      store,
      logger,
      eventBridge: bus,
      now: () => new Date('2026-11-29T10:00:00Z'),
    });
    assert.ok(built);
    return built;
  }

  const slackPosts = () => server.posts.filter((post) => post.path.startsWith('/services/'));
  const webhookPosts = () => server.posts.filter((post) => post.path === WEBHOOK);

  it('tells every sink once per (source, commit), however many verifiers are told', async () => {
    const store = new MemoryStore();
    const [a, b] = [people(store), people(store)];
    await Promise.all([a.onConfigSyncFailure(configSyncFailure()), b.onConfigSyncFailure(configSyncFailure())]);
    await a.onConfigSyncFailure(configSyncFailure({ reason: 'Conflict', message: 'another sync, the same commit' }));
    assert.equal(slackPosts().length, 1);
    assert.equal(server.messages.length, 1, 'Slack took the message');
    assert.equal(webhookPosts().length, 1);
    assert.equal(bus.entries.length, 1);
    assert.ok(logger.lines.some((line) => line.message === 'notification already sent by another verifier'));

    await b.onConfigSyncFailure(configSyncFailure({ revision: `main@sha1:${'e'.repeat(40)}` }));
    assert.equal(slackPosts().length, 2, 'another commit is other news');
    assert.equal(logger.warnings.length, 0);
  });

  it('follows the installation’s kinds', async () => {
    const store = new MemoryStore();
    await people(store, ['promotion-failed']).onConfigSyncFailure(configSyncFailure());
    assert.equal(server.posts.length + bus.entries.length, 0, 'not a kind the installation sends');
    assert.equal(store.counts.writes, 0, 'nothing claimed');

    const only = people(store, ['config-sync-failed']);
    await only.listener(effect({ type: 'promotion-failed', env: 'prod', error: 'no marker' }));
    assert.equal(server.posts.length, 0, 'pipeline news the installation does not send');
    await only.onConfigSyncFailure(configSyncFailure());
    assert.equal(slackPosts().length, 1);
  });

  it('a store that cannot claim sends nothing and is logged; the sync is never failed by it', async () => {
    const broken = {
      claimNotification: () => Promise.reject(new Error('the table is not there')),
      listAudit: () => Promise.reject(new Error('the table is not there')),
    };
    await people(broken).onConfigSyncFailure(configSyncFailure());
    assert.equal(server.posts.length, 0);
    assert.equal(logger.warnings.length, 1);
    assert.equal(logger.warnings[0]?.attributes.configSource, 'flux-system/fleet');
  });
});
