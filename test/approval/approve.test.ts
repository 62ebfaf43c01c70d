// The approve use case (lib/approval/approve.ts) alone, against the in-memory store: what each outcome changes,
// writes to the audit trail and hands to the verifier. The doors are tested in test/http (the approval webhook),
// test/cli (pipelinectl approve) and test/loop/approval.test.ts (end to end).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approve, type ApprovalRequest, type ApprovalResult } from '../../lib/approval/approve.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import type { PromoteMessage } from '../../lib/queue/messages.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const KEY: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };
const PIPELINE = resolvePipeline({
  metadata: { namespace: KEY.namespace, name: KEY.name },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'dev', clusterRef: { name: 'dev' } }] },
      {
        name: 'prod',
        targets: [{ namespace: 'prod', clusterRef: { name: 'prod' } }],
        promotion: { manual: true, strategy: { notification: {} } },
      },
    ],
  },
});

/** A store where prod waits for `waiting` (if any), and a verifier that takes every promote message. */
async function world(waiting?: string) {
  const store = new MemoryStore();
  if (waiting !== undefined) await store.requestApproval(KEY, 'prod', waiting, NOW);
  const enqueued: PromoteMessage[] = [];
  const deps = {
    store,
    enqueue: (message: PromoteMessage) => {
      enqueued.push(message);
      return Promise.resolve(true);
    },
  };
  const request = (overrides: Partial<ApprovalRequest>): ApprovalRequest => ({
    pipeline: PIPELINE,
    env: 'prod',
    approver: 'hmac-key of Secret flux-system/webhook',
    via: 'the approval webhook',
    now: NOW,
    ...overrides,
  });
  const audit = async () => (await store.listAudit(KEY)).items;
  return { store, deps, enqueued, request, audit };
}

describe('approve', () => {
  it('approves the waiting revision: marker, one audit entry naming who approved, one promote message', async () => {
    const { store, deps, enqueued, request, audit } = await world('6.9.2');
    const result = await approve(deps, request({ revision: '6.9.2' }));
    assert.deepEqual(result, {
      outcome: 'approved',
      revision: '6.9.2',
      approver: 'hmac-key of Secret flux-system/webhook',
      delivered: true,
    });
    const marker = await store.getApproval(KEY, 'prod');
    assert.equal(marker?.approvedBy, 'hmac-key of Secret flux-system/webhook');
    assert.equal(marker?.approvedAt, NOW.toISOString());
    assert.deepEqual(await audit(), [
      {
        at: NOW.toISOString(),
        pipeline: KEY,
        type: 'approved',
        env: 'prod',
        revision: '6.9.2',
        message: '6.9.2 approved for prod with the approval webhook',
        actor: 'hmac-key of Secret flux-system/webhook',
      },
    ]);
    assert.deepEqual(enqueued, [{ type: 'promote', pipeline: KEY, env: 'prod', revision: '6.9.2' }]);
  });

  it('without a revision, approves the one waiting, under an identity read only then', async () => {
    const { deps, request, audit } = await world('6.9.2');
    let asked = 0;
    const approver = () => {
      asked++;
      return Promise.resolve('local:alice');
    };
    const result = await approve(deps, request({ approver, via: 'pipelinectl' }));
    assert.equal(result.outcome, 'approved');
    assert.equal(asked, 1);
    assert.deepEqual(
      (await audit()).map(({ actor, message }) => ({ actor, message })),
      [{ actor: 'local:alice', message: '6.9.2 approved for prod with pipelinectl' }],
    );
  });

  it('approving again hands the promotion on again, and records nothing new', async () => {
    const { deps, enqueued, request, audit } = await world('6.9.2');
    await approve(deps, request({ revision: '6.9.2' }));
    const again = await approve(deps, request({ revision: '6.9.2', approver: 'someone else' }));
    assert.deepEqual(again, {
      outcome: 'already-approved',
      revision: '6.9.2',
      approver: 'someone else',
      delivered: true,
    });
    assert.equal((await audit()).length, 1);
    assert.equal(enqueued.length, 2);
  });

  it('reports false delivery when nothing takes the promote message', async () => {
    const { deps, request } = await world('6.9.2');
    const result = await approve({ ...deps, enqueue: () => Promise.resolve(false) }, request({ revision: '6.9.2' }));
    assert.equal(result.outcome === 'approved' && result.delivered, false);
  });

  /** `identityRead`: whether the approver's identity was read, which it is only once there is a revision to try. */
  const refusals: {
    name: string;
    waiting?: string;
    request: Partial<ApprovalRequest>;
    outcome: ApprovalResult;
    identityRead: boolean;
  }[] = [
    {
      name: 'another revision than the one waiting',
      waiting: '6.9.2',
      request: { revision: '6.9.1' },
      outcome: { outcome: 'not-waiting', revision: '6.9.1' },
      identityRead: true,
    },
    {
      name: 'a revision where nothing waits',
      request: { revision: '6.9.2' },
      outcome: { outcome: 'not-waiting', revision: '6.9.2' },
      identityRead: true,
    },
    {
      name: 'no revision where nothing waits',
      request: {},
      outcome: { outcome: 'nothing-waiting' },
      identityRead: false,
    },
    {
      name: 'an environment the pipeline does not have',
      waiting: '6.9.2',
      request: { env: 'qa' },
      outcome: { outcome: 'unknown-environment' },
      identityRead: false,
    },
  ];
  for (const refusal of refusals) {
    it(`refuses ${refusal.name}: nothing changes, nothing is recorded or sent`, async () => {
      const { store, deps, enqueued, request, audit } = await world(refusal.waiting);
      const before = await store.getApproval(KEY, 'prod');
      let asked = 0;
      const approver = () => {
        asked++;
        return Promise.resolve('local:alice');
      };
      assert.deepEqual(await approve(deps, request({ approver, ...refusal.request })), refusal.outcome);
      assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
      assert.deepEqual(await audit(), []);
      assert.deepEqual(enqueued, []);
      assert.equal(asked, refusal.identityRead ? 1 : 0);
    });
  }
});
