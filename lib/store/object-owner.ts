// How the store tells owners apart: by the owning ConfigSource alone, never its commit, so a definition adopted by a
// source, or let go, is rewritten, while a commit that does not change a definition writes nothing for it. The table's
// fingerprints, the in-memory store and `apply --dry-run` all compare this way.
import { objectKeyString } from '../pipeline/model.js';
import type { ObjectOwner } from './port.js';

/** `ns/name` of the owning source; undefined for an object applied with the CLI. */
export function owningSourceId(owner: ObjectOwner | undefined): string | undefined {
  return owner && objectKeyString(owner.configSource);
}

export function sameOwningSource(a: ObjectOwner | undefined, b: ObjectOwner | undefined): boolean {
  return owningSourceId(a) === owningSourceId(b);
}
