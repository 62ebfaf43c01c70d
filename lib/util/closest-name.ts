// "Did you mean …?": the known name a mistyped one was most likely meant to be, by edit distance ignoring case. One
// home for every such hint: CDK context keys, unknown fields of a configuration document, references to clusters and
// Secrets that do not exist.

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
 * `editDistance(a, b)` when it is at most `limit`, otherwise `limit + 1`: only the cells within `limit` of the
 * diagonal are computed, and it stops at the first row with none within `limit`, so a long list of names that are
 * nothing alike is gone through quickly.
 */
export function editDistanceWithin(a: string, b: string, limit: number): number {
  const beyond = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return beyond;
  // Only cells within the band are read (the rest stand for `beyond`), so only those are ever written.
  let previous: number[] = [];
  let current: number[] = [];
  for (let j = 0; j <= Math.min(b.length, limit); j++) previous.push(j);
  previous.push(beyond);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    current[from - 1] = from === 1 && i <= limit ? i : beyond;
    let rowMin = current[from - 1] ?? beyond;
    for (let j = from; j <= to; j++) {
      const substitution = (previous[j - 1] ?? beyond) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const cell = Math.min((previous[j] ?? beyond) + 1, (current[j - 1] ?? beyond) + 1, substitution, beyond);
      current[j] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    if (to < b.length) current[to + 1] = beyond;
    if (rowMin > limit) return beyond;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length] ?? beyond, beyond);
}

export interface ClosestNameOptions {
  /**
   * The most edits (ignoring case) a typo may be. Unset: a third of the name's length, at least 1 and at most 3, and
   * a name cut short counts too (`logRetention` for `logRetentionDays`).
   */
  maxEdits?: number;
}

/**
 * The known name closest to `name`, when it is close enough to be a typo; undefined when nothing is. A name every
 * character of which would have to change is no typo of it (`ab` is not `id` misspelled), whatever `maxEdits` says.
 */
export function closestName(
  name: string,
  known: readonly string[],
  options: ClosestNameOptions = {},
): string | undefined {
  const wanted = name.toLowerCase();
  const limit = options.maxEdits ?? Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const other = candidate.toLowerCase();
    const distance =
      options.maxEdits === undefined ? editDistance(wanted, other) : editDistanceWithin(wanted, other, limit);
    const truncated =
      options.maxEdits === undefined &&
      Math.min(wanted.length, other.length) >= 4 &&
      (other.startsWith(wanted) || wanted.startsWith(other));
    const near = (distance <= limit && distance < Math.max(wanted.length, other.length, 1)) || truncated;
    if (near && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}
