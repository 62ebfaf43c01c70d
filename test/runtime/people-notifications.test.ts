// The verifier Lambda's notifications to people, from its environment and Secrets Manager: nothing configured is no
// listener; a secret's URL reaches Slack; a missing secret or key is an error naming the secret, never its value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { peopleNotifications } from '../../lib/runtime/people-notifications.js';
import type { AwsDependencies } from '../../lib/runtime/aws-dependencies.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { pipelineDocument } from '../verifier/world.js';

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const noBus = (): Promise<EventBridgeClient> => Promise.reject(new Error('no event bus was configured'));

function aws(environment: Record<string, string>, secrets: Record<string, Record<string, string>>) {
  return {
    environment,
    secrets: { getById: (id: string) => Promise.resolve(secrets[id]) },
    table: { store: new MemoryStore() },
  } as unknown as Pick<AwsDependencies, 'environment' | 'secrets' | 'table'>;
}

describe('the verifier Lambda: notifications to people', () => {
  it('no NOTIFY_* variable: nobody is told', async () => {
    assert.equal(await peopleNotifications(aws({}, {}), silent, noBus), undefined);
  });

  it("posts to the secret's Slack URL, with the stack in the approve command", async (t) => {
    const slack = await FakeSlack.start();
    t.after(() => slack.stop());
    const people = await peopleNotifications(
      aws(
        { NOTIFY_SLACK_SECRET_ID: 'pipelines/slack', NOTIFY_APPROVE_FLAGS: '--aws --stack Pipelines' },
        { 'pipelines/slack': { url: slack.webhookUrl } },
      ),
      silent,
      noBus,
    );
    assert.ok(people);
    const pipeline = resolvePipeline(pipelineDocument({ manual: true }));
    await people.listener({
      entry: {
        at: '2026-11-24T10:00:00.000Z',
        pipeline: { namespace: pipeline.namespace, name: pipeline.name },
        type: 'approval-requested',
        env: 'prod',
        revision: '6.9.2',
        message: 'waiting for approval of 6.9.2',
      },
      pipeline,
    });
    assert.equal(slack.messages.length, 1);
    assert.ok(
      JSON.stringify(slack.messages[0]).includes(
        'pipelinectl approve flux-system/podinfo prod --revision 6.9.2 --aws --stack Pipelines',
      ),
    );
  });

  it('tells the same Slack of a ConfigSource commit that failed, once, and only when NOTIFY_NEWS has it', async (t) => {
    const slack = await FakeSlack.start();
    t.after(() => slack.stop());
    const secrets = { 'pipelines/slack': { url: slack.webhookUrl } };
    const failure = {
      source: { namespace: 'flux-system', name: 'fleet' },
      revision: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1',
      reason: 'ValidationFailed' as const,
      message: 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1: 1 problem: pipelines/podinfo.yaml:8:7: bad',
    };
    const filtered = await peopleNotifications(
      aws({ NOTIFY_SLACK_SECRET_ID: 'pipelines/slack', NOTIFY_NEWS: 'approval-waiting' }, secrets),
      silent,
      noBus,
    );
    assert.ok(filtered);
    await filtered.onConfigSyncFailure(failure);
    assert.equal(slack.messages.length, 0, 'NOTIFY_NEWS leaves it out');

    const people = await peopleNotifications(
      aws({ NOTIFY_SLACK_SECRET_ID: 'pipelines/slack' }, secrets),
      silent,
      noBus,
    );
    assert.ok(people);
    await people.onConfigSyncFailure(failure);
    await people.onConfigSyncFailure(failure);
    assert.equal(slack.messages.length, 1);
    assert.match(
      (slack.messages[0] as { text: string }).text,
      /^Config sync failed: flux-system\/fleet main@sha1:731f7ead\w+: ValidationFailed: 1 problem: pipelines\/podinfo\.yaml:8:7: bad$/,
    );
  });

  it('a missing secret or key names the secret, never a value', async () => {
    await assert.rejects(
      peopleNotifications(aws({ NOTIFY_SLACK_SECRET_ID: 'pipelines/slack' }, {}), silent, noBus),
      /the Slack notification secret pipelines\/slack does not exist/,
    );
    await assert.rejects(
      peopleNotifications(
        aws({ NOTIFY_WEBHOOK_SECRET_ID: 'pipelines/news' }, { 'pipelines/news': { token: 'hush-hush' } }),
        silent,
        noBus,
      ),
      (error: unknown) =>
        error instanceof Error &&
        error.message === 'the webhook notification secret pipelines/news has no "url" key' &&
        !error.message.includes('hush-hush'),
    );
  });
});
