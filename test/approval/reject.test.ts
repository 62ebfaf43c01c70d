// The reject use case (lib/approval/reject.ts) alone, against the in-memory store: what each outcome changes and
// writes to the audit trail, the policy check it shares with approvals, and the reasons it refuses to keep.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approve } from '../../lib/approval/approve.js';
import {
  MAX_REJECTION_REASON_LENGTH,
  reject,
  type RejectionRequest,
  type RejectionResult,
} from '../../lib/approval/reject.js';
import type { ApprovalPolicy } from '../../lib/pipeline/environment-policies.js';
import { resolvePipeline, type ObjectKey, type Pipeline } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const LATER = new Date('2025-10-01T12:05:00Z');
const KEY: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };

const pipelineWith = (approval?: ApprovalPolicy): Pipeline =>
  resolvePipeline({
    metadata: { namespace: KEY.namespace, name: KEY.name },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'dev', clusterRef: { name: 'dev' } }] },
        {
          name: 'prod',
          targets: [{ namespace: 'prod', clusterRef: { name: 'prod' } }],
          promotion: { manual: true, strategy: { notification: {} } },
          ...(approval && { approval }),
        },
      ],
    },
  });
const TWO_USERS = pipelineWith({ required: 2, approvers: { users: ['alice', 'bob'] } });

/** A store where prod waits for `waiting` (if any). */
async function world(waiting?: string, pipeline: Pipeline = TWO_USERS) {
  const store = new MemoryStore();
  if (waiting !== undefined) await store.requestApproval(KEY, 'prod', waiting, NOW);
  const request = (overrides: Partial<RejectionRequest>): RejectionRequest => ({
    pipeline,
    env: 'prod',
    rejecter: 'local:bob',
    reason: 'breaks the checkout flow (INC-1234)',
    via: 'pipelinectl',
    now: LATER,
    ...overrides,
  });
  const audit = async () => (await store.listAudit(KEY)).items;
  const approveAs = (approver: string) =>
    approve(
      { store, enqueue: () => Promise.resolve(true) },
      { pipeline, env: 'prod', revision: '6.5.0', approver, via: 'pipelinectl', now: NOW },
    );
  return { store, request, audit, approveAs };
}

