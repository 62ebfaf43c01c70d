// Where a `$promotion` marker applies: the values of a YAML text that carry one, found in the text's concrete syntax
// tree (so every offset is exact and nothing is re-serialised). The rules follow kyaml's setters, which Weave used:
//
// - A marker is a comment whose text after its leading `#`s (any number: `#`, `##`, …) is a JSON object whose
//   `$promotion` property is a string (other properties are tolerated).
// - It applies to a scalar value in block context: a mapping value, a sequence item or a whole document; a plain,
//   quoted or block (`|`, `>`) scalar, or an empty value. The first marker among these comments wins:
//   1. the comment at the end of the value's last line (for a block scalar, the comment after its `|`/`>` header);
//   2. the comment right after the `key:` or `-` indicator when the value starts on a later line, or is empty;
//   3. a head comment: a comment alone on the line directly above the key (or the `-` of a sequence item), starting
//      in the same column, with the key (or `-`) first on its own line. A blank line in between, another column (a
//      comment of a nested or outer mapping) or a key that follows `- ` on its line does not count. Comment lines
//      above the marker line do not matter. Whole-document scalars take only the first form.
// - Not supported, hence never found: values inside flow collections (`[…]`, `{…}`), aliases, mapping keys (and the
//   values of explicit `? key` entries, except through the first form), collections, and values with a tag other
//   than `!`, `!!str` (kept) or `!!int`, `!!float`, `!!bool`, `!!null` (dropped when the value is written: the
//   version is a string, see version-writings.ts).
import type { CST } from 'yaml';
import type { Work } from './yaml-stream.js';
import { blockWritings, emptyWritings, flowWritings, type Writing } from './version-writings.js';

const MARKER_KEY = '$promotion';

/** A value carrying a marker, and how to write a new version in its place. */
export interface MarkedValue {
  marker: string;
  /** The first offset a writing may change: values are edited from the last to the first. */
  start: number;
  /** Where the current value's node starts; none for an empty value. */
  valueOffset?: number;
  /** The ways to write `version` here, best first; the caller keeps the first that reads back as the version. */
  writings(version: string): Writing[];
}

/**
 * The marked values of a YAML text, given its syntax tree (parsed without errors by the caller), in order. The work
 * pauses after each top-level token: a head comment always comes in the token of its key or an earlier one.
 */
