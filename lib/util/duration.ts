// Durations as people write them in flags and read them on screen: `30s`, `5m`, `1h30m`, `1500ms`. One home for the
// units, so what `pipelinectl` accepts and what it (and the demo) prints are the same notation.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** `30s`, `5m`, `1h`, `1h30m`, `1500ms` → whole milliseconds; undefined when the text is not such a duration. */
export function durationMs(text: string): number | undefined {
  const value = text.trim();
  if (!DURATION.test(value)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(DURATION_PART)) ms += Number(amount) * (UNIT_MS[unit ?? ''] ?? 0);
  return Math.round(ms);
}

/** The shortest exact writing of a duration: `1h30m`, `5m`, `1500ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] ?? 1;
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}
