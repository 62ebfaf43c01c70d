// How a version is written in place of a marked value: the candidate texts, best first. The caller (markers.ts) keeps
// the first candidate that reads back as exactly the version string, so every rule here only has to propose.
//
// The version is always written as a string, because that is what every field a promotion sets holds (a chart
// version, an image tag, a `postBuild.substitute` value). Weave's kyaml setters kept the node's old tag and wrote
// `!!int 6.0.1` or `!!null 6.0.1`, which Flux then rejects or reads as something else; here:
// - a plain, single- or double-quoted value keeps its style when the version reads back as that string, else it is
//   written double-quoted (`6` → `6.0.1`, but `6` → `"7"`, `true` → `"1.10"`);
// - an explicit `!!int`, `!!float`, `!!bool` or `!!null` tag is dropped (`!!int 6` → `6.0.1`); `!` and `!!str` stay;
// - an empty value gets the version after its `key:` or `-` (and after an anchor): `key: # {…}` → `key: 6.0.1 # {…}`;
// - a block scalar (`|`, `>`) gets the version as its only content line, at the indentation of its first content
//   line (two columns in from the key or `-` when it has none), and the strip chomping indicator `-`, so the value
//   holds no final line break: `|` → `|-`, `>` → `>-`, `|+` → `|-`. Its header comment stays on the header line. A
//   version no block can hold (leading spaces, line breaks) replaces the block with a double-quoted scalar.
import { CST } from 'yaml';

/** Replaces `from`..`to` with `text`; the new value's node then starts at `valueOffset`. */
export interface Writing {
  from: number;
  to: number;
  text: string;
  valueOffset: number;
}

type Style = 'plain' | 'single' | 'double';

/** A plain or quoted scalar, from `start` (its dropped tag, if any; `kept` is what stood between tag and value). */
export function flowWritings(token: CST.FlowScalar, start: number, kept: string, version: string): Writing[] {
  const style: Style = token.type === 'scalar' ? 'plain' : token.type === 'single-quoted-scalar' ? 'single' : 'double';
  const to = token.offset + token.source.length;
  return renderings(style, version).map((rendered) => ({
    from: start,
    to,
    text: kept + rendered,
    valueOffset: start + kept.length,
  }));
}

/**
 * An empty value: either a dropped tag at `from`..`to` is replaced, or (`separate`) the version is inserted at `from`
 * after a space.
 */
export function emptyWritings(from: number, to: number, separate: boolean, version: string): Writing[] {
  const prefix = separate ? ' ' : '';
  return renderings('plain', version).map((rendered) => ({
    from,
    to,
    text: prefix + rendered,
    valueOffset: from + prefix.length,
  }));
}

/** A block scalar; `indent` is the content's indentation when the block has no content line to take it from. */
export function blockWritings(
  text: string,
  block: CST.BlockScalar,
  start: number,
  kept: string,
  indent: number,
  version: string,
): Writing[] {
  const header = block.props[0];
  const last = block.props[block.props.length - 1];
  if (header?.type !== 'block-scalar-header' || !last) return [];
  const headerEnd = header.offset + header.source.length;
  const contentStart = last.offset + CST.stringify(last).length;
  const newline = block.props.find((t): t is CST.SourceToken => t.type === 'newline');
  const content = contentLines(block.source);
  const valueOffset = start + kept.length;
  const headerLine = text.slice(headerEnd, contentStart);

  const headers = [stripped(header.source)];
  if (/[1-9]/.test(header.source)) headers.push(stripped(header.source).replace(/[1-9]/, ''));
  const writings: Writing[] = headers.map((newHeader) =>
    content
      ? {
          from: start,
          to: contentStart + content.end,
          text: kept + newHeader + headerLine + ' '.repeat(content.indent) + version,
          valueOffset,
        }
      : {
          from: start,
          to: contentStart,
          text:
            kept +
            newHeader +
            headerLine +
            (newline ? '' : '\n') +
            ' '.repeat(indent) +
            version +
            (newline?.source ?? ''),
          valueOffset,
        },
  );
  // A double-quoted scalar instead of the block: the header line keeps its comment, the content lines go.
  const headerLineEnd = newline?.offset ?? contentStart;
  writings.push({
    from: start,
    to: content ? contentStart + content.end : headerLineEnd,
    text: kept + JSON.stringify(version) + text.slice(headerEnd, headerLineEnd),
    valueOffset,
  });
  return writings;
}

/** The header with the strip chomping indicator, any indentation indicator kept. */
function stripped(header: string): string {
  if (header.includes('-')) return header;
  if (header.includes('+')) return header.replace('+', '-');
  return `${header}-`;
}

/**
 * The content's first non-blank line's indentation, and where its last non-blank line ends (before its line break),
 * relative to the content's start; undefined when every line is blank.
 */
function contentLines(source: string): { indent: number; end: number } | undefined {
  let indent: number | undefined;
  let end: number | undefined;
  let offset = 0;
  for (const line of source.split('\n')) {
    const body = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (body.trim() !== '') {
      indent ??= body.length - body.trimStart().length;
      end = offset + body.length;
    }
    offset += line.length + 1;
  }
  return indent === undefined || end === undefined ? undefined : { indent, end };
}

/** A plain value stays plain and a quoted one keeps its quotes where possible; double quotes always work. */
function renderings(style: Style, version: string): string[] {
  const double = JSON.stringify(version); // JSON escapes are valid YAML double-quoted escapes
  if (style === 'plain') return [version, double];
  if (style === 'single') return [`'${version.replaceAll("'", "''")}'`, double];
  return [double];
}
