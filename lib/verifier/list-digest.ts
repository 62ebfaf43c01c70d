// The digest of what one LIST of a (cluster, kind) held, so that a poll whose LIST has the digest the last full poll
// of the pair stored has nothing new to record (docs/architecture.md, "The poll digest"). Every write to an object,
// to its spec, status, labels or anything else, moves its `resourceVersion`, and its `uid` changes when it is created
// again: so an object is identified by its apiVersion (the version it was served at, which is what a status is read
// from), uid and resourceVersion, without hashing the whole object. An object that lacks either (a cluster's answer is
// untrusted) is hashed whole. Objects the pipelines do not target are in it too: a change to one costs a full poll of
// the pair, which finds nothing to record.
import { createHash } from 'node:crypto';

/**
 * Bumped when what a status is computed from changes meaning, or how an object is identified here, so that digests of
 * an older version are not trusted.
 */
const DIGEST_FORMAT = 'v2';

export function listDigest(objects: readonly Record<string, unknown>[]): string {
  const named = objects.map((object) => ({ name: nameOf(object), text: identity(object) }));
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const hash = createHash('sha256').update(DIGEST_FORMAT);
  for (const { name, text } of named) hash.update(`\n${name}\n${text}`);
  return hash.digest('base64url');
}

/** `namespace/name` of a listed object. */
export function nameOf(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  return `${String(metadata.namespace)}/${String(metadata.name)}`;
}

/** What stands for the object's content: its version's identity, or (lacking one) the whole object. */
function identity(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { uid?: unknown; resourceVersion?: unknown };
  const { uid, resourceVersion } = metadata;
  if (typeof uid === 'string' && uid !== '' && typeof resourceVersion === 'string' && resourceVersion !== '') {
    return `version ${JSON.stringify([object.apiVersion, uid, resourceVersion])}`;
  }
  return `whole ${JSON.stringify(object)}`;
}
