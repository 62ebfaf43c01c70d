// The real verifier (test/verifier/world.ts: the in-memory store, scripted clusters, a recording promoter) with the
// notification listener built from settings, Slack standing in on a local port: what a person is told as a pipeline
// moves, once each, and that Slack failing changes nothing about the promotion.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { notificationListenerOf, parseNotificationSettings, type SlackMessage } from '../../lib/notify/index.js';
import type { CheckPipelineMessage } from '../../lib/queue/messages.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { DEV, PIPELINE, PROD, PROD_EU, verifierWorld, type World } from '../verifier/world.js';
import { fakePutEvents, recordingLogger } from './support.js';

// A re-decision from the stored records (as a retry that came due sends): it always decides.
const DECIDE: CheckPipelineMessage = { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false };

/** The header of each message Slack took, in order. */
const headers = (slack: FakeSlack): string[] =>
  (slack.messages as SlackMessage[]).map((message) => {
    const header = message.blocks[0];
    return header?.type === 'header' ? header.text.text : '';
  });

describe('the verifier telling people', () => {
  let slack: FakeSlack;
  before(async () => (slack = await FakeSlack.start()));
  beforeEach(() => {
    slack.posts.length = 0;
    slack.behaviour = 'slack';
  });
  after(() => slack.stop());

  /** A world whose verifier notifies through Slack and EventBridge; prod is manual. */
  async function world(): Promise<{ world: World; bus: ReturnType<typeof fakePutEvents> }> {
    const bus = fakePutEvents();
    // The world makes its own store; the listener reaches it through this, once the world exists.
    const made: { world?: World } = {};
    const worldStore = () => made.world?.store ?? assert.fail('no world yet');
    const listener = notificationListenerOf({
      settings: parseNotificationSettings({ slack: { webhookUrl: slack.webhookUrl }, eventBus: { name: 'b' } }),
      store: {
        claimNotification: (...args) => worldStore().claimNotification(...args),
        listAudit: (...args) => worldStore().listAudit(...args),
      },
      logger: recordingLogger(),
      eventBridge: bus,
      approveFlags: ['--aws', '--stack', 'Pipelines'],
    });
    assert.ok(listener);
    const created = await verifierWorld({ manual: true, listeners: [listener] });
    made.world = created;
    await created.deploy(DEV, '6.9.2');
    await created.deploy(PROD, '6.9.1');
    await created.deploy(PROD_EU, '6.9.1');
    return { world: created, bus };
  }

  it('an approval waits: one message with the approve command, however often the pipeline is decided on', async () => {
    const { world: w, bus } = await world();
    await w.handle(DECIDE);
    await w.handle(DECIDE);
    w.advance(60_000);
    await w.handle(DECIDE);

    assert.deepEqual(headers(slack), ['Approval waiting: flux-system/podinfo prod']);
    assert.ok(
      slack.posts[0]?.body.includes(
        'pipelinectl approve flux-system/podinfo prod --revision 6.9.2 --aws --stack Pipelines',
      ),
    );
    assert.equal(bus.entries.length, 1);
  });

  it('once approved, the promotion opened is told once more', async () => {
    const { world: w } = await world();
    await w.handle(DECIDE);
    await w.store.approve(PIPELINE, 'prod', '6.9.2', 'local:sre', w.now());
    await w.handle(DECIDE);
    await w.handle(DECIDE);

    assert.deepEqual(headers(slack), [
      'Approval waiting: flux-system/podinfo prod',
      'Promotion opened: flux-system/podinfo prod',
    ]);
    assert.ok(slack.posts[1]?.body.includes('recorded:flux-system/podinfo prod 6.9.2'), 'the strategy’s result');
  });

  it('Slack answering 500 blocks nothing: the approval is requested and, once given, the promotion happens', async () => {
    slack.behaviour = { status: 500 };
    const { world: w, bus } = await world();
    await w.handle(DECIDE);
    assert.equal((await w.store.getApproval(PIPELINE, 'prod'))?.revision, '6.9.2');
    await w.store.approve(PIPELINE, 'prod', '6.9.2', 'local:sre', w.now());
    await w.handle(DECIDE);

    assert.equal((await w.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state, 'succeeded');
    assert.equal(slack.messages.length, 0);
    assert.equal(bus.entries.length, 2, 'EventBridge still told of both');
  });

  it('an environment that had passed and then fails is told once', async () => {
    const { world: w } = await world();
    await w.handle(DECIDE);
    slack.posts.length = 0;
    w.advance(60_000);
    const failed = { phase: 'Failed', reason: 'ReleaseFailed', message: 'upgrade failed', revision: '6.9.2' } as const;
    await w.store.recordTargetStatus(DEV, failed, w.now());
    await w.handle(DECIDE);
    w.advance(60_000);
    await w.handle(DECIDE);

    assert.deepEqual(headers(slack), ['Environment regressed: flux-system/podinfo dev']);
  });
});
