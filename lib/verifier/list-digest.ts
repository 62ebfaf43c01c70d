// The digest of what one LIST of a (cluster, kind) held: every object whole, in name order, so that any change the
// cluster made to any of them (a status, a label, a spec; each moves its resourceVersion too) gives another digest.
// A poll whose LIST has the digest the last full poll of the pair stored has nothing new to record
// (docs/architecture.md, "The poll digest"). Objects the pipelines do not target are in it too: a change to one costs
// a full poll of the pair, which finds nothing to record.
import { createHash } from 'node:crypto';

/** Bumped when what a status is computed from changes meaning, so that digests of an older version are not trusted. */
const DIGEST_FORMAT = 'v1';

export function listDigest(objects: readonly Record<string, unknown>[]): string {
  const named = objects.map((object) => ({ name: nameOf(object), text: JSON.stringify(object) }));
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
