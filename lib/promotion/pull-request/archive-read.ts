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
  /**
   * The most bytes the archive expands to, every entry counted, kept or skipped; past it the read fails naming the
   * cap. A few MiB of gzip or deflate can expand a thousandfold: without this a repository could hold a promotion
   * or a sync until its function's timeout, inflating what nobody reads.
   */
  maxExpandedBytes: number;
}

/**
 * The defaults: files up to 1 MiB (the marker cache keeps no larger text), archives up to 512 MiB compressed and
 * 2 GiB expanded.
 */
export const DEFAULT_ARCHIVE_LIMITS = {
  maxFileBytes: 1024 * 1024,
  maxArchiveBytes: 512 * 1024 * 1024,
  maxExpandedBytes: 2048 * 1024 * 1024,
};

/** The caps of an archive as a whole, which a listing of it keeps too. */
export type ArchiveCaps = Pick<ArchiveReadOptions, 'maxArchiveBytes' | 'maxExpandedBytes'>;

/** Every limit of an archive read: the caps and the largest file kept. */
export type ArchiveLimits = ArchiveCaps & Pick<ArchiveReadOptions, 'maxFileBytes'>;

/** Which of an archive's sizes went over its cap: its own bytes, or what they expand to. */
export type ArchiveMeasure = 'compressed' | 'expanded';

export class ArchiveTooLargeError extends PromotionError {
  constructor(
    what: string,
    readonly measure: ArchiveMeasure,
    /** The cap it went over, in bytes. */
    readonly maxBytes: number,
  ) {
    super(
      'Unsupported',
      measure === 'compressed'
        ? `the archive of ${what} is over ${mebibytes(maxBytes)} MiB, the most a marker scan reads in one request`
        : `the archive of ${what} expands to over ${mebibytes(maxBytes)} MiB, the most a marker scan unpacks from ` +
            'one request',
    );
  }
}

/** A cap in whole MiB, as the errors name it. */
export function mebibytes(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

/** The host gives no archive of a commit: the scan reads file by file, as it always did there. */
export class ArchiveUnsupportedError extends Error {
  override name = 'ArchiveUnsupportedError';
  constructor() {
    super('this Git host gives no archive of a commit');
  }
}
