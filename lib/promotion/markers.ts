// Weave-compatible `$promotion` markers: a YAML line comment `# {"$promotion": "<ns>:<pipeline>:<env>"}` right after
// a scalar value marks that value as the version of the pipeline's app in that environment. A promotion to `env`
// replaces the WHOLE value of every scalar marked `ns:name:env` with the new version (Weave used kyaml setters, which
// also replace the whole value; there is no tag-only substitution).
//
// Unlike kyaml, which re-serialises the file, this edits the text in place: only the characters of the marked
// scalars change, so comments, blank lines, indentation, key order, anchors, document separators, line endings and a
// missing final newline all survive byte for byte.
//
// What counts as a marked scalar (the same rules for `markersIn` and `setMarkedValues`):
// - a plain, single-quoted or double-quoted scalar that is a mapping value, a sequence item or a whole document, in
//   block context (not inside a flow collection `[…]`/`{…}`), with an explicit tag of at most `!!str` or `!`;
// - followed on its own last line (only spaces in between) by a comment whose text after `#` is a JSON object whose
//   `$promotion` property is a string (other properties are tolerated; anything else is not a marker).
// Not supported, hence never found nor changed: block scalars (`|`, `>`), aliases, mapping keys, flow collections,
// empty values (`key: # {"$promotion": …}`), a comment on the line before or after the value, and scalars tagged with
// a non-string tag (`!!int 5`, `!custom 5`).
//
// Styles: a double-quoted value stays double-quoted and a single-quoted one single-quoted; a plain value stays plain
// unless the version would then not read back as that exact string (numbers like `1.10`, `true`, `null`, `0x1F`,
// `: `, ` #`, leading indicators, …). Every rewrite is checked by re-parsing the edited text under both the YAML 1.2
// core schema and the YAML 1.1 schema (Kubernetes tooling still resolves `yes`, `1_000` or `1:20` the 1.1 way); when
// the preferred style does not read back as the version string, the value is written double-quoted instead. A value
// that cannot be written at all is left alone and not counted.
//
// Invalid YAML (any parse error in any document) is never touched: no markers, nothing found.
import { isMap, isSeq, parseAllDocuments, visit, type Document, type Scalar } from 'yaml';

const MARKER_KEY = '$promotion';
const STRING_TAGS = new Set(['tag:yaml.org,2002:str', '!']);

/** The marker value for a promotion: `ns:name:env`. */
export function markerFor(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `${pipelineNamespace}:${pipelineName}:${env}`;
}

/** A cheap screen (like Weave's ScreeningLocalReader): whether the text contains the literal `"$promotion"`. */
export function mayHoldMarkers(text: string): boolean {
  return text.includes(`"${MARKER_KEY}"`);
}

/**
 * The distinct marker values (`ns:name:env`) of every valid $promotion comment in the text, in order of appearance.
 * Only comments on supported scalars count (see the file header), so a marker listed here is one `setMarkedValues`
 * acts on. Invalid YAML has no markers.
 */
export function markersIn(text: string): string[] {
  if (!mayHoldMarkers(text)) return [];
  try {
    const docs = parse(text, '1.2');
    if (!docs) return [];
    return [...new Set(markedScalars(docs).map((m) => m.marker))];
  } catch {
    return [];
  }
}

/**
 * Sets every scalar marked with exactly `marker` to `version`. Returns the new text and how many scalars were
 * marked (`found`) and how many actually changed (`replaced`; a scalar already at `version` is found, not replaced).
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
    const docs = parse(text, '1.2');
    if (!docs) return unchanged;
    // Edit from the end so that the offsets of the scalars still to do stay valid.
    const targets = markedScalars(docs)
      .filter((m) => m.marker === marker)
      .sort((a, b) => b.offset - a.offset);
    let current = text;
    let found = 0;
    let replaced = 0;
    for (const target of targets) {
      if (holdsVersion(current, target.offset, version)) {
        found++;
        continue;
      }
      for (const rendered of renderings(target.style, version)) {
        const candidate = current.slice(0, target.offset) + rendered + current.slice(target.offset + target.length);
        if (holdsVersion(candidate, target.offset, version)) {
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

type Style = 'plain' | 'single' | 'double';

interface MarkedScalar {
  marker: string;
  offset: number;
  length: number;
  style: Style;
}

type YamlVersion = '1.1' | '1.2';

function parse(text: string, version: YamlVersion): Document.Parsed[] | undefined {
  const docs = parseAllDocuments(text, { version, keepSourceTokens: true });
  if (!Array.isArray(docs)) return undefined; // an empty stream
  return docs.every((doc) => doc.errors.length === 0) ? docs : undefined;
}

function markedScalars(docs: Document.Parsed[]): MarkedScalar[] {
  const found: MarkedScalar[] = [];
  for (const doc of docs) {
    visit(doc, {
      Scalar(key, node, path) {
        if (key === 'key') return;
        const parent = path[path.length - 1];
        if ((isMap(parent) || isSeq(parent)) && parent.flow) return;
        const marked = markedScalar(node);
        if (marked) found.push(marked);
      },
    });
  }
  return found.sort((a, b) => a.offset - b.offset);
}

function markedScalar(node: Scalar): MarkedScalar | undefined {
  const token = node.srcToken;
  if (!token) return undefined;
  let style: Style;
  if (token.type === 'scalar') style = 'plain';
  else if (token.type === 'single-quoted-scalar') style = 'single';
  else if (token.type === 'double-quoted-scalar') style = 'double';
  else return undefined; // block scalars
  if (node.tag !== undefined && !STRING_TAGS.has(node.tag)) return undefined;
  for (const t of token.end ?? []) {
    if (t.type === 'space') continue;
    if (t.type !== 'comment') return undefined;
    const marker = parseMarker(t.source);
    return marker === undefined ? undefined : { marker, offset: token.offset, length: token.source.length, style };
  }
  return undefined;
}

function parseMarker(comment: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(comment.replace(/^#/, ''));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const marker = (value as Record<string, unknown>)[MARKER_KEY];
  return typeof marker === 'string' ? marker : undefined;
}

function renderings(style: Style, version: string): string[] {
  const double = JSON.stringify(version); // JSON escapes are valid YAML double-quoted escapes
  if (style === 'plain') return [version, double];
  if (style === 'single') return [`'${version.replaceAll("'", "''")}'`, double];
  return [double];
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
