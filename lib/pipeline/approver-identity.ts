// Who an approver is (docs/approval-policies.md, "Who counts as one approver"): the one rule that counting distinct
// approvers (both stores) and matching a policy's lists (approver-policy.ts) go through. Each door names its caller
// in its own shape, and that name is what is recorded and shown; but a name is only an identity where nobody can
// choose it. The session name of an assumed role is chosen by whoever assumes the role, so one person can be
// `assumed-role/ReleaseManager/alice` and then `…/alice-2`: such a session is the role. AWS binds the session name
// only for IAM Identity Center's `AWSReservedSSO_*` roles (the user's name in the directory). GetCallerIdentity,
// the only thing a door learns of an AWS caller, carries no `sts:SourceIdentity`, so no other session is bound.
// In the local mode the webhook keys sit in the owner's data directory: a key's approval is the owner's.

/** The prefix of the local mode's identities (`local:alice`). */
export const LOCAL_USER_PREFIX = 'local:';

const WEBHOOK_KEY_PREFIX = 'hmac-key of Secret ';

/** The name the approval webhook records an approval under: the Secret whose `hmac-key` signed the request. */
export function webhookKeyIdentity(namespace: string, secretName: string): string {
  return `${WEBHOOK_KEY_PREFIX}${namespace}/${secretName}`;
}

/** The name the local mode gives the operating system's user `user`, whatever the door (CLI, dashboard, serve). */
export function localUserIdentity(user: string): string {
  return `${LOCAL_USER_PREFIX}${user}`;
}

/** What a door's name says of who approves. */
export type Approver =
  /** Weave's approval webhook: the Secret whose `hmac-key` signed. */
  | { list: 'keys'; identity: string; namespace: string; secretName: string }
  /** The local mode: the operating system's user. */
  | { list: 'users'; identity: string; user: string }
  /** An AWS caller, by the ARN GetCallerIdentity gave. */
  | { list: 'principals'; identity: string; principal: AwsPrincipal }
  /** A name no door gives: only itself. */
  | { list: undefined; identity: string };

export interface AwsPrincipal {
  /** ARNs that name exactly this approver: a policy pattern matching one of them admits it. */
  arns: string[];
  /**
   * For a caller whose last name part anyone may choose (a session of a role that does not bind its session name, a
   * federated user): the ARN up to that part. A pattern admits such a caller only if it admits every name there, so
   * `…:assumed-role/ReleaseManager/*` does and `…:assumed-role/ReleaseManager/alice` does not.
   */
  chosenNameAfter?: string;
}

export interface ApproverContext {
  /**
   * The approver who holds every webhook key, where one person does: the local mode's owner (`local:USER`), whose
   * data directory holds the Secrets. Unset on AWS, where the key's holder is no one a door names otherwise.
   */
  webhookKeyHolder?: string;
}

/** `arn:PARTITION:sts::ACCOUNT:assumed-role/ROLE/SESSION`: what STS names a caller who assumed a role. */
const ASSUMED_ROLE = /^arn:([^:]+):sts::([^:]*):assumed-role\/([^/]+)\/(.+)$/;
/** `arn:PARTITION:sts::ACCOUNT:federated-user/NAME`: a caller of GetFederationToken, NAME of its own choosing. */
const FEDERATED_USER = /^arn:([^:]+):sts::([^:]*):federated-user\/(.+)$/;
/** The roles IAM Identity Center makes for its permission sets; their sessions are named after the signed-in user. */
const IDENTITY_CENTER_ROLE = 'AWSReservedSSO_';

/** Who `name` (as a door named its caller) is: the identity that counts once, and what a policy's list may match. */
export function approverOf(name: string, context: ApproverContext = {}): Approver {
  if (name.startsWith(WEBHOOK_KEY_PREFIX)) {
    const secret = name.slice(WEBHOOK_KEY_PREFIX.length);
    const slash = secret.indexOf('/');
    if (slash <= 0 || slash === secret.length - 1) return { list: undefined, identity: name };
    const identity = context.webhookKeyHolder ?? name;
    return { list: 'keys', identity, namespace: secret.slice(0, slash), secretName: secret.slice(slash + 1) };
  }
  if (name.startsWith(LOCAL_USER_PREFIX) && name.length > LOCAL_USER_PREFIX.length) {
    return { list: 'users', identity: name, user: name.slice(LOCAL_USER_PREFIX.length) };
  }
  if (name.startsWith('arn:')) return awsApprover(name);
  return { list: undefined, identity: name };
}

/** The identity an approval by `name` counts as: approvals of one identity count once. */
export function approverIdentity(name: string, context: ApproverContext = {}): string {
  return approverOf(name, context).identity;
}

/** The identity a recorded approval counted as; one recorded before identities were kept, by its name. */
export function countedIdentityOf(approval: { by: string; countedAs?: string }): string {
  return approval.countedAs ?? approverIdentity(approval.by);
}

function awsApprover(arn: string): Approver {
  const assumed = ASSUMED_ROLE.exec(arn);
  if (assumed) {
    const [, partition, account, role] = assumed;
    // The ARN IAM shows for the role; the session ARN carries no role path, so a role with a path is named without.
    const roleArn = `arn:${partition}:iam::${account}:role/${role}`;
    if (role?.startsWith(IDENTITY_CENTER_ROLE)) {
      return { list: 'principals', identity: arn, principal: { arns: [arn, roleArn] } };
    }
    const chosenNameAfter = `arn:${partition}:sts::${account}:assumed-role/${role}/`;
    return { list: 'principals', identity: roleArn, principal: { arns: [roleArn], chosenNameAfter } };
  }
  const federated = FEDERATED_USER.exec(arn);
  if (federated) {
    const [, partition, account] = federated;
    const chosenNameAfter = `arn:${partition}:sts::${account}:federated-user/`;
    return { list: 'principals', identity: `${chosenNameAfter}*`, principal: { arns: [], chosenNameAfter } };
  }
  // IAM users, the account's root, anything else: the ARN names one principal.
  return { list: 'principals', identity: arn, principal: { arns: [arn] } };
}
