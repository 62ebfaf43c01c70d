// Who an approver is (lib/pipeline/approver-identity.ts): the identity that counts once under an approval policy,
// one row per shape a door names its caller in. Two names of one identity are one approver; a session name its
// caller chose is no identity of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approverIdentity, webhookKeyIdentity } from '../../lib/pipeline/approver-identity.js';

const ACCOUNT = '123456789012';
const RELEASE_MANAGER = `arn:aws:iam::${ACCOUNT}:role/ReleaseManager`;
const session = (role: string, name: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${name}`;
const SSO_ROLE = 'AWSReservedSSO_ReleaseManager_0123456789abcdef';
const WEBHOOK = webhookKeyIdentity('flux-system', 'webhook-hmac');

interface Row {
  name: string;
  /** Names a door gave, and the identity each counts as. */
  names: readonly string[];
  identities: readonly string[];
  holder?: string;
}

const rows: Row[] = [
  {
    name: 'an IAM user is its ARN',
    names: [`arn:aws:iam::${ACCOUNT}:user/carol`, `arn:aws:iam::${ACCOUNT}:user/dave`],
    identities: [`arn:aws:iam::${ACCOUNT}:user/carol`, `arn:aws:iam::${ACCOUNT}:user/dave`],
  },
  {
    name: 'an IAM user with a path is its ARN',
    names: [`arn:aws:iam::${ACCOUNT}:user/division/carol`],
    identities: [`arn:aws:iam::${ACCOUNT}:user/division/carol`],
  },
  {
    name: "the account's root is its ARN",
    names: [`arn:aws:iam::${ACCOUNT}:root`],
    identities: [`arn:aws:iam::${ACCOUNT}:root`],
  },
  {
    name: 'two session names of one role are the role',
    names: [session('ReleaseManager', 'alice'), session('ReleaseManager', 'alice-2')],
    identities: [RELEASE_MANAGER, RELEASE_MANAGER],
  },
  {
    name: 'sessions of two roles are two roles',
    names: [session('ReleaseManager', 'alice'), session('Auditor', 'alice')],
    identities: [RELEASE_MANAGER, `arn:aws:iam::${ACCOUNT}:role/Auditor`],
  },
  {
    name: 'a session in another partition is the role there',
    names: [`arn:aws-cn:sts::${ACCOUNT}:assumed-role/ReleaseManager/alice`],
    identities: [`arn:aws-cn:iam::${ACCOUNT}:role/ReleaseManager`],
  },
  {
    name: 'two users of one IAM Identity Center permission set are two sessions (AWS names them)',
    names: [session(SSO_ROLE, 'alice@example.com'), session(SSO_ROLE, 'bob@example.com')],
    identities: [session(SSO_ROLE, 'alice@example.com'), session(SSO_ROLE, 'bob@example.com')],
  },
  {
    name: 'federated users of an account, named by whoever asked for them, are one',
    names: [`arn:aws:sts::${ACCOUNT}:federated-user/carol`, `arn:aws:sts::${ACCOUNT}:federated-user/carol-2`],
    identities: [`arn:aws:sts::${ACCOUNT}:federated-user/*`, `arn:aws:sts::${ACCOUNT}:federated-user/*`],
  },
  {
    name: 'local users are themselves',
    names: ['local:alice', 'local:bob'],
    identities: ['local:alice', 'local:bob'],
  },
  {
    name: 'a webhook key is itself where no one person holds the keys (AWS)',
    names: [WEBHOOK],
    identities: [WEBHOOK],
  },
  {
    name: "the local mode's webhook key is its owner's, as the owner's CLI approval is",
    names: [WEBHOOK, 'local:alice', 'local:bob'],
    identities: ['local:alice', 'local:alice', 'local:bob'],
    holder: 'local:alice',
  },
  {
    name: 'a name of no door is itself',
    names: ['someone'],
    identities: ['someone'],
  },
];

describe('approverIdentity', () => {
  for (const row of rows) {
    it(row.name, () => {
      const context = row.holder === undefined ? {} : { webhookKeyHolder: row.holder };
      assert.deepEqual(
        row.names.map((name) => approverIdentity(name, context)),
        row.identities,
      );
    });
  }
});
