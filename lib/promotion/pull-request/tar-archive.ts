// A commit's tree from a host's gzipped tar archive (GitHub's tarball, GitLab's archive.tar.gz), streamed: entries
// are read one at a time and only those asked for are kept, so memory stays bounded by the largest file kept, not by
// the repository. The archive's own bytes are counted as they arrive, and one over the cap ends the read with an
// error naming the cap, rather than a host's whole monorepo downloaded into a function.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar-stream';
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

/**
 * Reads a gzipped tar archive. `stripTopDirectory`: the host puts the tree under one directory of its own naming
 * (`owner-repo-sha/`), which is left out of each path.
 */
export async function readTarGz(
  body: ReadableStream<Uint8Array> | NodeJS.ReadableStream,
  what: string,
  options: ArchiveReadOptions & { stripTopDirectory: boolean },
): Promise<void> {
  const source = body instanceof ReadableStream ? Readable.fromWeb(body as WebReadableStream) : body;
  let received = 0;
  let tooLarge: ArchiveTooLargeError | undefined;
  const counted = async function* (chunks: AsyncIterable<Buffer | string>) {
    for await (const chunk of chunks) {
      received += chunk.length;
      if (received > options.maxArchiveBytes)
        throw (tooLarge = new ArchiveTooLargeError(what, options.maxArchiveBytes));
      yield chunk;
    }
  };
  const extract = tar.extract();
  const entries = (async () => {
    // A failure here stops the download too, rather than leaving it stalled on a reader that went away.
    try {
      await keepWanted(extract, options);
    } catch (error) {
      extract.destroy(error as Error);
      throw error;
    }
  })();
  try {
    await Promise.all([pipeline(source, counted, createGunzip(), extract), entries]);
  } catch (error) {
    // The cap ends the stream, and the reader sees only a premature end: say why.
    throw tooLarge ?? error;
  }
}

/** Hands on each wanted regular file; every other entry (directories, links, pax headers, the rest) is drained. */
async function keepWanted(
  extract: tar.Extract,
  options: ArchiveReadOptions & { stripTopDirectory: boolean },
): Promise<void> {
  for await (const entry of extract) {
    const { type, name, size } = entry.header;
    const path = options.stripTopDirectory ? name.slice(name.indexOf('/') + 1) : name;
    const kept = type === 'file' && path !== '' && (size ?? 0) <= options.maxFileBytes && options.wants(path);
    if (!kept) {
      entry.resume();
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    options.onFile({ path, content: Buffer.concat(chunks) });
  }
}
