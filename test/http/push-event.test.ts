// What a push webhook says about the branch it pushed (lib/http/push-event.ts): each host's push, test and other
// events, and payloads that say less than expected, which still trigger a sync.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concernsBranch, pushEventOf } from '../../lib/http/push-event.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { NOT_A_PUSH_WEBHOOKS, PING_WEBHOOKS, pushWebhook, type PushWebhook } from '../fixtures/push-webhooks.js';

const HOSTS: readonly GitProviderType[] = ['github', 'gitlab', 'bitbucket-server', 'azure-devops'];

/** Does the webhook trigger a sync of a source following `main`? */
function triggers(type: GitProviderType, { headers, body }: PushWebhook, branch = 'main'): boolean {
  return concernsBranch(pushEventOf(type, headers, Buffer.from(body)), branch);
}

describe('pushEventOf and concernsBranch', () => {
  for (const type of HOSTS) {
    it(`${type}: a push to the branch triggers a sync, one to another branch or a tag does not`, () => {
      assert.deepEqual(
        pushEventOf(
          type,
          pushWebhook(type, 'refs/heads/main').headers,
          Buffer.from(pushWebhook(type, 'refs/heads/main').body),
        ),
        {
          kind: 'push',
          refs: ['refs/heads/main'],
        },
      );
      assert.equal(triggers(type, pushWebhook(type, 'refs/heads/main')), true);
      assert.equal(triggers(type, pushWebhook(type, 'refs/heads/feature/podinfo')), false);
      assert.equal(triggers(type, pushWebhook(type, 'refs/tags/main')), false);
      // A branch whose name ends like the source's is another branch.
      assert.equal(triggers(type, pushWebhook(type, 'refs/heads/old-main')), false);
      assert.equal(triggers(type, pushWebhook(type, 'refs/heads/feature/podinfo'), 'feature/podinfo'), true);
    });

    it(`${type}: an event that is not a push triggers nothing`, () => {
      const { headers, body } = NOT_A_PUSH_WEBHOOKS[type];
      const event = pushEventOf(type, headers, Buffer.from(body));
      assert.equal(event.kind, 'not-a-push');
      assert.equal(concernsBranch(event, 'main'), false);
    });
  }

  it("GitHub's ping and Bitbucket Server's test connection are pings", () => {
    for (const type of ['github', 'bitbucket-server'] as const) {
      const { headers, body } = PING_WEBHOOKS[type];
      assert.deepEqual(pushEventOf(type, headers, Buffer.from(body)), { kind: 'ping' });
    }
  });

  it("reads GitHub's form-encoded deliveries (content type application/x-www-form-urlencoded)", () => {
    const push = pushWebhook('github', 'refs/heads/release');
    const form = new URLSearchParams({ payload: push.body }).toString();
    const headers = { ...push.headers, 'content-type': 'application/x-www-form-urlencoded' };
    assert.equal(triggers('github', { headers, body: form }, 'release'), true);
    assert.equal(triggers('github', { headers, body: form }, 'main'), false);
  });

  it('a GitLab system hook is read by its payload', () => {
    const push = pushWebhook('gitlab', 'refs/heads/main');
    assert.equal(triggers('gitlab', { ...push, headers: { 'x-gitlab-event': 'System Hook' } }), true);
    const mergeRequest = NOT_A_PUSH_WEBHOOKS.gitlab;
    assert.equal(
      pushEventOf('gitlab', { 'x-gitlab-event': 'System Hook' }, Buffer.from(mergeRequest.body)).kind,
      'not-a-push',
    );
  });

  it('a Bitbucket Server push of several refs triggers a sync when one of them is the branch', () => {
    const body = JSON.stringify({
      changes: [
        { ref: { id: 'refs/heads/feature', displayId: 'feature', type: 'BRANCH' } },
        { ref: { displayId: 'main', type: 'BRANCH' } },
        { ref: { displayId: 'main', type: 'TAG' } },
      ],
    });
    const event = pushEventOf('bitbucket-server', { 'x-event-key': 'repo:refs_changed' }, Buffer.from(body));
    assert.deepEqual(event, { kind: 'push', refs: ['refs/heads/feature', 'refs/heads/main'] });
    assert.equal(concernsBranch(event, 'main'), true);
    assert.equal(concernsBranch(event, 'develop'), false);
  });

  it('an Azure DevOps push of several refs triggers a sync when one of them is the branch', () => {
    const body = JSON.stringify({
      eventType: 'git.push',
      resource: { refUpdates: [{ name: 'refs/heads/feature' }, { name: 'refs/heads/main' }, { name: 42 }] },
    });
    assert.equal(triggers('azure-devops', { headers: {}, body }), true);
    assert.equal(triggers('azure-devops', { headers: {}, body }, 'develop'), false);
  });

  // The sync reads the branch head itself, so a push whose branch cannot be told is a trigger like any other.
  const unreadable: { name: string; type: GitProviderType; webhook: PushWebhook }[] = [
    {
      name: 'a body that is not JSON',
      type: 'github',
      webhook: { headers: { 'x-github-event': 'push' }, body: 'ref=main' },
    },
    { name: 'no event header and no ref', type: 'github', webhook: { headers: {}, body: '{}' } },
    {
      name: 'a ref that is not a string',
      type: 'github',
      webhook: { headers: { 'x-github-event': 'push' }, body: '{"ref":7}' },
    },
    { name: 'a JSON array', type: 'gitlab', webhook: { headers: { 'x-gitlab-event': 'Push Hook' }, body: '[1,2]' } },
    { name: 'an empty body', type: 'gitlab', webhook: { headers: {}, body: '' } },
    {
      name: 'changes that are not a list',
      type: 'bitbucket-server',
      webhook: { headers: { 'x-event-key': 'repo:refs_changed' }, body: '{"changes":"main"}' },
    },
    {
      name: 'changes without refs',
      type: 'bitbucket-server',
      webhook: { headers: {}, body: '{"changes":[{"type":"UPDATE"},null]}' },
    },
    {
      name: 'no refUpdates',
      type: 'azure-devops',
      webhook: { headers: {}, body: '{"eventType":"git.push","resource":{}}' },
    },
    { name: 'a resource that is a string', type: 'azure-devops', webhook: { headers: {}, body: '{"resource":"x"}' } },
  ];
  for (const { name, type, webhook } of unreadable) {
    it(`${type}, ${name}: a push of unknown refs, which triggers a sync`, () => {
      assert.deepEqual(pushEventOf(type, webhook.headers, Buffer.from(webhook.body)), { kind: 'push' });
      assert.equal(triggers(type, webhook), true);
    });
  }
});
