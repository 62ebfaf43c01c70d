// Comparing revisions as Flux writes them (docs/flux-status.md, "Revisions").
// HelmRelease revisions are chart versions: `6.9.2`, `6.6.1+0cc9a8446c95` (OCI digest), `6.0.3+4` (values generation).
// Kustomization revisions are source revisions: `main@sha1:<40hex>`, `v1.2.3@sha1:…`, `sha1:<hex>`,
// `latest@sha256:<64hex>`, `sha256:<64hex>`, and the legacy pre-Flux-2.0 forms `main/<sha>` and `latest/<digest>`.
import semver from 'semver';

const HEX_DIGEST = /^(?:(?:sha1|sha256|sha384|sha512):)?([0-9a-f]{7,128})$/;

/**
 * The digest part of a source revision (lowercase hex without the algorithm), or undefined when the revision is not
 * a source revision (a chart version has no digest). `main@sha1:abc…` and legacy `main/abc…` give the same digest.
 */
export function revisionDigest(revision: string): string | undefined {
  const at = revision.lastIndexOf('@');
  const candidate = at >= 0 ? revision.slice(at + 1) : revision.slice(revision.lastIndexOf('/') + 1);
  const match = HEX_DIGEST.exec(candidate);
  if (!match?.[1]) return undefined;
  // A bare hex string is a digest only in the legacy `ref/<sha>` form or with an algorithm prefix; otherwise a
  // chart version such as `1234567` would be mistaken for one.
  if (at < 0 && !revision.includes('/') && !candidate.includes(':')) return undefined;
  return match[1];
}

/**
 * Whether two revisions name the same thing. Source revisions compare on their digest, so the ref name and the
 * legacy `/` form do not matter; everything else compares as written (`6.6.1+aaa` and `6.6.1+bbb` differ).
 */
export function sameRevision(a: string, b: string): boolean {
  if (a === b) return true;
  const digestA = revisionDigest(a);
  const digestB = revisionDigest(b);
  return digestA !== undefined && digestA === digestB;
}

/**
 * Whether `revision` is strictly newer than `than`, by semantic-version precedence. Only chart versions and
 * semver tags can be ordered; for anything else (commit SHAs, branches) this is false, since order is unknown.
 * Build metadata (`+0cc9a8446c95`) does not count for precedence, as semver says.
 */
export function isNewerRevision(revision: string, than: string): boolean {
  const a = orderableVersion(revision);
  const b = orderableVersion(than);
  return a !== undefined && b !== undefined && semver.gt(a, b);
}

function orderableVersion(revision: string): string | undefined {
  // `v1.2.3@sha1:…` (a Git tag) orders by its tag.
  const ref = revision.includes('@') ? revision.slice(0, revision.indexOf('@')) : revision;
  return semver.valid(ref, { loose: true }) ?? undefined;
}
