// How the construct passes the promotion settings to the verifier (infra/README.md): the commit author, the
// notification-controller sink, and the NotificationSinks output `pipelinectl apply` reads to warn about a
// notification pipeline nothing would carry out. Read from the synthesized template, as resources.test.ts does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settingsFromContext } from '../../infra/context.js';
import { NOTIFICATION_SINKS_OUTPUT, OUTPUTS } from '../../infra/stack.js';
import { DEFAULT_COMMIT_AUTHOR } from '../../lib/promotion/pull-request/index.js';
import { readAwsEnvironment } from '../../lib/runtime/aws.js';
import { ACCOUNT, REGION, resources, synth, synthConstruct } from './synth.js';

type Synthesized = ReturnType<typeof synth>;

function variablesOf(
  synthesized: Pick<Synthesized, 'template' | 'logicalId'>,
  fn: Parameters<Synthesized['logicalId']>[0],
) {
  const resource = resources(synthesized.template, 'AWS::Lambda::Function')[synthesized.logicalId(fn)];
  assert.ok(resource);
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** The variables as the function sees them once deployed (references become values of the right shape). */
const deployed = (variables: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : name.endsWith('_URL') ? 'https://sqs.example/queue' : 'arn:aws:x:y:z:w',
    ]),
  );

describe('the commit author', () => {
  it('sets COMMIT_AUTHOR_NAME and COMMIT_AUTHOR_EMAIL on the verifier only, when given', () => {
    const author = { name: 'Release Bot', email: 'release-bot@acme.example' };
    const built = synthConstruct(() => ({ commitAuthor: author }));
    const verifier = variablesOf(built, built.controller.verifier);
    assert.equal(verifier.COMMIT_AUTHOR_NAME, 'Release Bot');
    assert.equal(verifier.COMMIT_AUTHOR_EMAIL, 'release-bot@acme.example');
    const environment = readAwsEnvironment(deployed(verifier));
    assert.equal(environment.COMMIT_AUTHOR_NAME, 'Release Bot');
    assert.equal(environment.COMMIT_AUTHOR_EMAIL, 'release-bot@acme.example');
    for (const fn of [built.controller.receiver, built.controller.poller]) {
      const variables = variablesOf(built, fn);
      assert.ok(!('COMMIT_AUTHOR_NAME' in variables) && !('COMMIT_AUTHOR_EMAIL' in variables), fn.node.path);
    }
  });

  it("leaves them out by default: the verifier then commits as Weave's Promotion Server", () => {
    const built = synth();
    const verifier = variablesOf(built, built.stack.controller.verifier);
    assert.ok(!('COMMIT_AUTHOR_NAME' in verifier) && !('COMMIT_AUTHOR_EMAIL' in verifier));
    assert.equal(DEFAULT_COMMIT_AUTHOR.name, 'Promotion Server');
  });

  it('refuses an author git cannot write, naming the prop', () => {
    assert.throws(
      () => synthConstruct(() => ({ commitAuthor: { name: 'Bot <bot>', email: 'bot@acme.example' } })),
      /PipelineController Host\/Controller: commitAuthor: the commit author name must not contain "<", ">" or a line break/,
    );
    assert.throws(
      () => synthConstruct(() => ({ commitAuthor: { name: 'Bot', email: 'bot' } })),
      /commitAuthor: the commit author e-mail must be an address/,
    );
  });

  it('reads the context keys commitAuthorName and commitAuthorEmail, each defaulting to Weave’s', () => {
    const context = (values: Record<string, string>) =>
      settingsFromContext(values, { AWS_REGION: REGION, CDK_DEFAULT_ACCOUNT: ACCOUNT });
    assert.equal(context({}).props.controller?.commitAuthor, undefined);
    assert.deepEqual(context({ commitAuthorName: 'Release Bot' }).props.controller?.commitAuthor, {
      name: 'Release Bot',
      email: DEFAULT_COMMIT_AUTHOR.email,
    });
    assert.deepEqual(
      context({ commitAuthorName: 'Release Bot', commitAuthorEmail: 'bot@acme.example' }).props.controller
        ?.commitAuthor,
      { name: 'Release Bot', email: 'bot@acme.example' },
    );
  });
});

