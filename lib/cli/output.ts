// What the commands print: aligned tables that fit 120 columns, and times.
import { oneLine } from '../decision/text.js';

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
}

/**
 * Aligned columns, two spaces apart, the header first: one string per row (the header included), each cut to
 * `LINE_WIDTH`. The last column is not padded, so no line ends in spaces.
 */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const cells = [columns.map((column) => column.header), ...rows].map((row) =>
    columns.map((column, i) => clip(oneLine(row[i] ?? ''), column.max ?? Number.POSITIVE_INFINITY)),
  );
  const widths = columns.map((_column, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) =>
    clip(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
      LINE_WIDTH,
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

/** Prints lines to standard output. */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
}

/** Prints a value as indented JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
