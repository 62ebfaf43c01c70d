// The approve use case (lib/approval/approve.ts) alone, against the in-memory store: what each outcome changes,
// writes to the audit trail and hands to the verifier. The doors are tested in test/http (the approval webhook),
// test/cli (pipelinectl approve) and test/loop/approval.test.ts (end to end).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approve, type ApprovalRequest, type ApprovalResult } from '../../lib/approval/approve.js';
import type { ApprovalPolicy } from '../../lib/pipeline/environment-policies.js';
import { resolvePipeline, type ObjectKey, type Pipeline } from '../../lib/pipeline/model.js';
import type { PromoteMessage } from '../../lib/queue/messages.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const KEY: ObjectKey = { namespace: 'flux-system', name: 'podinfo' };
/** podinfo, with a manual prod under `approval` (none: no policy). */
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
const PIPELINE = pipelineWith();

/** A store where prod waits for `waiting` (if any), and a verifier that takes every promote message. */
async function world(waiting?: string, pipeline: Pipeline = PIPELINE) {
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
    pipeline,
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
      have: 1,
      need: 1,
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

describe('approve under an approval policy', () => {
  const TWO_USERS = pipelineWith({ required: 2, approvers: { users: ['alice', 'bob'] } });
  const as = (approver: string): Partial<ApprovalRequest> => ({ revision: '6.5.0', approver, via: 'pipelinectl' });

  it('two distinct approvers: the first is counted (no promotion), the second completes it and promotes', async () => {
    const { store, deps, enqueued, request, audit } = await world('6.5.0', TWO_USERS);
    const first = await approve(deps, request(as('local:alice')));
    assert.deepEqual(first, { outcome: 'counted', revision: '6.5.0', approver: 'local:alice', have: 1, need: 2 });
    assert.equal((await store.getApproval(KEY, 'prod'))?.approvedAt, undefined, 'still waiting');
    assert.deepEqual(enqueued, [], 'a counted approval promotes nothing');

    const second = await approve(deps, request(as('local:bob')));
    assert.deepEqual(second, {
      outcome: 'approved',
      revision: '6.5.0',
      approver: 'local:bob',
      delivered: true,
      have: 2,
      need: 2,
    });
    assert.deepEqual(enqueued, [{ type: 'promote', pipeline: KEY, env: 'prod', revision: '6.5.0' }]);
    const marker = await store.getApproval(KEY, 'prod');
    assert.equal(marker?.approvedAt, NOW.toISOString());
    assert.deepEqual(
      marker?.approvals?.map((approval) => approval.by),
      ['local:alice', 'local:bob'],
    );
    // Newest first: each approval in the trail with its identity and the count.
    assert.deepEqual(
      (await audit()).map(({ type, actor, message }) => ({ type, actor, message })),
      [
        { type: 'approved', actor: 'local:bob', message: '6.5.0 approved for prod with pipelinectl (2 of 2)' },
        { type: 'approved', actor: 'local:alice', message: '6.5.0 approved for prod with pipelinectl (1 of 2)' },
      ],
    );
  });

  it('the same person twice counts once: already-counted, nothing written, nothing sent', async () => {
    const { store, deps, enqueued, request, audit } = await world('6.5.0', TWO_USERS);
    await approve(deps, request(as('local:alice')));
    const before = await store.getApproval(KEY, 'prod');
    const again = await approve(deps, request(as('local:alice')));
    assert.deepEqual(again, {
      outcome: 'already-counted',
      revision: '6.5.0',
      approver: 'local:alice',
      have: 1,
      need: 2,
    });
    assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
    assert.equal((await audit()).length, 1);
    assert.deepEqual(enqueued, []);
  });

  it('one caller assuming a role under two session names is one approver: the promotion still waits', async () => {
    const role = 'arn:aws:iam::123456789012:role/ReleaseManager';
    const session = (name: string) => `arn:aws:sts::123456789012:assumed-role/ReleaseManager/${name}`;
    for (const policy of [{ required: 2 }, { required: 2, approvers: { principals: [role] } }]) {
      const { store, deps, enqueued, request, audit } = await world('6.5.0', pipelineWith(policy));
      const first = await approve(deps, request(as(session('alice'))));
      const second = await approve(deps, request(as(session('alice-2'))));
      assert.deepEqual(
        [first, second],
        [
          { outcome: 'counted', revision: '6.5.0', approver: session('alice'), countedAs: role, have: 1, need: 2 },
          {
            outcome: 'already-counted',
            revision: '6.5.0',
            approver: session('alice-2'),
            countedAs: role,
            have: 1,
            need: 2,
          },
        ],
        JSON.stringify(policy),
      );
      const marker = await store.getApproval(KEY, 'prod');
      assert.equal(marker?.approvedAt, undefined, 'still waiting');
      assert.deepEqual(marker?.approvals, [{ by: session('alice'), at: NOW.toISOString(), countedAs: role }]);
      assert.deepEqual(
        (await audit()).map(({ actor }) => actor),
        [session('alice')],
      );
      assert.deepEqual(enqueued, []);
    }
  });

  it('two IAM Identity Center users of one permission set are two approvers: the second promotes', async () => {
    const sso = (user: string) =>
      `arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_ReleaseManager_0123abcd/${user}@example.com`;
    const { deps, enqueued, request } = await world('6.5.0', pipelineWith({ required: 2 }));
    assert.equal((await approve(deps, request(as(sso('alice'))))).outcome, 'counted');
    assert.equal((await approve(deps, request(as(sso('bob'))))).outcome, 'approved');
    assert.equal(enqueued.length, 1);
  });

  it("in the local mode the webhook key is its owner's: the owner's CLI and webhook approvals count once", async () => {
    const policy = { required: 2, approvers: { keys: ['webhook'], users: ['alice', 'bob'] } };
    const { deps, enqueued, request } = await world('6.5.0', pipelineWith(policy));
    const local = { ...deps, webhookKeyHolder: 'local:alice' };
    assert.equal((await approve(local, request(as('local:alice')))).outcome, 'counted');
    const key = await approve(local, request({ revision: '6.5.0', via: 'the approval webhook' }));
    assert.deepEqual(key, {
      outcome: 'already-counted',
      revision: '6.5.0',
      approver: 'hmac-key of Secret flux-system/webhook',
      countedAs: 'local:alice',
      have: 1,
      need: 2,
    });
    assert.deepEqual(enqueued, []);
    assert.equal((await approve(local, request(as('local:bob')))).outcome, 'approved');
  });

  const refused: { name: string; policy: ApprovalPolicy; approver: string; reason: string }[] = [
    {
      name: 'a user not in approvers.users',
      policy: { required: 2, approvers: { users: ['alice', 'bob'] } },
      approver: 'local:mallory',
      reason: "local:mallory may not approve: not in the environment's approval.approvers.users",
    },
    {
      name: 'the webhook key when the policy lists users only',
      policy: { approvers: { users: ['alice'] } },
      approver: 'hmac-key of Secret flux-system/webhook',
      reason:
        "hmac-key of Secret flux-system/webhook may not approve: the environment's approval policy has no " +
        'approval.approvers.keys (add the name of the Secret whose hmac-key signs the webhook to it)',
    },
    {
      name: 'a key from a Secret outside the pipeline namespace',
      policy: { approvers: { keys: ['webhook'] } },
      approver: 'hmac-key of Secret elsewhere/webhook',
      reason:
        "hmac-key of Secret elsewhere/webhook may not approve: approval.approvers.keys names Secrets in the pipeline's " +
        'namespace flux-system only',
    },
  ];
  for (const refusal of refused) {
    it(`refuses ${refusal.name}: not-allowed with the reason, nothing written or sent`, async () => {
      const { store, deps, enqueued, request, audit } = await world('6.5.0', pipelineWith(refusal.policy));
      const before = await store.getApproval(KEY, 'prod');
      const result = await approve(deps, request({ revision: '6.5.0', approver: refusal.approver }));
      assert.equal(result.outcome, 'not-allowed');
      assert.equal(result.outcome === 'not-allowed' && result.reason, refusal.reason);
      assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
      assert.deepEqual(await audit(), []);
      assert.deepEqual(enqueued, []);
    });
  }

  it('a listed key approves through the webhook', async () => {
    const pipeline = pipelineWith({ approvers: { keys: ['webhook'] } });
    const { deps, request } = await world('6.5.0', pipeline);
    assert.equal((await approve(deps, request({ revision: '6.5.0' }))).outcome, 'approved');
  });

  it('a rejected revision takes no approval: rejected with who and why, nothing written or sent', async () => {
    const { store, deps, enqueued, request, audit } = await world('6.5.0', TWO_USERS);
    assert.equal(await store.reject(KEY, 'prod', '6.5.0', 'local:bob', 'breaks checkout', NOW), 'rejected');
    const before = await store.getApproval(KEY, 'prod');
    assert.deepEqual(await approve(deps, request(as('local:alice'))), {
      outcome: 'rejected',
      revision: '6.5.0',
      approver: 'local:alice',
      rejectedBy: 'local:bob',
      rejectedAt: NOW.toISOString(),
      rejectionReason: 'breaks checkout',
    });
    assert.deepEqual(await store.getApproval(KEY, 'prod'), before);
    assert.deepEqual(await audit(), []);
    assert.deepEqual(enqueued, []);
  });
});

describe('a revision that cannot wait in the environment is refused before anything is written', () => {
  // Markers written before revisions read from clusters were checked may still name one; a person may type one.
  for (const revision of ['', '*', '>=0.0.0', 'latest', 'evil.example/backdoor:1', '@acme/admins', '6.9.2\nx']) {
    it(`${JSON.stringify(revision)}, waiting or named`, async () => {
      const { store, deps, enqueued, request, audit } = await world(revision);
      const before = await store.getApproval(KEY, 'prod');
      for (const named of [undefined, revision]) {
        const result = await approve(deps, request(named === undefined ? {} : { revision: named }));
        assert.equal(result.outcome, 'invalid-revision');
        assert.match(
          result.outcome === 'invalid-revision' ? result.reason : '',
          /^".*" is not a Helm chart version \(SemVer 2\)$/,
        );
      }
      assert.deepEqual(await store.getApproval(KEY, 'prod'), before, 'the marker is as it was');
      assert.deepEqual(await audit(), []);
      assert.deepEqual(enqueued, []);
    });
  }

  it('the version of a source in the first environment is a tag: `latest` can wait there, `*` cannot', async () => {
    const fromSource = resolvePipeline({
      metadata: { namespace: KEY.namespace, name: KEY.name },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
        source: { kind: 'ImagePolicy', namespace: 'flux-system', name: 'podinfo', clusterRef: { name: 'dev' } },
        environments: [
          {
            name: 'prod',
            targets: [{ namespace: 'prod', clusterRef: { name: 'prod' } }],
            promotion: { manual: true, strategy: { notification: {} } },
          },
        ],
      },
    });
    const latest = await world('latest', fromSource);
    assert.equal((await approve(latest.deps, latest.request({}))).outcome, 'approved');
    const star = await world('*', fromSource);
    assert.equal((await approve(star.deps, star.request({}))).outcome, 'invalid-revision');
  });
});
