// What the marker scan learnt about each blob, by repository and blob id. A blob id names its content, so an entry
// never goes stale: a warm process re-reads only the blobs that changed since its last promotion of the repository.
// Blobs without markers keep only the fact; blobs with markers (the few manifests a promotion edits) keep their text
// too, so promoting the same base again reads nothing. Facts loaded from a MarkerScanStore come without text: a blob
// with the promotion's marker is read again for its text, every other known blob is not.

export interface ScannedBlob {
  /** The distinct `$promotion` markers in the blob (`markersIn`); empty for most files. */
  readonly markers: readonly string[];
  /** The blob's text, kept only when it holds markers. */
  readonly text?: string;
}

export interface MarkerCacheLimits {
  /** Blobs remembered per repository; the oldest go first. Default 100 000. */
  maxBlobsPerRepository?: number;
  /** Repositories remembered; the least recently used go first. Default 100. */
  maxRepositories?: number;
  /** Texts longer than this are not kept (the markers still are). Default 1 MiB. */
  maxTextLength?: number;
}

export class MarkerCache {
  private readonly repositories = new Map<string, Map<string, ScannedBlob>>();
  private readonly maxBlobs: number;
  private readonly maxRepositories: number;
  private readonly maxTextLength: number;

  constructor(limits: MarkerCacheLimits = {}) {
    this.maxBlobs = limits.maxBlobsPerRepository ?? 100_000;
    this.maxRepositories = limits.maxRepositories ?? 100;
    this.maxTextLength = limits.maxTextLength ?? 1024 * 1024;
  }

  get(repository: string, blobSha: string): ScannedBlob | undefined {
    return this.repositories.get(repository)?.get(blobSha);
  }

  set(repository: string, blobSha: string, markers: readonly string[], text: string): ScannedBlob {
    const keepText = markers.length > 0 && text.length <= this.maxTextLength;
    const entry: ScannedBlob = keepText ? { markers, text } : { markers };
    this.put(repository, blobSha, entry);
    return entry;
  }

  /** Adds a fact learnt elsewhere (markers, no text); what this process already knows about the blob is kept. */
  remember(repository: string, blobSha: string, markers: readonly string[]): void {
    if (this.get(repository, blobSha) === undefined) this.put(repository, blobSha, { markers });
  }

  /** What is known about a repository's blobs, oldest first. */
  entries(repository: string): IterableIterator<[string, ScannedBlob]> {
    return (this.repositories.get(repository) ?? new Map<string, ScannedBlob>()).entries();
  }

  private put(repository: string, blobSha: string, entry: ScannedBlob): void {
    let blobs = this.repositories.get(repository);
    if (blobs) {
      this.repositories.delete(repository); // re-inserted below: most recently used last
    } else {
      blobs = new Map();
    }
    this.repositories.set(repository, blobs);
    while (this.repositories.size > this.maxRepositories) {
      const oldest = this.repositories.keys().next().value;
      if (oldest === undefined) break;
      this.repositories.delete(oldest);
    }
    blobs.set(blobSha, entry);
    while (blobs.size > this.maxBlobs) {
      const oldest = blobs.keys().next().value;
      if (oldest === undefined) break;
      blobs.delete(oldest);
    }
  }

  /** How many blobs are remembered for a repository. */
  size(repository: string): number {
    return this.repositories.get(repository)?.size ?? 0;
  }

  clear(): void {
    this.repositories.clear();
  }
}
