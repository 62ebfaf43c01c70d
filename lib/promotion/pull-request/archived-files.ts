// Files at a commit read from one archive of it (archive.ts) in place of one request per file: what the marker
// scan and a ConfigSource sync share. Each file is taken from the archive only when its content has the blob id the
// listing gave, so what either reads is what a file-by-file read would have given; anything else is left to that
// read. Only an archive over its cap is an error: a host that refuses archives, or one that fails, costs requests,
// not the promotion or the sync.
import type { Logger } from '../../logging/logger.js';
import { gitBlobId } from './git-blob-id.js';
import type { HostRepository, RepositoryFile } from './host.js';
import {
  ArchiveTooLargeError,
  ArchiveUnsupportedError,
  DEFAULT_ARCHIVE_LIMITS,
  type ArchiveLimits,
} from './archive-read.js';
import { errorMessage } from '../../util/error-message.js';

/**
 * More blobs to read than this and the archive is read instead (one request): below it, reading the few files costs
 * fewer requests and bytes than the whole tree.
 */
export const ARCHIVE_AFTER_READS = 16;

export interface ArchivedFilesOptions {
  /** The archive read's limits; DEFAULT_ARCHIVE_LIMITS where not given. */
  limits?: Partial<ArchiveLimits>;
  /**
   * Reading stops once the files kept hold more than this many bytes (each path counted): the caller finds the
   * answer over its own limit without the rest of the archive read.
   */
  maxKeptBytes?: number;
  /** The repository, as log entries name it. */
  repository: string;
  logger?: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'debug'>>;
}

/**
 * The UTF-8 texts of `files` at `commit` by blob id, from one archive of the commit where there are more than
 * ARCHIVE_AFTER_READS distinct blobs to read and the host gives archives; else empty. A file the archive does not
 * hold as listed (another blob id, over `maxFileBytes`, left out) is not in the answer, nor is any when the host
 * refuses the archive or reading it fails: the caller reads those on their own. An archive over its cap throws
 * ArchiveTooLargeError, naming the cap.
 */
export async function readFilesFromArchive(
  repository: HostRepository,
  commit: string,
  files: readonly RepositoryFile[],
  options: ArchivedFilesOptions,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const byPath = new Map(files.map((file) => [file.path, file]));
  if (new Set(files.map((file) => file.blobId)).size <= ARCHIVE_AFTER_READS || !repository.readArchive) return texts;
  let kept = 0;
  let stopped = false;
  const stop = new Error('the files kept hold more than the reader takes');
  try {
    await repository.readArchive(commit, {
      ...DEFAULT_ARCHIVE_LIMITS,
      ...options.limits,
      wants: (path) => byPath.has(path),
      onFile: ({ path, content }) => {
        const file = byPath.get(path);
        if (!file || gitBlobId(content) !== file.blobId) return;
        texts.set(file.blobId, content.toString('utf8'));
        kept += content.length;
        if (options.maxKeptBytes !== undefined && kept > options.maxKeptBytes) {
          stopped = true;
          throw stop;
        }
      },
    });
  } catch (error) {
    if (stopped) return texts;
    if (error instanceof ArchiveTooLargeError) throw error;
    if (error instanceof ArchiveUnsupportedError) return new Map();
    options.logger?.warn('cannot read the archive of the commit; reading file by file', {
      repository: options.repository,
      error: errorMessage(error),
    });
    return new Map();
  }
  options.logger?.debug?.('read the archive of the commit', {
    repository: options.repository,
    wanted: byPath.size,
    found: texts.size,
  });
  return texts;
}