export function* markedValues(text: string, tokens: readonly CST.Token[]): Work<MarkedValue[]> {
  const heads = new Map<number, HeadComment>();
  const found: MarkedValue[] = [];
  const visit = (token: CST.Token | undefined): void => {
    if (token?.type === 'block-map') {
      for (const item of token.items) {
        const marked = mapValue(text, heads, item);
        if (marked) found.push(marked);
        visit(item.value);
      }
    } else if (token?.type === 'block-seq') {
      for (const item of token.items) {
        const marked = seqValue(text, heads, item);
        if (marked) found.push(marked);
        visit(item.value);
      }
    }
  };
  for (const token of tokens) {
    collectHeadComments(token, text, heads);
    yield;
    if (token.type !== 'document') continue;
    const marked = documentValue(text, token);
    if (marked) found.push(marked);
    visit(token.value);
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The marker of a comment (`#…` source), if it is one. */
function parseMarker(comment: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(comment.replace(/^#+/, ''));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const marker = (value as Record<string, unknown>)[MARKER_KEY];
  return typeof marker === 'string' ? marker : undefined;
}

interface HeadComment {
  marker: string;
  column: number;
}

/** Adds the token's marker comments alone on their line, by the offset of the line below them. */
function collectHeadComments(token: CST.Token, text: string, heads: Map<number, HeadComment>): void {
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) collect(child);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const token = node as Partial<CST.SourceToken>;
    if (token.type === 'comment' && typeof token.offset === 'number' && typeof token.source === 'string') {
      const lineStart = lineStartOf(text, token.offset);
      const lineEnd = text.indexOf('\n', token.offset);
      const marker = parseMarker(token.source);
      if (marker !== undefined && lineEnd >= 0 && isBlank(text.slice(lineStart, token.offset))) {
        heads.set(lineEnd + 1, { marker, column: token.offset - lineStart });
      }
      return;
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'source') collect(child);
  };
  collect(token);
}

function mapValue(
  text: string,
  heads: Map<number, HeadComment>,
  item: CST.BlockMap['items'][number],
): MarkedValue | undefined {
  const sep = item.sep ?? [];
  const indicator = sep.findIndex((t) => t.type === 'map-value-ind');
  if (indicator < 0) return undefined;
  const explicitKey = item.start.some((t) => t.type === 'explicit-key-ind');
  const key = item.key ? keyStart(item.start, item.key.offset) : undefined;
  const head = explicitKey || key === undefined ? undefined : headFor(text, heads, key);
  return valueAfter(text, sep[indicator], sep.slice(indicator + 1), item.value, {
    head,
    empty: !explicitKey,
    lineComment: !explicitKey,
    column: key === undefined ? 0 : key - lineStartOf(text, key),
  });
}

function seqValue(
  text: string,
  heads: Map<number, HeadComment>,
  item: CST.BlockSequence['items'][number],
): MarkedValue | undefined {
  const indicator = item.start.findIndex((t) => t.type === 'seq-item-ind');
  const token = item.start[indicator];
  if (!token) return undefined;
  return valueAfter(text, token, item.start.slice(indicator + 1), item.value, {
    head: headFor(text, heads, token.offset),
    empty: true,
    lineComment: true,
    column: token.offset - lineStartOf(text, token.offset),
  });
}

function documentValue(text: string, doc: CST.Document): MarkedValue | undefined {
  const start = doc.start.findIndex((t) => t.type === 'doc-start');
  return valueAfter(text, undefined, doc.start.slice(start + 1), doc.value, {
    head: undefined,
    empty: false,
    lineComment: false,
    column: 0,
  });
}

interface Sources {
  head: string | undefined;
  /** Whether an empty value can be written (after a `key:` or `-` indicator). */
  empty: boolean;
  /** Whether a comment right after the indicator counts. */
  lineComment: boolean;
  /** The column of the key or `-`: an empty block scalar's content goes two columns further in. */
  column: number;
}

/** The marked value after an indicator (`:`, `-`, or a document start), given the tokens between them. */
function valueAfter(
  text: string,
  indicator: CST.SourceToken | undefined,
  between: CST.SourceToken[],
  value: CST.Token | undefined,
  sources: Sources,
): MarkedValue | undefined {
  const props = properties(between);
  if (!props) return undefined;
  const lineComment = sources.lineComment ? indicatorLineMarker(between) : undefined;
  const own = value ? ownComment(value) : undefined;
  const marker = own ?? lineComment ?? sources.head;
  if (marker === undefined) return undefined;
  const dropped = props.dropTag;
  if (value === undefined) {
    if (!sources.empty || !indicator) return undefined;
    const last = props.kept[props.kept.length - 1] ?? indicator;
    const at = dropped ?? { offset: last.offset + last.source.length, source: '' };
    return {
      marker,
      start: at.offset,
      writings: (version) => emptyWritings(at.offset, at.offset + at.source.length, dropped === undefined, version),
    };
  }
  const afterTag = dropped ? skipSpaces(text, dropped.offset + dropped.source.length) : value.offset;
  // A dropped tag that ends its line takes the spaces before it along, so that no line ends in a space.
  const start = !dropped
    ? value.offset
    : text[afterTag] === '\n' || text[afterTag] === '\r'
      ? skipSpacesBack(text, dropped.offset)
      : dropped.offset;
  const kept = text.slice(afterTag, value.offset);
  if (value.type === 'scalar' || value.type === 'single-quoted-scalar' || value.type === 'double-quoted-scalar') {
    const flow = value;
    return {
      marker,
      start,
      valueOffset: value.offset,
      writings: (version) => flowWritings(flow, start, kept, version),
    };
  }
  if (value.type === 'block-scalar') {
    const block = value;
    return {
      marker,
      start,
      valueOffset: value.offset,
      writings: (version) => blockWritings(text, block, start, kept, sources.column + 2, version),
    };
  }
  return undefined;
}

const KEPT_TAGS = new Set(['!', '!!str', '!<tag:yaml.org,2002:str>']);
const DROPPED_TAGS = new Set(
  ['int', 'float', 'bool', 'null'].flatMap((type) => [`!!${type}`, `!<tag:yaml.org,2002:${type}>`]),
);

interface Properties {
  /** Anchors and kept tags, in order. */
  kept: CST.SourceToken[];
  /** A tag that is removed when the version is written. */
  dropTag?: CST.SourceToken;
}

/** The node properties among the tokens before a value; undefined when a tag makes the value unsupported. */
function properties(tokens: CST.SourceToken[]): Properties | undefined {
  const props: Properties = { kept: [] };
  for (const token of tokens) {
    if (token.type === 'anchor') props.kept.push(token);
    else if (token.type === 'tag') {
      if (KEPT_TAGS.has(token.source)) props.kept.push(token);
      else if (DROPPED_TAGS.has(token.source)) props.dropTag = token;
      else return undefined;
    }
  }
  return props;
}

/** The marker in the comment at the end of the value's own (last) line. */
function ownComment(value: CST.Token): string | undefined {
  if (value.type === 'scalar' || value.type === 'single-quoted-scalar' || value.type === 'double-quoted-scalar') {
    for (const t of value.end ?? []) {
      if (t.type === 'space') continue;
      return t.type === 'comment' ? parseMarker(t.source) : undefined;
    }
    return undefined;
  }
  if (value.type === 'block-scalar') {
    const comment = value.props.find((t): t is CST.SourceToken => t.type === 'comment');
    return comment ? parseMarker(comment.source) : undefined;
  }
  return undefined;
}

/** The marker in a comment on the indicator's own line (before the first line break after it). */
function indicatorLineMarker(tokens: CST.SourceToken[]): string | undefined {
  for (const t of tokens) {
    if (t.type === 'newline') return undefined;
    if (t.type === 'comment') return parseMarker(t.source);
  }
  return undefined;
}

/** Where a mapping key starts, its anchor or tag included when they are on its line. */
function keyStart(start: CST.SourceToken[], keyOffset: number): number {
  let offset = keyOffset;
  for (let i = start.length - 1; i >= 0; i--) {
    const t = start[i];
    if (!t || t.type === 'space') continue;
    if (t.type !== 'anchor' && t.type !== 'tag') break;
    offset = t.offset;
  }
  return offset;
}

/** The head comment's marker for a key or `-` starting at `offset`, if it has one. */
function headFor(text: string, heads: Map<number, HeadComment>, offset: number): string | undefined {
  const lineStart = lineStartOf(text, offset);
  if (!isBlank(text.slice(lineStart, offset))) return undefined;
  const head = heads.get(lineStart);
  return head && head.column === offset - lineStart ? head.marker : undefined;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function isBlank(text: string): boolean {
  return /^[ \t]*$/.test(text);
}

function skipSpacesBack(text: string, offset: number): number {
  let i = offset;
  while (text[i - 1] === ' ' || text[i - 1] === '\t') i--;
  return i;
}

function skipSpaces(text: string, offset: number): number {
  let i = offset;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}
