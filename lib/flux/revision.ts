// Comparing revisions as Flux writes them (docs/flux-status.md, "Revisions").
// HelmRelease revisions are chart versions: `6.9.2`, `6.6.1+0cc9a8446c95` (OCI digest), `6.0.3+4` (values generation).
// Kustomization revisions are source revisions: `main@sha1:<40hex>`, `v1.2.3@sha1:…`, `sha1:<hex>`,
// `latest@sha256:<64hex>`, `sha256:<64hex>`, and the legacy pre-Flux-2.0 forms `main/<sha>` and `latest/<digest>`.
// One function per module: the whole package is three times the size, and the receiver bundles this file.
import semverGt from 'semver/functions/gt.js';
import semverParse from 'semver/functions/parse.js';
import semverValid from 'semver/functions/valid.js';
import { printable } from '../logging/printable.js';
import type { WatchedKind } from '../pipeline/model.js';

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
  return a !== undefined && b !== undefined && semverGt(a, b);
}

function orderableVersion(revision: string): string | undefined {
  // `v1.2.3@sha1:…` (a Git tag) orders by its tag.
  const ref = revision.includes('@') ? revision.slice(0, revision.indexOf('@')) : revision;
  return semverValid(ref, { loose: true }) ?? undefined;
}

// ---------------------------------------------------------------- a pipeline's source and the apps it feeds
// Source revisions as the source objects write them: an ImagePolicy's selected tag (`6.5.0`), an OCIRepository's
// artifact revision (`6.5.0@sha256:<64hex>`, `sha256:<64hex>` when pinned by digest, `6.5.0/<digest>` before Flux 2.0).

/** An identifier of build metadata that helm-controller writes for a chart from an OCIRepository: 12 hex. */
const OCI_DIGEST_PREFIX = /^[0-9a-f]{12}$/;
/** An identifier of build metadata that source-controller writes for a chart with `valuesFiles`: a generation. */
const GENERATION = /^[0-9]+$/;

/**
 * What is written into the first environment's `$promotion` markers for a source revision: its tag
 * (`6.5.0@sha256:…` → `6.5.0`, `6.5.0` → `6.5.0`). A revision that names only a digest (`sha256:…`, an
 * OCIRepository pinned by digest) stays whole: the digest is then the only name the version has.
 */
export function sourceVersion(sourceRevision: string): string {
  return sourceTag(sourceRevision) ?? sourceRevision;
}

/**
 * Whether an app that reports `targetRevision` runs the version of a source that reports `sourceRevision`
 * (docs/flux-status.md, "Revisions"):
 * - the same revision (`sameRevision`), e.g. a Kustomization fed by the OCIRepository: same digest;
 * - a chart version whose version is the source's tag (`6.5.0`, or `v6.5.0` by semver equality as helm-controller
 *   compares them), with build metadata that Flux writes and that does not contradict the source's digest: none
 *   (digest tracking off), the OCI digest's first 12 hex (`6.5.0+0cc9a8446c95`: must be this digest's), or a
 *   HelmChart generation (`6.5.0+4`: the same chart version with `valuesFiles` merged in);
 * - a chart version carrying the 12 hex of a digest-only source (`sha256:…`), whatever its version;
 * - an OCI artifact revision (`6.5.0@sha256:…`) whose tag is an ImagePolicy's tag.
 */
export function runsSourceRevision(targetRevision: string, sourceRevision: string): boolean {
  if (sameRevision(targetRevision, sourceRevision)) return true;
  const tag = sourceTag(sourceRevision);
  const digest = revisionDigest(sourceRevision);
  const chart = semverParse(targetRevision);
  if (chart) {
    const [metadata, ...more] = chart.build;
    if (more.length > 0) return false;
    const versionMatches = tag !== undefined && sameVersion(chart.version, tag);
    if (metadata === undefined) return versionMatches;
    if (OCI_DIGEST_PREFIX.test(metadata)) {
      // Without a digest (an ImagePolicy's tag) there is nothing to check the chart's digest against.
      if (digest === undefined) return versionMatches;
      return metadata === digest.slice(0, 12) && (tag === undefined || versionMatches);
    }
    // Anything else (a Git commit and a generation, a chart's own metadata) is not what the source resolved.
    return GENERATION.test(metadata) && versionMatches;
  }
  // An OCI artifact (sha256 or longer, never a Git commit) pulled by the tag an ImagePolicy selected.
  const targetDigest = revisionDigest(targetRevision);
  return (
    digest === undefined && targetDigest !== undefined && targetDigest.length >= 64 && sourceTag(targetRevision) === tag
  );
}

/** The tag of a source revision (the whole revision when it has no digest); undefined when it names only a digest. */
function sourceTag(revision: string): string | undefined {
  if (revisionDigest(revision) === undefined) return revision;
  const at = revision.lastIndexOf('@');
  if (at > 0) return revision.slice(0, at);
  const slash = revision.lastIndexOf('/');
  return slash > 0 ? revision.slice(0, slash) : undefined;
}

/** A chart version (without build metadata) and a tag name the same version: `6.5.0` and `v6.5.0` do. */
function sameVersion(version: string, tag: string): boolean {
  const parsed = semverParse(tag, { loose: true });
  return parsed !== null && parsed.build.length === 0 && parsed.version === version;
}

