// Who may approve (or reject) a manual environment, as its `approval.approvers` says (docs/approval-policies.md).
// Each door authenticates its caller in its own way and names them in its own shape; the shape says which list of
// the policy applies: the approval webhook's `hmac-key of Secret NS/NAME` → `keys`, the local mode's `local:USER`
// → `users`, an AWS caller's ARN → `principals`; what a list is matched against is the approver the name is
// (lib/pipeline/approver-identity.ts), so a session of a role is admitted as the role. Pure: the doors and the approve and reject
// use cases call it.
import type { ApprovalPolicy, Approvers } from '../pipeline/environment-policies.js';
import { approverOf, LOCAL_USER_PREFIX, type Approver, type AwsPrincipal } from '../pipeline/approver-identity.js';

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
  | 'unknown-identity'
  /**
   * A pattern names this session (or federated user) by a name its caller chose: it would admit anyone who may
   * assume the role under that name, so it admits no one.
   */
  | 'chosen-name';

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
  const door = approverOf(identity);
  if (door.list === undefined) {
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
  const chosen = door.list === 'principals' ? door.principal.chosenNameAfter : undefined;
  if (chosen !== undefined && listed.some((pattern) => globMatches(pattern, identity))) {
    return {
      allowed: false,
      refusal: 'chosen-name',
      list: door.list,
      reason:
        `${identity} may not approve: ${field} names it by what follows ${chosen}, which its caller chose and ` +
        `anyone who may act as ${door.identity} can choose too; list ${door.identity} instead, or approve as a ` +
        'principal whose name AWS sets (an IAM user, an IAM Identity Center session)',
    };
  }
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

function isListed(door: Exclude<Approver, { list: undefined }>, listed: readonly string[]): boolean {
  switch (door.list) {
    case 'keys':
      return listed.includes(door.secretName);
    case 'users':
      // Written as the name (`alice`) or as the identity shows it (`local:alice`).
      return listed.some((user) => user === door.user || user === `${LOCAL_USER_PREFIX}${door.user}`);
    case 'principals':
      return listed.some((pattern) => principalMatches(pattern, door.principal));
  }
}

function principalMatches(pattern: string, principal: AwsPrincipal): boolean {
  if (principal.arns.some((arn) => globMatches(pattern, arn))) return true;
  const after = principal.chosenNameAfter;
  if (after === undefined) return false;
  // A pattern that matches the ARN with a name made of a character the pattern does not contain matches it only
  // through a `*` covering that name, and that `*` would cover any other name just as well: so it admits every name.
  return globMatches(pattern, `${after}${characterNotIn(pattern)}`);
}

function characterNotIn(text: string): string {
  let code = 0;
  while (text.includes(String.fromCharCode(code))) code += 1;
  return String.fromCharCode(code);
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
