// `pipelinectl serve`'s promotion flags, parsed as the command does: each to the local mode's option, nothing when
// not given (the defaults are the runtime's), and a value that cannot work refused with one line naming the flag.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServeFlags } from '../../lib/cli/commands/serve.js';
import { CliError } from '../../lib/cli/errors.js';

const base = { config: 'config', port: '0', host: '127.0.0.1', dataDir: '.data', pollInterval: '5m' };

describe('serve: promotion flags', () => {
  it('parses the commit author and every notification sink, URLs kept as given', () => {
    const options = parseServeFlags({
      ...base,
      commitAuthorName: 'Release Bot',
      notificationWebhookUrl: 'https://hooks.example.com/promotions/',
      notificationWebhookSecret: 'flux-system/webhook-signing',
      notificationControllerUrl: 'http://notification-controller.flux-system.svc.cluster.local./',
      notificationEventBus: 'arn:aws:events:eu-west-1:123456789012:event-bus/promotions',
    });
    assert.deepEqual(options.commitAuthor, {
      name: 'Release Bot',
      email: 'promotion-server@pipeline-controller.invalid',
    });
    assert.deepEqual(options.notification, {
      webhookUrl: 'https://hooks.example.com/promotions/',
      webhookSecret: { namespace: 'flux-system', name: 'webhook-signing' },
      notificationControllerUrl: 'http://notification-controller.flux-system.svc.cluster.local./',
      eventBus: 'arn:aws:events:eu-west-1:123456789012:event-bus/promotions',
    });
    assert.ok(!('commitAuthor' in parseServeFlags(base)) && !('notification' in parseServeFlags(base)));
  });

  it('refuses what cannot work, naming the flag', () => {
    const cases: [Record<string, string>, string][] = [
      [
        { commitAuthorName: 'Bot <bot@x>' },
        '--commit-author-name: the commit author name must not contain "<", ">" or a line break',
      ],
      [
        { commitAuthorEmail: 'bot at acme' },
        '--commit-author-email: the commit author e-mail must be an address such as name@example.com, without ' +
          'spaces, "<" or ">"',
      ],
      [
        { notificationWebhookUrl: 'ftp://hooks' },
        '--notification-webhook-url must be an http:// or https:// URL (got "ftp://hooks")',
      ],
      [
        { notificationWebhookUrl: 'https://user:pass@hooks.example.com/' },
        '--notification-webhook-url must not hold credentials: sign the webhook with --notification-webhook-secret',
      ],
      [
        { notificationWebhookSecret: 'flux-system/webhook-signing' },
        '--notification-webhook-secret signs the webhook: it needs --notification-webhook-url',
      ],
      [
        { notificationControllerUrl: 'notification-controller' },
        '--notification-controller-url must be an http:// or https:// URL (got "notification-controller")',
      ],
    ];
    for (const [flags, message] of cases) {
      assert.throws(
        () => parseServeFlags({ ...base, ...flags }),
        (error: unknown) => error instanceof CliError && error.message === message,
        message,
      );
    }
  });

  it('parses the notifications to people: Secrets by name, the bus, the kinds; refuses an unknown kind', () => {
    const options = parseServeFlags({
      ...base,
      notifySlackSecret: 'flux-system/slack',
      notifyWebhookSecret: 'flux-system/news-webhook',
      notifyEventBus: 'pipeline-news',
      notifyNews: 'approval-waiting, promotion-failed',
    });
    assert.deepEqual(options.people, {
      slackSecret: { namespace: 'flux-system', name: 'slack' },
      webhookSecret: { namespace: 'flux-system', name: 'news-webhook' },
      eventBus: 'pipeline-news',
      news: ['approval-waiting', 'promotion-failed'],
    });
    assert.ok(!('people' in parseServeFlags(base)));
    assert.throws(
      () => parseServeFlags({ ...base, notifyNews: 'approval-waiting,pr-merged' }),
      (error: unknown) =>
        error instanceof CliError &&
        /^--notify-news: unknown "pr-merged" \(known: approval-waiting, /.test(error.message),
    );
    assert.throws(
      () => parseServeFlags({ ...base, notifySlackSecret: 'flux-system/Slack' }),
      (error: unknown) => error instanceof CliError && error.message.startsWith('--notify-slack-secret'),
    );
  });
});
