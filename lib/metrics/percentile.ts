// Summaries of a sample of durations. The nearest-rank percentile always names a duration that was measured, which
// is what a person expects to find when they look for "the p90 one" in the history.

/** The median: the middle value, or the mean of the two middle ones; null for an empty sample. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2;
}

/** The nearest-rank percentile `p` (0 < p ≤ 100): the smallest value at least p% of the sample is at or below. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}