// ---------------------------------------------------------------- which revisions are accepted from a cluster
// A revision a leaf cluster reports is written into Git, titles pull requests and approval requests, and is stored:
// it is taken only when it is a version of the kind of object it comes from (docs/flux-status.md, "Revisions").
// `*`, `>=0.0.0` or `1.2` in a HelmRelease's `version` would make the next environment float to whatever chart is
// newest; a newline or a megabyte would reach files, titles and items as they are.

/**
 * The grammars of revisions, by what writes them: a Helm chart version (HelmRelease), an OCI tag (ImagePolicy), an
 * OCI artifact revision (OCIRepository), a Flux source revision (Kustomization).
 */
export type RevisionKind = 'chart-version' | 'oci-tag' | 'oci-artifact' | 'source-revision';

/** The kind of revision each object the controller reads reports. */
export const REVISION_KIND_OF: Readonly<Record<WatchedKind, RevisionKind>> = {
  HelmRelease: 'chart-version',
  Kustomization: 'source-revision',
  ImagePolicy: 'oci-tag',
  OCIRepository: 'oci-artifact',
};

const REVISION_KIND_NAMES: Readonly<Record<RevisionKind, string>> = {
  'chart-version': 'a Helm chart version (SemVer 2)',
  'oci-tag': 'an OCI tag',
  'oci-artifact': 'an OCI artifact revision',
  'source-revision': 'a Flux source revision',
};

/** Semantic versions longer than this are refused by the semver package, and are no chart's version. */
const MAX_CHART_VERSION = 256;
/** Git puts no limit on a ref name; file systems limit a path component to 255 bytes, and no ref here is longer. */
const MAX_REF = 255;
const SHA1 = '[0-9a-f]{40}';
const SHA256 = '[0-9a-f]{64}';
/** The OCI distribution spec's tag: at most 128 characters. */
const OCI_TAG = '[A-Za-z0-9_][A-Za-z0-9._-]{0,127}';
const OCI_TAG_REVISION = new RegExp(`^${OCI_TAG}(?:@sha256:${SHA256})?$`);
const OCI_ARTIFACT_REVISION = new RegExp(`^(?:${OCI_TAG}@sha256:${SHA256}|sha256:${SHA256}|${OCI_TAG}/${SHA256})$`);
/**
 * A Git ref as `git check-ref-format` allows it, narrowed to the characters refs are named with in practice: `main`,
 * `feature/x`, `refs/heads/main`, `refs/tags/v1.0`, `refs/pull/1/head`, `v1.2.3+build`, and OCI tags (which may
 * start with `_`). No `..`, no empty component, no component or ref ending in `.` or `.lock`.
 */
const REF_COMPONENT = '[A-Za-z0-9_+-](?:[A-Za-z0-9._+-]*[A-Za-z0-9_+-])?';
const REF = `(?!.*\\.\\.)(?!.*\\.lock(?:/|@|$))${REF_COMPONENT}(?:/${REF_COMPONENT})*`;
/**
 * `<ref>@sha1:<commit>`, `<ref>@sha256:<digest>`, `sha1:<commit>`, `sha256:<digest>`, and the forms before Flux 2.0,
 * `<ref>/<commit>` and `<tag>/<digest>`.
 */
const SOURCE_REVISION = new RegExp(
  `^(?:(?:(?<ref>${REF})@)?(?:sha1:${SHA1}|sha256:${SHA256})|(?<legacyRef>${REF})/(?:${SHA1}|${SHA256}))$`,
);
/** Printable ASCII without the space: what every grammar above is made of, checked before any of them runs. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** Whether `value` is a revision of `kind`: the one rule for every revision taken from a cluster or a person. */
export function isRevisionOf(kind: RevisionKind, value: string): boolean {
  // The length first: the value may be a megabyte, and nothing below needs to look at more than this.
  if (value.length > MAX_CHART_VERSION + MAX_REF || !VISIBLE_ASCII.test(value)) return false;
  switch (kind) {
    case 'chart-version':
      // semver's strict parse is SemVer 2 with an optional leading `v` (which Helm accepts); it trims, which the
      // check above already made moot. Build metadata (`+0cc9a8446c95`, `+4`) is part of the grammar.
      return value.length <= MAX_CHART_VERSION && semverParse(value) !== null;
    case 'oci-tag':
      return OCI_TAG_REVISION.test(value);
    case 'oci-artifact':
      return OCI_ARTIFACT_REVISION.test(value);
    case 'source-revision': {
      const groups = SOURCE_REVISION.exec(value)?.groups;
      return groups !== undefined && (groups['ref'] ?? groups['legacyRef'] ?? '').length <= MAX_REF;
    }
  }
}

/** How a value that is not a revision of `kind` reads in a message: `"*" is not a Helm chart version (SemVer 2)`. */
export function invalidRevisionMessage(kind: RevisionKind, value: string): string {
  return `${shownRevision(value)} is not ${REVISION_KIND_NAMES[kind]}`;
}

/** The first characters shown in a message for a value that is not a revision; never the whole of it. */
const SHOWN_LENGTH = 64;

/** A value that may be anything, for a message: quoted, cut short, its control characters escaped. */
export function shownRevision(value: string): string {
  const cut = value.length > SHOWN_LENGTH ? `${value.slice(0, SHOWN_LENGTH)}…` : value;
  return `"${printable(cut)}"`;
}
