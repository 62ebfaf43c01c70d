// The revision an environment runs, and since when: what the fleet page's rows and the pipeline page's tiles show of
// each environment, computed from its targets' statuses as `status -o json` lists them.

/** What this needs of a target: the revision it reports (null before a first read) and when its status changed. */
export interface TargetRevision {
  revision: string | null;
  changedAt: string | null;
}

export interface RunningRevision {
  /** The revision all targets run, or the one most of them run. */
  revision: string;
  /** How many targets run it, of how many: mixed when `running < total`. */
  running: number;
  total: number;
  /** ISO 8601: when the last of those targets reached it (its status's `changedAt`); undefined when none says. */
  since: string | undefined;
}

/**
 * The revision an environment's targets run: the one all run, else the one most run (on a tie, the one a target
 * reached last, then the first in the pipeline's order). A target counts with the revision it reports, whatever its
 * phase. Undefined when no target reports one.
 */
export function runningRevision(targets: readonly TargetRevision[]): RunningRevision | undefined {
  const byRevision = new Map<string, { running: number; since: string | undefined }>();
  for (const { revision, changedAt } of targets) {
    if (revision === null) continue;
    const seen = byRevision.get(revision) ?? { running: 0, since: undefined };
    byRevision.set(revision, { running: seen.running + 1, since: later(seen.since, changedAt ?? undefined) });
  }
  let best: RunningRevision | undefined;
  for (const [revision, { running, since }] of byRevision) {
    const more = best === undefined || running > best.running;
    const tiedButLater = best !== undefined && running === best.running && later(best.since, since) !== best.since;
    if (more || tiedButLater) best = { revision, running, total: targets.length, since };
  }
  return best;
}

/** `6.9.2`, `6.9.2 (2 of 3)` when the targets are mixed, `-` when none reports a revision. */
export function runningRevisionText(running: RunningRevision | undefined): string {
  if (running === undefined) return '-';
  return running.running < running.total
    ? `${running.revision} (${running.running} of ${running.total})`
    : running.revision;
}

/** The later of two ISO times; an unreadable or missing one loses. */
function later(a: string | undefined, b: string | undefined): string | undefined {
  const time = (iso: string | undefined) => (iso === undefined ? NaN : Date.parse(iso));
  if (Number.isNaN(time(b))) return Number.isNaN(time(a)) ? undefined : a;
  return Number.isNaN(time(a)) || time(b) > time(a) ? b : a;
}
