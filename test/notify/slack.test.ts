// The Slack sink against a local server standing in for Slack (lib/testing/fake-slack.ts): the message a person reads,
// and what each failure of the endpoint becomes, never naming the webhook's URL.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  NotificationDeliveryError,
  SlackSink,
  configSyncNewsOf,
  newsOf,
  slackMessage,
  type PipelineNews,
  type SlackMessage,
} from '../../lib/notify/index.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { BAD_COMMIT, configSyncFailure, effect } from './support.js';

const approval = newsOf(effect({ type: 'approval-requested', env: 'prod' })) as PipelineNews;
const opened = newsOf(
  effect({ type: 'promotion-succeeded', env: 'staging', result: 'https://github.com/acme/fleet/pull/42' }),
) as PipelineNews;

/** Every text of a message a person can see: the blocks' and the fallback. */
function visibleTexts(message: SlackMessage): string[] {
  const texts = [message.text];
  for (const block of message.blocks) {
    if (block.type === 'header') texts.push(block.text.text);
    if (block.type === 'section') texts.push(block.text?.text ?? '', ...(block.fields ?? []).map((f) => f.text));
    if (block.type === 'context') texts.push(...block.elements.map((element) => element.text));
  }
  return texts;
}

async function rejection(promise: Promise<unknown>): Promise<NotificationDeliveryError> {
  const error = await promise.then(
    () => assert.fail('expected a NotificationDeliveryError'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof NotificationDeliveryError, `not a NotificationDeliveryError: ${String(error)}`);
  return error;
}

describe('SlackSink', () => {
  let slack: FakeSlack;

  before(async () => (slack = await FakeSlack.start()));
  beforeEach(() => {
    slack.posts.length = 0;
    slack.behaviour = 'slack';
  });
  after(() => slack.stop());

  it('posts one message that Slack takes, with the pipeline, environment, revision, reason and approve command', async () => {
    await new SlackSink({ webhookUrl: slack.webhookUrl }).deliver(approval);

    assert.equal(slack.posts.length, 1);
    assert.equal(slack.posts[0]?.headers['content-type'], 'application/json');
    const [message] = slack.messages as SlackMessage[];
    assert.ok(message, `Slack refused the message: ${slack.posts[0]?.status}`);
    const [header, facts, command] = message.blocks;
    assert.deepEqual(header, {
      type: 'header',
      text: { type: 'plain_text', text: 'Approval waiting: flux-system/podinfo prod' },
    });
    assert.deepEqual(facts, {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Pipeline*\nflux-system/podinfo' },
        { type: 'mrkdwn', text: '*Environment*\nprod' },
        { type: 'mrkdwn', text: '*Revision*\n`6.9.2`' },
        { type: 'mrkdwn', text: '*Reason*\n6.9.2 waits for approval to be promoted to prod' },
      ],
    });
    assert.deepEqual(command, {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*Approve it with:*\n```pipelinectl approve flux-system/podinfo prod --revision 6.9.2```',
      },
    });
    assert.match(message.text, /^Approval waiting: flux-system\/podinfo prod 6\.9\.2: /);
    assert.match(message.text, /Approve it with: pipelinectl approve flux-system\/podinfo prod --revision 6\.9\.2$/);
  });

  it('links the pull request of an opened promotion', async () => {
    await new SlackSink({ webhookUrl: slack.webhookUrl }).deliver(opened);
    const [message] = slack.messages as SlackMessage[];
    assert.ok(message);
    assert.ok(
      message.blocks.some(
        (block) =>
          block.type === 'section' && block.text?.text === '*Pull request:* <https://github.com/acme/fleet/pull/42>',
      ),
    );
    assert.match(message.text, /Pull request: https:\/\/github\.com\/acme\/fleet\/pull\/42/);
    assert.ok(!message.blocks.some((block) => block.type === 'section' && block.text?.text.includes('Approve')));
  });

  it('escapes what came from outside, so an error text cannot mention a channel or forge a link', () => {
    const news: PipelineNews = {
      ...opened,
      kind: 'promotion-failed',
      reason: 'GitHub said <!channel> & <https://evil.example|click>',
      link: 'javascript:alert(1)',
    };
    const texts = visibleTexts(slackMessage(news));
    for (const text of texts) {
      assert.ok(!text.includes('<!channel>'), text);
      assert.ok(!text.includes('<https://evil'), text);
      assert.ok(!text.includes('<javascript:'), text);
    }
    assert.ok(texts.some((text) => text.includes('&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;')));
  });

  it('names the failure kind of a failed promotion beside its reason', () => {
    const news: PipelineNews = {
      ...opened,
      kind: 'promotion-failed',
      reason: 'GitHub answered 401',
      failureKind: 'Unauthorized',
    };
    const texts = visibleTexts(slackMessage(news));
    assert.ok(
      texts.some((text) => text === '*Failure kind*\n`Unauthorized`'),
      texts.join(' | '),
    );
    assert.match(slackMessage(news).text, /\nFailure kind: Unauthorized$/);
    assert.ok(!visibleTexts(slackMessage(opened)).some((text) => text.includes('Failure kind')));
  });

  it('tells of a ConfigSource commit that failed: the source, the commit, the reason and the problems', async () => {
    const news = configSyncNewsOf(configSyncFailure(), new Date('2026-11-29T10:00:00Z'));
    assert.ok(news);
    await new SlackSink({ webhookUrl: slack.webhookUrl }).deliver(news);
    assert.equal(slack.posts[0]?.status, 200, `Slack answered ${slack.posts[0]?.status}`);
    const message = slack.messages[0] as SlackMessage;
    assert.equal(
      message.text,
      `Config sync failed: flux-system/fleet ${BAD_COMMIT}: ValidationFailed: 1 problem: pipelines/podinfo.yaml:8:7: ` +
        'Pipeline flux-system/podinfo: spec.environments[0].targetz: unknown field "targetz"',
    );
    const texts = visibleTexts(message);
    assert.ok(texts.includes('Config sync failed: flux-system/fleet'), texts.join(' | '));
    for (const shown of [
      '*ConfigSource*\nflux-system/fleet',
      `*Commit*\n\`${BAD_COMMIT}\``,
      '*Reason*\n`ValidationFailed`',
      '*Problems*\n1 problem: pipelines/podinfo.yaml:8:7:',
    ]) {
      assert.ok(
        texts.some((text) => text.startsWith(shown)),
        `${shown} in ${texts.join(' | ')}`,
      );
    }
    assert.ok(!texts.some((text) => text.includes('Environment') || text.includes('Pipeline*')));
  });

  it('escapes the problems of a ConfigSource commit, which quote files from Git', () => {
    const news = configSyncNewsOf(
      configSyncFailure({ message: `${BAD_COMMIT}: 1 problem: pipelines/<!channel>.yaml: <https://evil.example|x>` }),
      new Date('2026-11-29T10:00:00Z'),
    );
    assert.ok(news);
    for (const text of visibleTexts(slackMessage(news))) {
      assert.ok(!text.includes('<!channel>'), text);
      assert.ok(!text.includes('<https://evil'), text);
    }
  });

  it('keeps within Slack’s limits when the names are long', async () => {
    const long: PipelineNews = {
      ...approval,
      env: 'e'.repeat(63),
      pipeline: { namespace: 'n'.repeat(63), name: 'p'.repeat(253) },
    };
    await new SlackSink({ webhookUrl: slack.webhookUrl }).deliver(long);
    assert.equal(slack.posts[0]?.status, 200, `Slack answered ${slack.posts[0]?.status}`);
  });

  for (const [status, body] of [
    [500, 'internal_error'],
    [404, 'no_service'],
    [403, 'action_prohibited'],
  ] as const) {
    it(`reports HTTP ${status} as a delivery error naming "slack", never the URL`, async () => {
      slack.behaviour = { status, body };
      const error = await rejection(new SlackSink({ webhookUrl: slack.webhookUrl }).deliver(approval));
      assert.equal(error.sink, 'slack');
      assert.equal(error.failure, 'http-status');
      assert.equal(error.status, status);
      assert.equal(error.message, `slack: HTTP ${status}`);
      assert.ok(!inspect(error, { depth: 10 }).includes(new URL(slack.webhookUrl).pathname));
    });
  }

  it('gives up on a slow endpoint after its timeout', async () => {
    slack.behaviour = { delayMs: 10_000 };
    const started = Date.now();
    const error = await rejection(new SlackSink({ webhookUrl: slack.webhookUrl, timeoutMs: 200 }).deliver(approval));
    assert.equal(error.failure, 'timeout');
    assert.equal(error.message, 'slack: no response in time');
    assert.ok(Date.now() - started < 5_000);
  });

  it('reports an endpoint that is not there by its error code only', async () => {
    const gone = await FakeSlack.start();
    const url = gone.webhookUrl;
    await gone.stop();
    const error = await rejection(new SlackSink({ webhookUrl: url }).deliver(approval));
    assert.equal(error.failure, 'network');
    assert.equal(error.message, 'slack: request failed (ECONNREFUSED)');
  });

  it('refuses a URL that is not one without quoting it', () => {
    assert.throws(() => new SlackSink({ webhookUrl: 'hooks.slack.com/services/T1/B2/secret' }), {
      message: 'slack: the URL is not valid',
    });
    assert.throws(() => new SlackSink({ webhookUrl: 'ftp://hooks.slack.com/services/T1/B2/secret' }), {
      message: 'slack: the URL must be http or https',
    });
  });

  it('the fake refuses what Slack refuses, so the checks above mean something', async () => {
    const post = (path: string, body: string) =>
      fetch(`${slack.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const webhook = new URL(slack.webhookUrl).pathname;
    assert.equal((await post(webhook, '{"text":')).status, 400);
    assert.equal((await post(webhook, '{}')).status, 400);
    const tooLongHeader = { blocks: [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }] };
    assert.equal((await post(webhook, JSON.stringify(tooLongHeader))).status, 400);
    assert.equal((await post('/services/T0/B0/revoked', JSON.stringify({ text: 'hi' }))).status, 404);
    assert.equal((await post(webhook, JSON.stringify({ text: 'hi' }))).status, 200);
  });
});
