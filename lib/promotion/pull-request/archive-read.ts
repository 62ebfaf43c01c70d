// What a read of a commit's archive is asked (the files wanted, the limits) and how it fails, apart from the readers
// (archive.ts): the deferred hosts and the ConfigSource reader name these at a cold start, and the readers bring the
// tar and zip libraries, which are loaded with a host's client, on its first use.
import { PromotionError } from '../port.js';

/** One regular file of the archive, its path relative to the repository's root. */
export interface ArchiveFile {
  path: string;
  content: Buffer;
}

export interface ArchiveReadOptions {
  /** Whether to keep the file at `path`; every other entry is skipped unread. */
  wants(path: string): boolean;
  onFile(file: ArchiveFile): void;
  /** A wanted file larger than this is skipped too (it is read on its own, as without an archive). */
  maxFileBytes: number;
  /** The most compressed bytes read; past it the read fails naming the cap. */
  maxArchiveBytes: number;
}

/** The defaults: files up to 1 MiB (the marker cache keeps no larger text), archives up to 512 MiB compressed. */
export const DEFAULT_ARCHIVE_LIMITS = { maxFileBytes: 1024 * 1024, maxArchiveBytes: 512 * 1024 * 1024 };

export class ArchiveTooLargeError extends PromotionError {
  constructor(what: string, maxArchiveBytes: number) {
    super(
      'Unsupported',
      `the archive of ${what} is over ${Math.round(maxArchiveBytes / 1024 / 1024)} MiB, the most a marker scan reads ` +
        'in one request',
    );
  }
}

/** The host gives no archive of a commit: the scan reads file by file, as it always did there. */
export class ArchiveUnsupportedError extends Error {
  override name = 'ArchiveUnsupportedError';
  constructor() {
    super('this Git host gives no archive of a commit');
  }
}
