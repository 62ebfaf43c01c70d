// What the commands print: aligned tables that fit 120 columns, and times; and the one way out to the terminal.
// Every command writes through the print functions here, and they escape what a terminal would act on instead of
// showing (lib/logging/printable.ts): a condition message from a leaf cluster, an error from a Git host, a reason a
// person typed elsewhere can hold a screen clear, colours, a clipboard write (OSC 52), a hidden link (OSC 8) or a
// right-to-left override, and printed raw they would rewrite what the operator reads. Tables, text and notes show
// such a character as `\u{1b}`; JSON and YAML as their own `\u001b` escape, so a parser reads the same value.
import { oneLine } from '../decision/text.js';
import { escapeUnprintable, isPrintable, printable } from '../logging/printable.js';
import { currentTerminal } from './terminal.js';

/** The width the tables and detail lines are made to fit. */
export const LINE_WIDTH = 120;

/** Cuts `text` to `width` characters, ending with `…` when it was longer. */
export function clip(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`;
}

export interface Column {
  header: string;
  /** Cells longer than this are clipped; default: no limit. */
  max?: number;
  /**
   * The last column only: its cells run to their end past `LINE_WIDTH` (the terminal wraps them) instead of the row
   * being cut there. For prose a reader needs whole, such as the history's messages.
   */
  runs?: true;
}

/**
 * Aligned columns, two spaces apart, the header first: one string per row (the header included), each cut to
 * `LINE_WIDTH` unless its last column `runs`. The last column is not padded, so no line ends in spaces. Each cell is made one line and escaped
 * before it is measured, so that a row holding an escape stays aligned.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const cells = [columns.map((column) => column.header), ...rows].map((row) =>
    columns.map((column, i) => clip(printable(oneLine(row[i] ?? '')), column.max ?? Number.POSITIVE_INFINITY)),
  );
  const widths = columns.map((_column, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  const width = columns.at(-1)?.runs ? Number.POSITIVE_INFINITY : LINE_WIDTH;
  return cells.map((row) =>
    clip(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
      width,
    ),
  );
}

/** `12s ago`, `5m ago`, `3h ago`, `2d ago` (`in 5m` for a time to come); the ISO text when it does not parse. */
export function ago(iso: string, now: Date): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = Math.round((now.getTime() - time) / 1000);
  const span = Math.abs(seconds);
  let text: string;
  if (span < 60) text = `${span}s`;
  else if (span < 3600) text = `${Math.floor(span / 60)}m`;
  else if (span < 86_400) text = `${Math.floor(span / 3600)}h`;
  else text = `${Math.floor(span / 86_400)}d`;
  return seconds < 0 ? `in ${text}` : `${text} ago`;
}

/** Prints lines to standard output, each escaped: a line break inside one is shown as `\u{a}`, never made. */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) currentTerminal().stdout.write(`${lines.map(printable).join('\n')}\n`);
}

/**
 * Prints a note, a warning or an error to standard error: its own line breaks kept, every other unprintable character
 * escaped.
 */
export function printStderr(text: string): void {
  currentTerminal().stderr.write(`${text.split('\n').map(printable).join('\n')}\n`);
}

/** Prints a value as indented JSON (formatJson). */
export function printJson(value: unknown): void {
  currentTerminal().stdout.write(formatJson(value));
}

/** A value as indented JSON, with what JSON.stringify leaves raw (DEL, C1, bidi controls) as `\uXXXX` too. */
export function formatJson(value: unknown): string {
  return `${escapeFormatted(JSON.stringify(value, null, 2))}\n`;
}

/** Prints a value as YAML (formatYaml). */
export async function printYaml(value: unknown): Promise<void> {
  currentTerminal().stdout.write(await formatYaml(value));
}

/**
 * A value as YAML. A string holding an unprintable character (but a line break or a tab) is written in
 * double quotes, where YAML has the `\uXXXX` escape; the yaml package escapes the C0 controls there, and the rest are
 * escaped here. Other strings are written as the yaml package chooses, as before.
 */
export async function formatYaml(value: unknown): Promise<string> {
  const { Document, visit } = await import('yaml');
  const document = new Document(value);
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && !isPrintable(node.value.replace(/[\n\t]/g, ''))) {
        node.type = 'QUOTE_DOUBLE';
      }
    },
  });
  return escapeFormatted(document.toString());
}

/**
 * JSON or YAML text with each unprintable character (but the line breaks and tabs of the format's own layout) as a
 * `\uXXXX` escape. Every such character is inside a quoted string, where the escape stands for the same character:
 * JSON.stringify escapes lone surrogates itself, so what is left is in the Basic Multilingual Plane.
 */
function escapeFormatted(text: string): string {
  return escapeUnprintable(text, (character) =>
    character === '\n' || character === '\t'
      ? character
      : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