describe('reject', () => {
  it('rejects the waiting revision: the marker says who, when and why; one audit entry with the identity', async () => {
    const { store, request, audit } = await world('6.5.0');
    const result = await reject({ store }, request({ revision: '6.5.0' }));
    assert.deepEqual(result, {
      outcome: 'rejected',
      revision: '6.5.0',
      rejecter: 'local:bob',
      reason: 'breaks the checkout flow (INC-1234)',
    });
    const marker = await store.getApproval(KEY, 'prod');
    assert.equal(marker?.rejectedBy, 'local:bob');
    assert.equal(marker?.rejectedAt, LATER.toISOString());
    assert.equal(marker?.rejectionReason, 'breaks the checkout flow (INC-1234)');
    assert.equal(marker?.approvedAt, undefined);
    assert.deepEqual(await audit(), [
      {
        at: LATER.toISOString(),
        pipeline: KEY,
        type: 'rejected',
        env: 'prod',
        revision: '6.5.0',
        message: '6.5.0 rejected for prod with pipelinectl: breaks the checkout flow (INC-1234)',
        actor: 'local:bob',
      },
    ]);
  });

  it('without a revision, rejects the one waiting, under an identity read only then; the reason is trimmed', async () => {
    const { store, request } = await world('6.5.0');
    let asked = 0;
    const rejecter = () => {
      asked++;
      return Promise.resolve('local:alice');
    };
    const result = await reject({ store }, request({ rejecter, reason: '  wrong build \t' }));
    assert.deepEqual(result, {
      outcome: 'rejected',
      revision: '6.5.0',
      rejecter: 'local:alice',
      reason: 'wrong build',
    });
    assert.equal(asked, 1);
    assert.equal((await store.getApproval(KEY, 'prod'))?.rejectionReason, 'wrong build');
  });

  it('after a rejection, no approval counts, even one that would have completed the policy', async () => {
    const { store, request, approveAs } = await world('6.5.0');
    assert.equal((await approveAs('local:alice')).outcome, 'counted');
    assert.equal((await reject({ store }, request({}))).outcome, 'rejected');
    assert.equal((await approveAs('local:alice')).outcome, 'rejected');
    assert.equal((await approveAs('local:bob')).outcome, 'rejected');
    assert.equal((await store.getApproval(KEY, 'prod'))?.approvedAt, undefined);
  });

  it('a newer candidate asks for approval afresh: the rejection was of the older revision only', async () => {
    const { store, request, approveAs } = await world('6.5.0');
    await reject({ store }, request({}));
    assert.equal(await store.requestApproval(KEY, 'prod', '6.5.1', LATER), 'requested');
    const marker = await store.getApproval(KEY, 'prod');
    assert.equal(marker?.revision, '6.5.1');
    assert.equal(marker?.rejectedAt, undefined);
    assert.equal((await approveAs('local:alice')).outcome, 'not-waiting', 'the approval named 6.5.0');
  });

  it('rejecting again changes nothing and says who rejected first, when and why', async () => {
    const { store, request, audit } = await world('6.5.0');
    await reject({ store }, request({}));
    const again = await reject({ store }, request({ rejecter: 'local:alice', reason: 'me too', now: NOW }));
    assert.deepEqual(again, {
      outcome: 'already-rejected',
      revision: '6.5.0',
      rejecter: 'local:alice',
      rejectedBy: 'local:bob',
      rejectedAt: LATER.toISOString(),
      rejectionReason: 'breaks the checkout flow (INC-1234)',
    });
    assert.equal((await audit()).length, 1);
  });

  it('an approved revision is not stopped: already-approved with who approved, nothing written', async () => {
    const { store, request, audit, approveAs } = await world('6.5.0');
    await approveAs('local:alice');
    await approveAs('local:bob');
    const auditBefore = (await audit()).length;
    const before = await store.getApproval(KEY, 'prod');
    assert.deepEqual(await reject({ store }, request({})), {
      outcome: 'already-approved',
      revision: '6.5.0',
      rejecter: 'local:bob',
      approvedBy: 'local:bob',
      approvedAt: NOW.toISOString(),
    });
    assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
    assert.equal((await audit()).length, auditBefore);
  });

  /** `identityRead`: whether the rejecter's identity was read, which it is only once there is a revision to try. */
  const refusals: {
    name: string;
    waiting?: string;
    pipeline?: Pipeline;
    request: Partial<Omit<RejectionRequest, 'rejecter'>> & { rejecter?: string };
    outcome: RejectionResult;
    identityRead: boolean;
  }[] = [
    {
      name: 'someone the policy does not let approve',
      waiting: '6.5.0',
      request: { rejecter: 'local:mallory' },
      outcome: {
        outcome: 'not-allowed',
        revision: '6.5.0',
        rejecter: 'local:mallory',
        refusal: 'not-listed',
        reason: "local:mallory may not approve: not in the environment's approval.approvers.users",
      },
      identityRead: true,
    },
    {
      name: 'a door the policy has no list for',
      waiting: '6.5.0',
      request: { rejecter: 'arn:aws:sts::123456789012:assumed-role/Releaser/carol' },
      outcome: {
        outcome: 'not-allowed',
        revision: '6.5.0',
        rejecter: 'arn:aws:sts::123456789012:assumed-role/Releaser/carol',
        refusal: 'door-closed',
        reason:
          "arn:aws:sts::123456789012:assumed-role/Releaser/carol may not approve: the environment's approval " +
          'policy has no approval.approvers.principals (add an IAM principal ARN pattern to it)',
      },
      identityRead: true,
    },
    {
      name: 'another revision than the one waiting',
      waiting: '6.5.0',
      request: { revision: '6.4.9' },
      outcome: { outcome: 'not-waiting', revision: '6.4.9' },
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
      waiting: '6.5.0',
      request: { env: 'qa' },
      outcome: { outcome: 'unknown-environment' },
      identityRead: false,
    },
    {
      name: 'an empty reason',
      waiting: '6.5.0',
      request: { reason: '   ' },
      outcome: { outcome: 'invalid-reason', problem: 'empty' },
      identityRead: false,
    },
    {
      name: 'a reason of more than one line',
      waiting: '6.5.0',
      request: { reason: 'first line\nsecond line' },
      outcome: { outcome: 'invalid-reason', problem: 'control-characters' },
      identityRead: false,
    },
    {
      name: 'a reason with a terminal escape',
      waiting: '6.5.0',
      request: { reason: 'fine \u001b[2J' },
      outcome: { outcome: 'invalid-reason', problem: 'control-characters' },
      identityRead: false,
    },
    {
      name: 'a reason longer than the limit',
      waiting: '6.5.0',
      request: { reason: 'x'.repeat(MAX_REJECTION_REASON_LENGTH + 1) },
      outcome: { outcome: 'invalid-reason', problem: 'too-long' },
      identityRead: false,
    },
  ];
  for (const refusal of refusals) {
    it(`refuses ${refusal.name}: nothing changes, nothing is recorded`, async () => {
      const { store, request, audit } = await world(refusal.waiting, refusal.pipeline);
      const before = await store.getApproval(KEY, 'prod');
      let asked = 0;
      const rejecter = refusal.request.rejecter ?? 'local:bob';
      const identity = () => {
        asked++;
        return Promise.resolve(rejecter);
      };
      assert.deepEqual(await reject({ store }, request({ ...refusal.request, rejecter: identity })), refusal.outcome);
      assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
      assert.deepEqual(await audit(), []);
      assert.equal(asked, refusal.identityRead ? 1 : 0);
    });
  }

  it('a reason of exactly the limit is kept', async () => {
    const { store, request } = await world('6.5.0');
    const reason = 'x'.repeat(MAX_REJECTION_REASON_LENGTH);
    assert.equal((await reject({ store }, request({ reason }))).outcome, 'rejected');
    assert.equal((await store.getApproval(KEY, 'prod'))?.rejectionReason, reason);
  });

  it('without a policy, anyone a door authenticated may reject', async () => {
    const { store, request } = await world('6.5.0', pipelineWith());
    const result = await reject({ store }, request({ rejecter: 'hmac-key of Secret flux-system/webhook' }));
    assert.equal(result.outcome, 'rejected');
  });
});
