// The shape every benchmark returns and the one table `npm run bench` prints (and writes into docs/benchmarks.md): a
// section per benchmark, a row per measurement, each with its absolute figure and, where the issue asks for a
// comparison, the baseline it was measured against in the same run and the ratio between the two.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Measurement {
  /** What was measured, e.g. `signed event → 202, in process`. */
  name: string;
  /** The figure with its unit, formatted for a person, e.g. `11,820 req/s`. */
  value: string;
  /** The comparison measured in the same run, with its unit, e.g. `naive GET poll: 10,000 requests`. */
  baseline?: string;
  /** How `value` relates to `baseline`, e.g. `250× fewer requests`. */
  ratio?: string;
  /** One short line: the conditions or the source of a price. */
  note?: string;
}

export interface BenchSection {
  title: string;
  measurements: Measurement[];
  /**
   * The goals this run measured and missed, one sentence each (`the verifier's load and init take +283 ms of CPU over
   * an empty module's, over the goal of +120 ms`). A missed goal fails the run as a broken premise does, but after
   * every figure is printed; a premise that breaks (a figure that cannot be trusted) still throws.
   */
  unmet?: string[];
}

export type Bench = () => Promise<BenchSection>;

/** `1234567.8` → `1,234,568`; `digits` decimals for small figures. */
export function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Milliseconds with a sensible precision. */
export function formatMs(ms: number): string {
  return ms >= 100 ? `${formatNumber(ms)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

/** `a / b` as `N×`, rounded to what a reader needs. */
export function formatRatio(a: number, b: number): string {
  if (b === 0) return '∞';
  const ratio = a / b;
  return `${ratio >= 10 ? formatNumber(ratio) : ratio.toFixed(1)}×`;
}

/** The p-th percentile (0–100) of samples, nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The machine and runtime the figures came from. */
export function machineLine(date = new Date()): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(0);
  return (
    `${date.toISOString().slice(0, 10)}, ${os.type()} ${os.release()} ${os.arch()}, ${model}, ` +
    `${cpus.length} CPUs, ${memoryGiB} GiB, Node ${process.version}`
  );
}

const cell = (text: string | undefined): string => (text ?? '').replace(/\|/g, '\\|');

/** The sections as one Markdown table. */
export function markdownTable(sections: readonly BenchSection[]): string {
  const lines = [
    '| benchmark | measurement | result | baseline (same run) | ratio | conditions |',
    '|---|---|---|---|---|---|',
  ];
  for (const section of sections) {
    for (const row of section.measurements) {
      lines.push(
        `| ${cell(section.title)} | ${cell(row.name)} | ${cell(row.value)} | ${cell(row.baseline)} | ${cell(row.ratio)} | ${cell(row.note)} |`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Runs one benchmark on its own when its file is the entry point (`npx tsx bench/receiver.ts`), printing its table.
 * `moduleUrl` is the caller's `import.meta.url`.
 */
export async function runIfMain(moduleUrl: string, bench: Bench): Promise<void> {
  const entry = process.argv[1];
  if (!entry || moduleUrl !== pathToFileURL(path.resolve(entry)).href) return;
  const section = await bench();
  console.log(markdownTable([section]));
  const unmet = section.unmet ?? [];
  for (const goal of unmet) console.error(`goal not met: ${goal}`);
  if (unmet.length > 0) process.exitCode = 1;
}
