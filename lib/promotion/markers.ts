// Weave-compatible `$promotion` markers: a YAML comment `# {"$promotion": "<ns>:<pipeline>:<env>"}` marks a value as
// the version of the pipeline's app in that environment. A promotion to `env` replaces the WHOLE value of every value
// marked `ns:name:env` with the new version (Weave used kyaml setters, which also replace the whole value; there is
// no tag-only substitution).
//
// Which comments mark which values follows kyaml (marked-values.ts): a comment at the end of the value's line, after
// its `key:` or `-`, or alone on the line directly above its key; written with any number of `#`; on a plain, quoted,
// block (`|`, `>`) or empty value. How the version is written in each case (always as a string, so that Flux reads
// what it expects): version-writings.ts. docs/weave-compatibility.md describes both for users.
//
// Unlike kyaml, which re-serialises the file, this edits the text in place: only the characters of the marked values
// change, so comments, blank lines, indentation, key order, anchors, document separators, line endings and a missing
// final newline all survive byte for byte.
//
// Every rewrite is checked by re-parsing the edited text under both the YAML 1.2 core schema and the YAML 1.1 schema
// (Kubernetes tooling still resolves `yes`, `1_000` or `1:20` the 1.1 way): the first writing that reads back as the
// version string is kept (a plain value stays plain unless the version would then read as a number, `true`, `null`,
// …; then it is double-quoted). A value that cannot be written at all is left alone and not counted.
//
// The cost is a fixed number of readings of the file, whatever the number of markers: the text is read once (and once
// more under YAML 1.1 when a value may already be at the version), then every marked value gets its best writing at
// once and the edited text is read once under each schema; the values whose writing does not read back get their next
// writing in the next such round (at most four).
// A writing that reads back is a single scalar in place of the old one and leaves the rest of the text as it was, so
// deciding all values together gives the same text as deciding them one after the other. A round whose text is not
// valid YAML ends there when the file has a YAML 1.1 error outside the marked values (no writing can remove it); else
// (a version with YAML syntax in it, written plain) it decides its values one at a time, one reading each. The work pauses between documents and every few thousand lexical tokens (yaml-stream.ts): the `…Sliced` forms
// return to the event loop there, so a `serve` process keeps receiving events while it edits a large file.
//
// Invalid YAML (any parse error in any document) is never touched: no markers, nothing found.
import { markedValues, type MarkedValue } from './marked-values.js';
import type { Writing } from './version-writings.js';
import type { Scalar } from 'yaml';
import { errorOffsets, parseStream, readScalars, runNow, runSliced, scalarsAt, type Work } from './yaml-stream.js';

/** The marker value for a promotion: `ns:name:env`. */
export function markerFor(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `${pipelineNamespace}:${pipelineName}:${env}`;
}

/** The parts of a marker value `ns:name:env`; undefined for a value of another shape (no promotion sets it). */
export function parseMarker(marker: string): { namespace: string; name: string; environment: string } | undefined {
  const parts = marker.split(':');
  if (parts.length !== 3 || parts.some((part) => part === '')) return undefined;
  const [namespace = '', name = '', environment = ''] = parts;
  return { namespace, name, environment };
}

/** A cheap screen (like Weave's ScreeningLocalReader): whether the text contains the literal `"$promotion"`. */
export function mayHoldMarkers(text: string): boolean {
  return text.includes('"$promotion"');
}

/**
 * The distinct marker values (`ns:name:env`) of every valid $promotion comment in the text, in order of appearance.
 * Only comments that mark a supported value count (see marked-values.ts), so a marker listed here is one
 * `setMarkedValues` acts on. Invalid YAML has no markers.
 */
export function markersIn(text: string): string[] {
  try {
    return runNow(findMarkers(text));
  } catch {
    return [];
  }
}

/** `markersIn`, returning to the event loop between slices of the work. */
export async function markersInSliced(text: string): Promise<string[]> {
  try {
    return await runSliced(findMarkers(text));
  } catch {
    return [];
  }
}

export interface MarkedValuesSet {
  text: string;
  found: number;
  replaced: number;
}

/**
 * Sets every value marked with exactly `marker` to `version`. Returns the new text and how many values were
 * marked (`found`) and how many actually changed (`replaced`; a value already at `version` is found, not replaced).
 * Every other byte of the text stays as it was: comments, blank lines, indentation, key order, other markers,
 * anchors/aliases, document separators, line endings (LF and CRLF), a missing final newline.
 * Never throws: invalid YAML comes back unchanged with `found: 0`.
 */
export function setMarkedValues(text: string, marker: string, version: string): MarkedValuesSet {
  try {
    return runNow(setValues(text, marker, version));
  } catch {
    return { text, found: 0, replaced: 0 };
  }
}

/** `setMarkedValues`, returning to the event loop between slices of the work. */
export async function setMarkedValuesSliced(text: string, marker: string, version: string): Promise<MarkedValuesSet> {
  try {
    return await runSliced(setValues(text, marker, version));
  } catch {
    return { text, found: 0, replaced: 0 };
  }
}

function* findMarkers(text: string): Work<string[]> {
  if (!mayHoldMarkers(text)) return [];
  const stream = yield* parseStream(text, '1.2');
  if (!stream) return [];
  return [...new Set((yield* markedValues(text, stream.tokens)).map((m) => m.marker))];
}

/** A marked value still to be written: its writings, best first, and the one being tried. */
interface Pending {
  writings: Writing[];
  tried: number;
}

