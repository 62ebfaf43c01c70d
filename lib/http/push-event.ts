// What a Git host's push webhook says, read no further than needed to tell whether it can concern a ConfigSource's
// branch: the event's kind (from the host's event header, or the payload where the host has none) and the refs it
// pushed. Nothing else of the payload is read or trusted: the sync reads the branch head itself. Lenient: a payload
// that cannot be read, or does not name its refs, is a push of unknown refs, which triggers a sync.
import * as z from 'zod/mini';
import type { GitProviderType } from '../pipeline/promotion.js';

export type PushEvent =
  /** The host testing the hook (GitHub's `ping`, Bitbucket Server's `diagnostics:ping`). */
  | { kind: 'ping' }
  /** An event that is not a push of branches (a merge request, a tag push…); `event` as the host names it. */
  | { kind: 'not-a-push'; event: string }
  /** A push; `refs` are the full names of the refs it updated (`refs/heads/main`), when the payload tells them. */
  | { kind: 'push'; refs?: readonly string[] };

type Headers = Readonly<Record<string, string | undefined>>;

/**
 * A field read as `schema`, or undefined when it is absent or anything else: a payload that says less than expected
 * says nothing. (Not `z.catch`, which would pull 11 KB more of zod into the receiver's bundle.)
 */
function lenient<T extends z.ZodMiniType>(schema: T) {
  return z.optional(
    z.pipe(
      z.unknown(),
      z.transform((value): z.output<T> | undefined => {
        const parsed = z.safeParse(schema, value);
        return parsed.success ? parsed.data : undefined;
      }),
    ),
  );
}
const optionalString = lenient(z.string());

const RefPayload = z.object({ ref: optionalString });
const GitLabPayload = z.object({ ref: optionalString, object_kind: optionalString, event_name: optionalString });
const BitbucketChange = z.object({
  refId: optionalString,
  ref: lenient(z.object({ id: optionalString, displayId: optionalString, type: optionalString })),
});
const BitbucketPayload = z.object({ changes: lenient(z.array(z.unknown())) });
const AzureRefUpdate = z.object({ name: optionalString });
const AzurePayload = z.object({
  eventType: optionalString,
  resource: lenient(z.object({ refUpdates: lenient(z.array(z.unknown())) })),
});

/** The event a webhook of a host of `type` carries. */
export function pushEventOf(type: GitProviderType, headers: Headers, body: Buffer): PushEvent {
  switch (type) {
    case 'github':
      return gitHubEvent(headers, body);
    case 'gitlab':
      return gitLabEvent(headers, body);
    case 'bitbucket-server':
      return bitbucketServerEvent(headers, body);
    case 'azure-devops':
      return azureDevOpsEvent(body);
  }
}

/** Whether a sync should follow: a push that updated `branch`, or whose refs are not known. */
export function concernsBranch(event: PushEvent, branch: string): boolean {
  if (event.kind !== 'push') return false;
  return event.refs === undefined || event.refs.includes(`refs/heads/${branch}`);
}

function gitHubEvent(headers: Headers, body: Buffer): PushEvent {
  const event = headers['x-github-event'];
  if (event === 'ping') return { kind: 'ping' };
  if (event !== undefined && event !== 'push') return { kind: 'not-a-push', event };
  const payload = RefPayload.safeParse(payloadOf(headers, body));
  return pushOf(payload.success ? [payload.data.ref] : []);
}

function gitLabEvent(headers: Headers, body: Buffer): PushEvent {
  // A project hook says `Push Hook`; a system hook says `System Hook` for every kind and the payload tells which.
  const event = headers['x-gitlab-event'];
  if (event !== undefined && event !== 'Push Hook' && event !== 'System Hook') return { kind: 'not-a-push', event };
  const payload = GitLabPayload.safeParse(payloadOf(headers, body));
  if (!payload.success) return { kind: 'push' };
  const kind = payload.data.object_kind ?? payload.data.event_name;
  if (kind !== undefined && kind !== 'push') return { kind: 'not-a-push', event: kind };
  return pushOf([payload.data.ref]);
}

function bitbucketServerEvent(headers: Headers, body: Buffer): PushEvent {
  const event = headers['x-event-key'];
  if (event === 'diagnostics:ping') return { kind: 'ping' };
  if (event !== undefined && event !== 'repo:refs_changed') return { kind: 'not-a-push', event };
  const payload = BitbucketPayload.safeParse(payloadOf(headers, body));
  const changes = payload.success ? (payload.data.changes ?? []) : [];
  return pushOf(
    changes.map((raw) => {
      const change = BitbucketChange.safeParse(raw);
      if (!change.success) return undefined;
      const { ref, refId } = change.data;
      const fullName = ref?.id ?? refId;
      if (fullName !== undefined) return fullName;
      // Only the short name: a branch unless the change says it is a tag.
      return ref?.displayId !== undefined && ref.type !== 'TAG' ? `refs/heads/${ref.displayId}` : undefined;
    }),
  );
}

function azureDevOpsEvent(body: Buffer): PushEvent {
  const payload = AzurePayload.safeParse(payloadOf({}, body));
  if (!payload.success) return { kind: 'push' };
  const { eventType, resource } = payload.data;
  if (eventType !== undefined && eventType !== 'git.push') return { kind: 'not-a-push', event: eventType };
  return pushOf(
    (resource?.refUpdates ?? []).map((raw) => {
      const update = AzureRefUpdate.safeParse(raw);
      return update.success ? update.data.name : undefined;
    }),
  );
}

/** A push of the refs that could be read; none readable is a push of unknown refs. */
function pushOf(refs: readonly (string | undefined)[]): PushEvent {
  const known = refs.filter((ref): ref is string => ref !== undefined && ref !== '');
  return known.length === 0 ? { kind: 'push' } : { kind: 'push', refs: known };
}

/**
 * The payload as JSON: the body, or the `payload` field of a form (GitHub's `application/x-www-form-urlencoded`
 * content type). Undefined when it is neither.
 */
function payloadOf(headers: Headers, body: Buffer): unknown {
  let text = body.toString('utf8');
  if ((headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    text = new URLSearchParams(text).get('payload') ?? '';
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