describe('the notification-controller sink', () => {
  it('sets NOTIFICATION_CONTROLLER_URL on the verifier, from the prop or the stack prop', () => {
    const url = 'http://notification-controller.flux-system.svc.cluster.local./';
    const built = synthConstruct(() => ({ notification: { notificationControllerUrl: url } }));
    const verifier = variablesOf(built, built.controller.verifier);
    assert.equal(verifier.NOTIFICATION_CONTROLLER_URL, url);
    assert.equal(readAwsEnvironment(deployed(verifier)).NOTIFICATION_CONTROLLER_URL, url);
    const stack = synth({ notificationControllerUrl: url });
    assert.equal(variablesOf(stack, stack.stack.controller.verifier).NOTIFICATION_CONTROLLER_URL, url);
    for (const fn of [built.controller.receiver, built.controller.poller]) {
      assert.ok(!('NOTIFICATION_CONTROLLER_URL' in variablesOf(built, fn)), fn.node.path);
    }
  });
});

describe('the NotificationSinks output', () => {
  it('is published by every stack: none, or the kinds of the sinks, never an address', () => {
    assert.ok((OUTPUTS as readonly string[]).includes(NOTIFICATION_SINKS_OUTPUT));
    synth().template.hasOutput(NOTIFICATION_SINKS_OUTPUT, { Value: 'none' });
    const all = synth({
      notificationWebhookUrl: 'https://hooks.example.com/promotions',
      notificationControllerUrl: 'http://notification-controller.flux-system.svc.cluster.local./',
      notificationEventBusArn: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/promotions`,
    });
    all.template.hasOutput(NOTIFICATION_SINKS_OUTPUT, { Value: 'webhook,notification-controller,event-bus' });
    synth({ notificationEventBusArn: `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/promotions` }).template.hasOutput(
      NOTIFICATION_SINKS_OUTPUT,
      { Value: 'event-bus' },
    );
  });
});

describe('notifications to people', () => {
  const slackArn = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:pipelines/slack-AbCdEf`;
  const busArn = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/pipeline-news`;

  it('gives the verifier the NOTIFY_* variables, read access to the secret and PutEvents on the bus', () => {
    const built = synth({
      stackName: 'Pipelines',
      notifySlackSecretArn: slackArn,
      notifyEventBusArn: busArn,
      notifyNews: ['approval-waiting'],
    });
    const verifier = variablesOf(built, built.stack.controller.verifier);
    assert.equal(verifier.NOTIFY_SLACK_SECRET_ID, slackArn);
    assert.equal(verifier.NOTIFY_EVENT_BUS, busArn);
    assert.equal(verifier.NOTIFY_NEWS, 'approval-waiting');
    assert.equal(verifier.NOTIFY_APPROVE_FLAGS, '--aws --stack Pipelines');
    assert.equal(readAwsEnvironment(deployed(verifier)).NOTIFY_SLACK_SECRET_ID, slackArn);
    const policies = JSON.stringify(resources(built.template, 'AWS::IAM::Policy'));
    assert.ok(policies.includes(slackArn), 'a role may read the Slack secret');
    assert.ok(policies.includes('events:PutEvents'), 'a role may put events on the bus');
    for (const fn of [built.stack.controller.receiver, built.stack.controller.poller]) {
      assert.ok(!Object.keys(variablesOf(built, fn)).some((name) => name.startsWith('NOTIFY_')), fn.node.path);
    }
    const plain = synth();
    const none = variablesOf(plain, plain.stack.controller.verifier);
    assert.ok(!Object.keys(none).some((name) => name.startsWith('NOTIFY_')), 'nothing configured: no variable');
  });

  it('takes the kinds from context and refuses an unknown one, naming the key', () => {
    const context = (values: Record<string, unknown>) =>
      settingsFromContext(values, { AWS_REGION: REGION, CDK_DEFAULT_ACCOUNT: ACCOUNT });
    assert.deepEqual(context({ notifyNews: 'approval-waiting,promotion-failed' }).props.notifyNews, [
      'approval-waiting',
      'promotion-failed',
    ]);
    assert.throws(() => context({ notifyNews: 'approval-waiting,merged' }), /context notifyNews: unknown "merged"/);
  });
});