function* setValues(text: string, marker: string, version: string): Work<MarkedValuesSet> {
  const unchanged = { text, found: 0, replaced: 0 };
  if (!mayHoldMarkers(text)) return unchanged;
  const marked = yield* markedValuesOf(text, marker, version);
  if (!marked || marked.targets.length === 0) return unchanged;
  const { targets, holding } = marked;
  let found = 0;
  let pending: Pending[] = [];
  for (const target of targets) {
    if (target.valueOffset !== undefined && holding.has(target.valueOffset)) found++;
    else pending.push({ writings: target.writings(version), tried: 0 });
  }
  pending = pending.filter((p) => p.writings.length > 0);
  const written: Writing[] = [];
  let unwritable: boolean | undefined;
  while (pending.length > 0) {
    const round = pending.map((p) => p.writings[p.tried] as Writing);
    let reads = yield* readBack([...written, ...round], round);
    if (!reads) {
      // An error of the text under YAML 1.1 outside every marked value stays whatever is written: nothing can be.
      unwritable ??= yield* hasErrorOutside(text, targets, version);
      if (unwritable) break;
      // Some writing of the round is not valid YAML where it stands: try them one at a time.
      reads = [];
      for (const writing of round) reads.push((yield* readBack([...written, writing], [writing]))?.[0] === true);
    }
    const next: Pending[] = [];
    pending.forEach((p, i) => {
      if (reads[i]) written.push(round[i] as Writing);
      else if (++p.tried < p.writings.length) next.push(p);
    });
    pending = next;
  }
  if (written.length === 0) return { text, found, replaced: 0 };
  return { text: applyWritings(text, written).text, found: found + written.length, replaced: written.length };

  /**
   * Whether each of `checked` reads back as the version once all of `writings` are made; undefined when that text is
   * not valid YAML and some value could still read back (a value that does not read back under YAML 1.2 fails
   * whatever YAML 1.1 says).
   */
  function* readBack(writings: readonly Writing[], checked: readonly Writing[]): Work<boolean[] | undefined> {
    const edited = applyWritings(text, writings);
    const offsets = checked.map((writing) => edited.valueOffset(writing));
    const scalars = yield* readScalars(edited.text, '1.2', new Set(offsets));
    if (!scalars) return undefined;
    const holds = yield* versionsAt(edited.text, scalars, offsets, version);
    return holds.valid ? offsets.map((offset) => holds.has(offset)) : undefined;
  }
}

/** The values marked with `marker`, and the offsets of those already at the version; undefined for invalid YAML. */
function* markedValuesOf(
  text: string,
  marker: string,
  version: string,
): Work<{ targets: MarkedValue[]; holding: { has(offset: number): boolean } } | undefined> {
  const original = yield* parseStream(text, '1.2');
  if (!original) return undefined;
  const targets = (yield* markedValues(text, original.tokens)).filter((m) => m.marker === marker);
  const valueOffsets = targets.flatMap((target) => (target.valueOffset === undefined ? [] : [target.valueOffset]));
  const scalars = yield* scalarsAt(original.docs, new Set(valueOffsets));
  return { targets, holding: yield* versionsAt(text, scalars, valueOffsets, version) };
}

/**
 * Which of `offsets` hold a scalar that is the string `version` under YAML 1.2 (`scalars`, read by the caller) and
 * under YAML 1.1; `valid` is false when some does under 1.2 but the text has an error under 1.1. The text is read
 * under YAML 1.1 only when some value reads as the version under 1.2.
 */
function* versionsAt(
  text: string,
  scalars: ReadonlyMap<number, Scalar>,
  offsets: readonly number[],
  version: string,
): Work<{ valid: boolean; has(offset: number): boolean }> {
  const candidates = new Set(offsets.filter((offset) => readsAs(scalars.get(offset), version)));
  if (candidates.size === 0) return { valid: true, has: () => false };
  const yaml11 = yield* readScalars(text, '1.1', candidates);
  if (!yaml11) return { valid: false, has: () => false };
  return { valid: true, has: (offset) => candidates.has(offset) && readsAs(yaml11.get(offset), version) };
}

/** Whether the text has an error under YAML 1.1 outside what the writings of the marked values may change. */
function* hasErrorOutside(text: string, targets: readonly MarkedValue[], version: string): Work<boolean> {
  const changeable = targets.flatMap((target) => target.writings(version).map((writing) => [writing.from, writing.to]));
  const errors = yield* errorOffsets(text, '1.1');
  return errors.some((offset) => !changeable.some(([from = 0, to = 0]) => from <= offset && offset < to));
}

function readsAs(scalar: Scalar | undefined, version: string): boolean {
  return scalar !== undefined && typeof scalar.value === 'string' && scalar.value === version;
}

/** The text with every writing made (they never overlap), and where each written value now starts. */
function applyWritings(
  text: string,
  writings: readonly Writing[],
): { text: string; valueOffset(writing: Writing): number } {
  const ordered = [...writings].sort((a, b) => a.from - b.from);
  const shifts = new Map<Writing, number>();
  const parts: string[] = [];
  let at = 0;
  let shift = 0;
  for (const writing of ordered) {
    parts.push(text.slice(at, writing.from), writing.text);
    shifts.set(writing, shift);
    shift += writing.text.length - (writing.to - writing.from);
    at = writing.to;
  }
  parts.push(text.slice(at));
  return { text: parts.join(''), valueOffset: (writing) => writing.valueOffset + (shifts.get(writing) ?? 0) };
}
