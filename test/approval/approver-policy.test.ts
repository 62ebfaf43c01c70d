// Who may approve under an environment's approval policy (lib/approval/approver-policy.ts): one row per door and
// identity shape, the IAM role form of an assumed-role session, session names a caller chose, closed doors and the
// reasons a person reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approverAllowed, globMatches } from '../../lib/approval/approver-policy.js';
import { webhookKeyIdentity } from '../../lib/pipeline/approver-identity.js';
import type { ApprovalPolicy } from '../../lib/pipeline/environment-policies.js';

const ALICE_SESSION = 'arn:aws:sts::123456789012:assumed-role/Releaser/alice';
const SSO_ALICE = 'arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_ReleaseManager_0123abcd/alice@example.com';
const WEBHOOK = webhookKeyIdentity('flux-system', 'webhook-hmac');

interface Row {
  name: string;
  policy: ApprovalPolicy | undefined;
  identity: string;
  /** `true`, or the refusal and the list it names. */
  expected: true | { refusal: string; list?: string };
}

const rows: Row[] = [
  // No list: every door admits whom it authenticated.
  { name: 'no policy', policy: undefined, identity: 'local:bob', expected: true },
  { name: 'a policy with only required', policy: { required: 2 }, identity: ALICE_SESSION, expected: true },
  { name: 'approvers without any list', policy: { approvers: {} }, identity: WEBHOOK, expected: true },
  {
    name: 'an identity of no door, without lists',
    policy: { required: 2 },
    identity: 'someone',
    expected: true,
  },
  // keys
  { name: 'a listed key', policy: { approvers: { keys: ['webhook-hmac'] } }, identity: WEBHOOK, expected: true },
  {
    name: 'a key not listed',
    policy: { approvers: { keys: ['release-key'] } },
    identity: WEBHOOK,
    expected: { refusal: 'not-listed', list: 'keys' },
  },
  {
    name: 'a key of a Secret in another namespace, same name',
    policy: { approvers: { keys: ['webhook-hmac'] } },
    identity: webhookKeyIdentity('other', 'webhook-hmac'),
    expected: { refusal: 'other-namespace', list: 'keys' },
  },
  {
    name: 'a key when only users are listed',
    policy: { approvers: { users: ['alice'] } },
    identity: WEBHOOK,
    expected: { refusal: 'door-closed', list: 'keys' },
  },
  // users
  { name: 'a listed user', policy: { approvers: { users: ['alice', 'bob'] } }, identity: 'local:bob', expected: true },
  {
    name: 'a user listed as local:NAME',
    policy: { approvers: { users: ['local:bob'] } },
    identity: 'local:bob',
    expected: true,
  },
  {
    name: 'a user not listed',
    policy: { approvers: { users: ['alice'] } },
    identity: 'local:bob',
    expected: { refusal: 'not-listed', list: 'users' },
  },
  {
    name: 'user names are compared exactly',
    policy: { approvers: { users: ['Alice'] } },
    identity: 'local:alice',
    expected: { refusal: 'not-listed', list: 'users' },
  },
  {
    name: 'a user when only principals are listed',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/*'] } },
    identity: 'local:alice',
    expected: { refusal: 'door-closed', list: 'users' },
  },
  // principals
  {
    // Anyone who may assume Releaser can name their session alice.
    name: 'the exact session ARN of a role whose session name the caller chose',
    policy: { approvers: { principals: [ALICE_SESSION] } },
    identity: ALICE_SESSION,
    expected: { refusal: 'chosen-name', list: 'principals' },
  },
  {
    name: 'a pattern admitting only some session names of a role',
    policy: { approvers: { principals: ['arn:aws:sts::123456789012:assumed-role/Releaser/a*'] } },
    identity: ALICE_SESSION,
    expected: { refusal: 'chosen-name', list: 'principals' },
  },
  {
    name: 'a pattern admitting every session name of a role, written with several stars',
    policy: { approvers: { principals: ['arn:aws:sts::*:assumed-role/Rel*/*'] } },
    identity: ALICE_SESSION,
    expected: true,
  },
  {
    name: 'the exact session ARN of an IAM Identity Center role (AWS names the session after the user)',
    policy: { approvers: { principals: [SSO_ALICE] } },
    identity: SSO_ALICE,
    expected: true,
  },
  {
    name: 'the Identity Center session of another user',
    policy: { approvers: { principals: [SSO_ALICE] } },
    identity: SSO_ALICE.replace('alice@', 'bob@'),
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'every user of an Identity Center permission set, by its role',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/AWSReservedSSO_ReleaseManager_0123abcd'] } },
    identity: SSO_ALICE,
    expected: true,
  },
  {
    name: 'a federated user by the name its caller chose',
    policy: { approvers: { principals: ['arn:aws:sts::123456789012:federated-user/carol'] } },
    identity: 'arn:aws:sts::123456789012:federated-user/carol',
    expected: { refusal: 'chosen-name', list: 'principals' },
  },
  {
    name: 'every federated user of the account',
    policy: { approvers: { principals: ['arn:aws:sts::123456789012:federated-user/*'] } },
    identity: 'arn:aws:sts::123456789012:federated-user/carol',
    expected: true,
  },
  {
    name: 'every session of a role',
    policy: { approvers: { principals: ['arn:aws:sts::123456789012:assumed-role/Releaser/*'] } },
    identity: ALICE_SESSION,
    expected: true,
  },
  {
    name: "the session's role, as IAM names it",
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/Releaser'] } },
    identity: ALICE_SESSION,
    expected: true,
  },
  {
    name: "any role of the session's account",
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/*'] } },
    identity: ALICE_SESSION,
    expected: true,
  },
  {
    name: 'another role',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/Auditor'] } },
    identity: ALICE_SESSION,
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'a role whose name only starts like the listed one (anchored)',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/Releaser'] } },
    identity: 'arn:aws:sts::123456789012:assumed-role/ReleaserX/alice',
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'the role in another account',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/*'] } },
    identity: 'arn:aws:sts::210987654321:assumed-role/Releaser/alice',
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'an ARN pattern in another case (case-sensitive)',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/releaser'] } },
    identity: ALICE_SESSION,
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'an IAM user by its ARN',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:user/*'] } },
    identity: 'arn:aws:iam::123456789012:user/carol',
    expected: true,
  },
  {
    name: 'an IAM user is not a role',
    policy: { approvers: { principals: ['arn:aws:iam::123456789012:role/*'] } },
    identity: 'arn:aws:iam::123456789012:user/carol',
    expected: { refusal: 'not-listed', list: 'principals' },
  },
  {
    name: 'a session in another partition, by its role',
    policy: { approvers: { principals: ['arn:aws-cn:iam::123456789012:role/Releaser'] } },
    identity: 'arn:aws-cn:sts::123456789012:assumed-role/Releaser/alice',
    expected: true,
  },
  {
    name: 'a principal when only keys are listed',
    policy: { approvers: { keys: ['webhook-hmac'] } },
    identity: ALICE_SESSION,
    expected: { refusal: 'door-closed', list: 'principals' },
  },
  // An identity no door gives, once the policy has lists.
  {
    name: 'an identity of no door',
    policy: { approvers: { users: ['alice'] } },
    identity: 'alice',
    expected: { refusal: 'unknown-identity' },
  },
  {
    name: 'an empty list admits no one through its door',
    policy: { approvers: { users: [] } },
    identity: 'local:alice',
    expected: { refusal: 'not-listed', list: 'users' },
  },
];

describe('approverAllowed', () => {
  for (const row of rows) {
    it(`${row.name}: ${row.expected === true ? 'allowed' : `refused (${row.expected.refusal})`}`, () => {
      const verdict = approverAllowed(row.policy, row.identity, 'flux-system');
      if (row.expected === true) {
        assert.deepEqual(verdict, { allowed: true });
        return;
      }
      assert.equal(verdict.allowed, false);
      if (verdict.allowed) return;
      assert.equal(verdict.refusal, row.expected.refusal);
      assert.equal(verdict.list, row.expected.list);
      assert.ok(verdict.reason.startsWith(`${row.identity} may not approve: `), verdict.reason);
      if (row.expected.list) assert.match(verdict.reason, new RegExp(`approval\\.approvers\\.${row.expected.list}\\b`));
    });
  }

  it('a closed door says which list to add to', () => {
    const verdict = approverAllowed({ approvers: { principals: ['arn:aws:iam::1:role/*'] } }, 'local:bob');
    assert.deepEqual(verdict, {
      allowed: false,
      refusal: 'door-closed',
      list: 'users',
      reason:
        "local:bob may not approve: the environment's approval policy has no approval.approvers.users " +
        '(add the local user name to it)',
    });
  });

  it('a pattern naming a chosen session name says to list the role', () => {
    const verdict = approverAllowed({ approvers: { principals: [ALICE_SESSION] } }, ALICE_SESSION);
    assert.deepEqual(verdict, {
      allowed: false,
      refusal: 'chosen-name',
      list: 'principals',
      reason:
        `${ALICE_SESSION} may not approve: approval.approvers.principals names it by what follows ` +
        'arn:aws:sts::123456789012:assumed-role/Releaser/, which its caller chose and anyone who may act as ' +
        'arn:aws:iam::123456789012:role/Releaser can choose too; list arn:aws:iam::123456789012:role/Releaser ' +
        'instead, or approve as a principal whose name AWS sets (an IAM user, an IAM Identity Center session)',
    });
  });

  it('a refused key is named by its Secret, nothing more', () => {
    const verdict = approverAllowed({ approvers: { keys: ['release-key'] } }, WEBHOOK, 'flux-system');
    assert.deepEqual(verdict, {
      allowed: false,
      refusal: 'not-listed',
      list: 'keys',
      reason:
        "hmac-key of Secret flux-system/webhook-hmac may not approve: not in the environment's approval.approvers.keys",
    });
  });

  it('without the pipeline namespace, a key is matched by its Secret name', () => {
    assert.deepEqual(approverAllowed({ approvers: { keys: ['webhook-hmac'] } }, WEBHOOK), { allowed: true });
  });
});

describe('globMatches', () => {
  const cases: [pattern: string, value: string, matches: boolean][] = [
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['*', '', true],
    ['*', 'anything/at:all', true],
    ['a*', 'a', true],
    ['*c', 'abc', true],
    ['*c', 'abcd', false],
    ['a*c', 'ac', true],
    ['a*b*c', 'abbbc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['a.c', 'abc', false],
    ['a?c', 'abc', false],
    ['role/(x)', 'role/(x)', true],
  ];
  for (const [pattern, value, matches] of cases) {
    it(`${JSON.stringify(pattern)} ${matches ? 'matches' : 'does not match'} ${JSON.stringify(value)}`, () => {
      assert.equal(globMatches(pattern, value), matches);
    });
  }
});
