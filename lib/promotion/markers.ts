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
// Invalid YAML (any parse error in any document) is never touched: no markers, nothing found.
import { parseAllDocuments, visit, type Document, type Scalar } from 'yaml';
import { markedValues } from './marked-values.js';

/** The marker value for a promotion: `ns:name:env`. */
export function markerFor(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `${pipelineNamespace}:${pipelineName}:${env}`;
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
  if (!mayHoldMarkers(text)) return [];
  try {
    if (!parse(text, '1.2')) return [];
    return [...new Set(markedValues(text).map((m) => m.marker))];
  } catch {
    return [];
  }
}

/**
 * Sets every value marked with exactly `marker` to `version`. Returns the new text and how many values were
 * marked (`found`) and how many actually changed (`replaced`; a value already at `version` is found, not replaced).
 * Every other byte of the text stays as it was: comments, blank lines, indentation, key order, other markers,
 * anchors/aliases, document separators, line endings (LF and CRLF), a missing final newline.
 * Never throws: invalid YAML comes back unchanged with `found: 0`.
 */
export function setMarkedValues(
  text: string,
  marker: string,
  version: string,
): { text: string; found: number; replaced: number } {
  const unchanged = { text, found: 0, replaced: 0 };
  if (!mayHoldMarkers(text)) return unchanged;
  try {
    if (!parse(text, '1.2')) return unchanged;
    // Edit from the end so that the offsets of the values still to do stay valid.
    const targets = markedValues(text)
      .filter((m) => m.marker === marker)
      .sort((a, b) => b.start - a.start);
    let current = text;
    let found = 0;
    let replaced = 0;
    for (const target of targets) {
      if (target.valueOffset !== undefined && holdsVersion(current, target.valueOffset, version)) {
        found++;
        continue;
      }
      for (const writing of target.writings(version)) {
        const candidate = current.slice(0, writing.from) + writing.text + current.slice(writing.to);
        if (holdsVersion(candidate, writing.valueOffset, version)) {
          current = candidate;
          found++;
          replaced++;
          break;
        }
      }
    }
    return { text: current, found, replaced };
  } catch {
    return unchanged;
  }
}

type YamlVersion = '1.1' | '1.2';

function parse(text: string, version: YamlVersion): Document.Parsed[] | undefined {
  const docs = parseAllDocuments(text, { version, keepSourceTokens: true });
  if (!Array.isArray(docs)) return undefined; // an empty stream
  return docs.every((doc) => doc.errors.length === 0) ? docs : undefined;
}

/** Whether the scalar starting at `offset` reads back as exactly the string `version`, in error-free YAML. */
function holdsVersion(text: string, offset: number, version: string): boolean {
  return (['1.2', '1.1'] as const).every((yamlVersion) => {
    const docs = parse(text, yamlVersion);
    if (!docs) return false;
    const node = scalarAt(docs, offset);
    return node !== undefined && typeof node.value === 'string' && node.value === version;
  });
}

function scalarAt(docs: Document.Parsed[], offset: number): Scalar | undefined {
  let found: Scalar | undefined;
  for (const doc of docs) {
    visit(doc, {
      Scalar(_key, node) {
        if (node.srcToken?.offset !== offset) return undefined;
        found = node;
        return visit.BREAK;
      },
    });
    if (found) return found;
  }
  return undefined;
}
