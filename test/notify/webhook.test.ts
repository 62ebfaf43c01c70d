// The generic webhook sink: a JSON body a receiver built for Flux's generic-hmac verifies with its key, the news in
// it, and failures that name the host only.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  NEWS_DOCUMENT_VERSION,
  NewsWebhookSink,
  NotificationDeliveryError,
  configSyncNewsOf,
  newsId,
  newsOf,
  type PipelineNews,
} from '../../lib/notify/index.js';
import { EVENT_SIGNATURE_ALGORITHMS, verifySignature } from '../../lib/signing/hmac.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { BAD_COMMIT, configSyncFailure, effect } from './support.js';

const KEY = 'webhook-hmac-key-0123456789abcdef';
const SECRET_PATH = '/hooks/pipelines?token=query-secret-42';
const approval = newsOf(effect({ type: 'approval-requested', env: 'prod' })) as PipelineNews;

describe('NewsWebhookSink', () => {
  let endpoint: FakeSlack;
  let url: string;

  before(async () => {
    endpoint = await FakeSlack.start();
    url = `${endpoint.url}${SECRET_PATH}`;
  });
  beforeEach(() => {
    endpoint.posts.length = 0;
    endpoint.behaviour = 'slack';
  });
  after(() => endpoint.stop());

  it('POSTs the news as JSON with an X-Signature that verifies under the key, over the exact body', async () => {
    await new NewsWebhookSink({ url, hmacKey: KEY }).deliver(approval);

    assert.equal(endpoint.posts.length, 1);
    const [post] = endpoint.posts;
    assert.ok(post);
    assert.equal(post.path, SECRET_PATH);
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.headers['user-agent'], 'pipeline-controller');
    const signature = post.headers['x-signature'];
    assert.equal(typeof signature, 'string');
    assert.match(String(signature), /^sha256=[0-9a-f]{64}$/);
    const body = Buffer.from(post.body, 'utf8');
    assert.ok(verifySignature(String(signature), body, KEY, EVENT_SIGNATURE_ALGORITHMS));
    assert.ok(!verifySignature(String(signature), body, 'another key', EVENT_SIGNATURE_ALGORITHMS));
    assert.deepEqual(JSON.parse(post.body), {
      version: NEWS_DOCUMENT_VERSION,
      id: newsId(approval),
      kind: 'approval-waiting',
      pipeline: { namespace: 'flux-system', name: 'podinfo' },
      environment: 'prod',
      revision: '6.9.2',
      reason: '6.9.2 waits for approval to be promoted to prod',
      approveCommand: 'pipelinectl approve flux-system/podinfo prod --revision 6.9.2',
      at: '2026-11-01T10:00:00.000Z',
    });
  });

  it('names why a promotion failed for good, for a receiver to count', async () => {
    const failed = newsOf(
      effect({ type: 'promotion-failed', env: 'prod', error: 'GitHub answered 401', failureKind: 'Unauthorized' }),
    ) as PipelineNews;
    await new NewsWebhookSink({ url }).deliver(failed);
    const body = JSON.parse(endpoint.posts[0]?.body ?? '{}') as Record<string, unknown>;
    assert.deepEqual([body.kind, body.failureKind], ['promotion-failed', 'Unauthorized']);
  });

  it('POSTs news about a ConfigSource with the source in place of the pipeline and environment', async () => {
    const news = configSyncNewsOf(configSyncFailure(), new Date('2026-11-29T10:00:00Z'));
    assert.ok(news);
    await new NewsWebhookSink({ url, hmacKey: KEY }).deliver(news);
    const [post] = endpoint.posts;
    assert.ok(post);
    assert.ok(verifySignature(String(post.headers['x-signature']), Buffer.from(post.body), KEY, ['sha256']));
    assert.deepEqual(JSON.parse(post.body), {
      version: NEWS_DOCUMENT_VERSION,
      id: newsId(news),
      kind: 'config-sync-failed',
      configSource: { namespace: 'flux-system', name: 'fleet' },
      revision: BAD_COMMIT,
      syncReason: 'ValidationFailed',
      reason:
        '1 problem: pipelines/podinfo.yaml:8:7: Pipeline flux-system/podinfo: spec.environments[0].targetz: ' +
        'unknown field "targetz"',
      at: '2026-11-29T10:00:00.000Z',
    });
    // One id per (source, commit): a later failure of the same commit is the same news, another commit another.
    const later = configSyncNewsOf(configSyncFailure({ reason: 'Conflict' }), new Date('2026-11-29T11:00:00Z'));
    const next = configSyncNewsOf(configSyncFailure({ revision: `main@sha1:${'e'.repeat(40)}` }), new Date());
    assert.ok(later && next);
    assert.equal(newsId(later), newsId(news));
    assert.notEqual(newsId(next), newsId(news));
    assert.match(newsId(news), /^[0-9a-f]{32}$/);
  });

  it('sends no signature without a key', async () => {
    await new NewsWebhookSink({ url }).deliver(approval);
    assert.equal(endpoint.posts[0]?.headers['x-signature'], undefined);
  });

  it('gives every copy of one piece of news the same id, and other news another', () => {
    const later = newsOf(effect({ type: 'approval-requested', env: 'prod', at: '2026-11-02T10:00:00.000Z' }));
    assert.ok(later);
    assert.equal(newsId(later), newsId(approval));
    assert.notEqual(newsId({ ...approval, revision: '6.9.3' }), newsId(approval));
    assert.notEqual(newsId({ ...approval, kind: 'promotion-failed' }), newsId(approval));
    assert.match(newsId(approval), /^[0-9a-f]{32}$/);
  });

  it('reports a failing endpoint by its host only: neither the path nor the query nor the key', async () => {
    endpoint.behaviour = { status: 502 };
    const sink = new NewsWebhookSink({ url, hmacKey: KEY });
    const error = await sink.deliver(approval).then(
      () => assert.fail('expected a failure'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof NotificationDeliveryError);
    assert.equal(error.message, `webhook ${new URL(url).host}: HTTP 502`);
    const everything = inspect(error, { depth: 10 }) + sink.name;
    for (const secret of ['/hooks/pipelines', 'query-secret-42', KEY]) assert.ok(!everything.includes(secret), secret);
  });
});
