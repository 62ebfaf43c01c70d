// Who may approve (or reject) a manual environment, as its `approval.approvers` says (docs/approval-policies.md).
// Each door authenticates its caller in its own way and names them in its own shape; the shape says which list of
// the policy applies: the approval webhook's `hmac-key of Secret NS/NAME` → `keys`, the local mode's `local:USER`
// → `users`, an AWS caller's ARN → `principals`. Pure: the doors and the approve and reject use cases call it.
import type { ApprovalPolicy, Approvers } from '../pipeline/environment-policies.js';

/** The list of `approval.approvers` that admits callers of one door. */
export type ApproverList = keyof Approvers;

/** Why an identity may not approve: one per situation, so callers never match the prose. */
export type ApproverRefusal =
  /** The door's list is there and does not name the identity. */
  | 'not-listed'
  /** The policy lists approvers, none for this identity's door: the door is closed. */
  | 'door-closed'
  /** A webhook key from a Secret outside the pipeline's namespace (`keys` names Secrets of that namespace only). */
  | 'other-namespace'
  /** The identity has none of the shapes a door gives, so no list can name it. */
  | 'unknown-identity';

export type ApproverVerdict =
  | { allowed: true }
  | {
      allowed: false;
      refusal: ApproverRefusal;
      /** The list the identity would have to be in; absent for an identity no door gives. */
      list?: ApproverList;
      /** One line for a person: names the identity and the list, never a secret. */
      reason: string;
    };

/** The name the approval webhook records an approval under: the Secret whose `hmac-key` signed the request. */
export function webhookKeyIdentity(namespace: string, secretName: string): string {
  return `${WEBHOOK_KEY_PREFIX}${namespace}/${secretName}`;
}

/** The prefix of the local mode's identities (`local:alice`). */
export const LOCAL_USER_PREFIX = 'local:';

const WEBHOOK_KEY_PREFIX = 'hmac-key of Secret ';

/** `arn:PARTITION:sts::ACCOUNT:assumed-role/ROLE/SESSION`: what STS names a caller who assumed a role. */
const ASSUMED_ROLE = /^arn:([^:]+):sts::([^:]*):assumed-role\/([^/]+)\/(.+)$/;

type DoorIdentity =
  | { list: 'keys'; namespace: string; name: string }
  | { list: 'users'; name: string }
  | { list: 'principals'; arns: string[] };

/** Which door gave `identity`, and what of it the door's list names. */
function doorIdentityOf(identity: string): DoorIdentity | undefined {
  if (identity.startsWith(WEBHOOK_KEY_PREFIX)) {
    const secret = identity.slice(WEBHOOK_KEY_PREFIX.length);
    const slash = secret.indexOf('/');
    if (slash <= 0 || slash === secret.length - 1) return undefined;
    return { list: 'keys', namespace: secret.slice(0, slash), name: secret.slice(slash + 1) };
  }
  if (identity.startsWith(LOCAL_USER_PREFIX) && identity.length > LOCAL_USER_PREFIX.length) {
    return { list: 'users', name: identity.slice(LOCAL_USER_PREFIX.length) };
  }
  if (identity.startsWith('arn:')) {
    // A session's ARN names the role it assumed, so a policy may name the role (`arn:aws:iam::ACCOUNT:role/ROLE`,
    // the ARN IAM shows for it) rather than every session. The session ARN carries no role path: a role with a
    // path is written without it.
    const assumed = ASSUMED_ROLE.exec(identity);
    const role = assumed && `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}`;
    return { list: 'principals', arns: role ? [identity, role] : [identity] };
  }
  return undefined;
}

/**
 * Whether `identity` may approve (and so reject) under `policy`. No policy, or one without `approvers`, admits
 * everyone a door authenticated. Once the policy lists approvers, each door admits only those in its own list, and a
 * door without a list admits no one. `pipelineNamespace`: the pipeline's, which a webhook key's Secret must be in
 * (the webhook only ever authenticates with a Secret there; checked all the same, since `keys` names Secrets only).
 */
export function approverAllowed(
  policy: ApprovalPolicy | undefined,
  identity: string,
  pipelineNamespace?: string,
): ApproverVerdict {
  const approvers = policy?.approvers;
  if (approvers === undefined || !listsAny(approvers)) return { allowed: true };
  const door = doorIdentityOf(identity);
  if (door === undefined) {
    return {
      allowed: false,
      refusal: 'unknown-identity',
      reason:
        `${identity} may not approve: the environment's approval policy lists approvers, and this identity is ` +
        'none of the forms its lists name (an HMAC key, a local user, an AWS principal)',
    };
  }
  const listed = approvers[door.list];
  const field = `approval.approvers.${door.list}`;
  if (listed === undefined) {
    return {
      allowed: false,
      refusal: 'door-closed',
      list: door.list,
      reason: `${identity} may not approve: the environment's approval policy has no ${field} (add ${ADDS[door.list]} to it)`,
    };
  }
  if (door.list === 'keys' && pipelineNamespace !== undefined && door.namespace !== pipelineNamespace) {
    return {
      allowed: false,
      refusal: 'other-namespace',
      list: door.list,
      reason: `${identity} may not approve: ${field} names Secrets in the pipeline's namespace ${pipelineNamespace} only`,
    };
  }
  if (isListed(door, listed)) return { allowed: true };
  return {
    allowed: false,
    refusal: 'not-listed',
    list: door.list,
    reason: `${identity} may not approve: not in the environment's ${field}`,
  };
}

/** What a person adds to a door's list to open it, for the reason of a closed door. */
const ADDS: Readonly<Record<ApproverList, string>> = {
  keys: 'the name of the Secret whose hmac-key signs the webhook',
  principals: 'an IAM principal ARN pattern',
  users: 'the local user name',
};

function listsAny(approvers: Approvers): boolean {
  return approvers.keys !== undefined || approvers.principals !== undefined || approvers.users !== undefined;
}

function isListed(door: DoorIdentity, listed: readonly string[]): boolean {
  switch (door.list) {
    case 'keys':
      return listed.includes(door.name);
    case 'users':
      // Written as the name (`alice`) or as the identity shows it (`local:alice`).
      return listed.some((user) => user === door.name || user === `${LOCAL_USER_PREFIX}${door.name}`);
    case 'principals':
      return listed.some((pattern) => door.arns.some((arn) => globMatches(pattern, arn)));
  }
}

/** `*` matches any run of characters (also none, also `/` and `:`); anything else matches itself. Anchored, case-sensitive. */
export function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (parts.length === 1) return value === pattern;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  // Each middle part at its earliest place after the previous one: greedy from the left is enough with only `*`.
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
