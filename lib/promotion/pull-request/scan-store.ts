// Where the marker scan's facts outlive the process: blob id → the distinct `$promotion` markers in that blob (empty
// for most). A blob id names its content, so a fact never goes stale; a promoter in a new Lambda container (or a
// restarted `serve`) loads them once per repository and reads only the blobs it has never seen. No file text is kept:
// the few blobs with markers are read again when a promotion needs their text.
//
// The facts depend on how markers are parsed (`markersIn`): MARKER_SCAN_FORMAT is part of every stored key, so a
// change of parsing is published with a new format and the old facts are simply not found.

/** Bump when `markersIn` would give other markers for the same text. */
export const MARKER_SCAN_FORMAT = 2; // 2: head comments, `##`, block and empty values are markers too

/** Blob id → the distinct markers in it, oldest first (the order says which facts to drop first when full). */
export type MarkerFacts = ReadonlyMap<string, readonly string[]>;

export interface MarkerScanStore {
  /** The facts stored for a repository (empty when none); rejects on a failed or unreadable load. */
  load(repositoryKey: string): Promise<Map<string, readonly string[]>>;
  /**
   * Replaces the repository's facts with these (the caller merges them with what it loaded; the most recently seen
   * blobs last). A store with a size limit keeps the newest that fit.
   */
  save(repositoryKey: string, facts: MarkerFacts): Promise<void>;
}

/** Keeps facts in memory, for tests: what a second process would find in the table. */
export class InMemoryMarkerScanStore implements MarkerScanStore {
  private readonly repositories = new Map<string, Map<string, readonly string[]>>();
  loads = 0;
  saves = 0;

  load(repositoryKey: string): Promise<Map<string, readonly string[]>> {
    this.loads++;
    return Promise.resolve(new Map(this.repositories.get(repositoryKey)));
  }

  save(repositoryKey: string, facts: MarkerFacts): Promise<void> {
    this.saves++;
    this.repositories.set(repositoryKey, new Map(facts));
    return Promise.resolve();
  }
}
