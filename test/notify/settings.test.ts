// The installation's notification settings and a pipeline's `spec.notify`: what is accepted, what is refused (naming
// the field, never quoting a secret), and which news each lets through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProblem, loadConfigurationText } from '../../lib/config/index.js';
import {
  NotificationSettingsError,
  parseNewsKinds,
  parseNotificationSettings,
  wantsNews,
} from '../../lib/notify/index.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0/B0/abcdefSECRET';

describe('parseNotificationSettings', () => {
  it('takes every sink and a list of kinds', () => {
    const settings = {
      slack: { webhookUrl: SLACK_URL },
      webhook: { url: 'https://hooks.example.com/news', hmacKey: 'k' },
      eventBus: { name: 'arn:aws:events:eu-west-1:123456789012:event-bus/pipelines' },
      news: ['approval-waiting', 'promotion-failed'],
    };
    assert.deepEqual(parseNotificationSettings(settings), settings);
    assert.deepEqual(parseNotificationSettings({}), {});
  });

  it('refuses what is wrong by field, never quoting the value', () => {
    const refusal = (value: unknown): string => {
      try {
        parseNotificationSettings(value);
      } catch (error) {
        assert.ok(error instanceof NotificationSettingsError);
        return error.message;
      }
      return assert.fail('accepted');
    };
    const notAUrl = 'hooks.slack.com/services/T0/B0/abcdefSECRET';
    const message = refusal({ slack: { webhookUrl: notAUrl }, news: ['approval-waiting', 'deploys'] });
    assert.match(message, /slack\.webhookUrl: must be an http or https URL/);
    assert.match(
      message,
      /news\.1: must be one of approval-waiting, promotion-opened, promotion-failed, environment-regressed/,
    );
    assert.ok(!message.includes('SECRET'));
    assert.match(refusal({ webhook: { url: 'ftp://x/SECRET' } }), /webhook\.url: must be an http or https URL/);
    assert.match(refusal({ webhook: { url: 'https://x/', hmacKey: '' } }), /webhook\.hmacKey: must not be empty/);
    assert.match(refusal({ slack: { url: SLACK_URL } }), /slack: Unrecognized key: "url"/);
    assert.ok(!refusal({ slack: { url: SLACK_URL } }).includes('SECRET'));
  });

  it('refuses a URL with a user name or password, never quoting it', () => {
    const refused = (settings: unknown) =>
      assert.throws(
        () => parseNotificationSettings(settings),
        (error: Error) => {
          assert.ok(error instanceof NotificationSettingsError);
          assert.ok(!error.message.includes('SECRET'), error.message);
          return /(slack\.webhookUrl|webhook\.url): must not hold a user name or password/.test(error.message);
        },
      );
    refused({ slack: { webhookUrl: 'https://user:SECRET@hooks.slack.com/services/T0/B0/x' } });
    refused({ webhook: { url: 'https://SECRET@news.example.com/hook' } });
  });
});

describe('parseNewsKinds', () => {
  it('reads a comma-separated list, each kind once', () => {
    assert.deepEqual(parseNewsKinds('approval-waiting, promotion-failed,approval-waiting'), [
      'approval-waiting',
      'promotion-failed',
    ]);
    assert.deepEqual(parseNewsKinds(''), []);
  });

  it('takes config-sync-failed, the news about a ConfigSource', () => {
    assert.deepEqual(parseNewsKinds('config-sync-failed'), ['config-sync-failed']);
    assert.deepEqual(parseNotificationSettings({ news: ['config-sync-failed'] }), { news: ['config-sync-failed'] });
  });

  it('names what it does not know', () => {
    assert.throws(() => parseNewsKinds('approval-waiting,deploys', 'NOTIFY_NEWS'), {
      message:
        'NOTIFY_NEWS: unknown "deploys" (known: approval-waiting, promotion-opened, promotion-failed, environment-regressed, rollback-opened, verification-failed, config-sync-failed)',
    });
  });
});

describe('wantsNews', () => {
  const news = { kind: 'approval-waiting', env: 'prod' } as const;
  const rows: [string, Parameters<typeof wantsNews>[1], Parameters<typeof wantsNews>[2], boolean][] = [
    ['everything by default', {}, undefined, true],
    ['not a kind the installation leaves out', { news: ['promotion-failed'] }, undefined, false],
    ['a kind the pipeline keeps', {}, { news: ['approval-waiting'] }, true],
    ['not a kind the pipeline leaves out', {}, { news: ['promotion-failed'] }, false],
    ['nothing when the pipeline lists no kind', {}, { news: [] }, false],
    ['an environment the pipeline keeps', {}, { environments: ['prod'] }, true],
    ['not an environment the pipeline leaves out', {}, { environments: ['staging'] }, false],
    [
      'not a kind the pipeline keeps but the installation does not send',
      { news: [] },
      { news: ['approval-waiting'] },
      false,
    ],
  ];
  for (const [name, settings, narrowing, expected] of rows) {
    it(name, () => assert.equal(wantsNews(news, settings, narrowing), expected));
  }
});

describe('spec.notify in a Pipeline', () => {
  const CLUSTER = `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: dev, namespace: flux-system}
spec: {eks: {clusterName: dev, region: eu-west-1}}
`;
  const pipelineWith = (notify: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: podinfo, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: podinfo}
${notify}  environments:
    - name: dev
      targets: [{namespace: podinfo, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targets: [{namespace: podinfo-prod, clusterRef: {kind: GitopsCluster, name: dev}}]
      promotion: {manual: true, strategy: {notification: {}}}
`;
  const load = (notify: string) => loadConfigurationText(`${CLUSTER}---\n${pipelineWith(notify)}`, 'pipeline.yaml');
  const problems = (notify: string): string => {
    const result = load(notify);
    assert.equal(result.ok, false);
    return result.ok ? '' : result.problems.map(formatProblem).join('\n');
  };

  it('resolves onto the pipeline', () => {
    const result = load('  notify: {news: [approval-waiting, promotion-failed], environments: [prod]}\n');
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.configuration.pipelines[0]?.notify, {
      news: ['approval-waiting', 'promotion-failed'],
      environments: ['prod'],
    });
  });

  it('is absent from a Weave Pipeline without it, which loads as before', () => {
    const result = load('');
    assert.ok(result.ok);
    assert.equal('notify' in (result.configuration.pipelines[0] ?? {}), false);
  });

  it('refuses an unknown kind, naming the field and the kinds', () => {
    assert.match(
      problems('  notify: {news: [approval-waiting, deployed]}\n'),
      /spec\.notify\.news\[1\]: must be one of approval-waiting, promotion-opened, promotion-failed, environment-regressed/,
    );
  });

  it('refuses config-sync-failed: it is news about a ConfigSource, not about the pipeline', () => {
    assert.match(
      problems('  notify: {news: [config-sync-failed]}\n'),
      /spec\.notify\.news\[0\]: must be one of approval-waiting, promotion-opened, promotion-failed, environment-regressed, rollback-opened, verification-failed$/m,
    );
  });

  it('refuses an environment the pipeline does not have', () => {
    assert.match(
      problems('  notify: {environments: [prod, production]}\n'),
      /spec\.notify\.environments\[1\]: the pipeline has no environment "production" \(it has dev, prod\)/,
    );
  });

  it('refuses an unknown field', () => {
    assert.match(problems('  notify: {channels: [ops]}\n'), /spec\.notify.*channels/);
  });
});
