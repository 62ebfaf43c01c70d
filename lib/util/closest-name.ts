// "Did you mean …?": the known name a mistyped one was most likely meant to be, by edit distance ignoring case.

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name closest to `name`, when it is close enough to be a typo (at most a third of its length apart, and
 * never more than 3 edits) or one is the other cut short (`logRetention` for `logRetentionDays`); undefined when
 * nothing is.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const distance = editDistance(wanted, other);
    const truncated =
      Math.min(wanted.length, other.length) >= 4 && (other.startsWith(wanted) || wanted.startsWith(other));
    if ((distance <= limit || truncated) && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}
