// A commit's tree from a host's archive of it, streamed: a gzipped tar (GitHub's tarball, GitLab's archive.tar.gz,
// Bitbucket Server's archive?format=tgz) or a zip (Azure DevOps' items). Entries are read one at a time and only
// those asked for are kept, so memory stays bounded by the largest file kept, not by the repository. The archive's
// own bytes are counted as they arrive, and so are the bytes they expand to: either over its cap ends the read with an
// error naming the cap, rather than a host's whole monorepo downloaded into a function or a small archive of
// repeated bytes inflated until the function's timeout. Both formats keep a file by the same rule (keptFile).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Unzip, UnzipInflate, type UnzipDecoder, type UnzipDecoderConstructor, type UnzipFile } from 'fflate';
import * as tar from 'tar-stream';
import type { ArchiveCaps, ArchiveMeasure, ArchiveReadOptions } from './archive-read.js';
import { ArchiveTooLargeError } from './archive-read.js';

/** A zip entry's method: stored as it is. */
const STORED = 0;

type ArchiveBody = ReadableStream<Uint8Array> | NodeJS.ReadableStream;

/**
 * Reads a gzipped tar archive. `stripTopDirectory`: the host puts the tree under one directory of its own naming
 * (`owner-repo-sha/`), which is left out of each path.
 */
export async function readTarGz(
  body: ArchiveBody,
  what: string,
  options: ArchiveReadOptions & { stripTopDirectory: boolean },
): Promise<void> {
  await eachTarFile(body, what, options, async (content, size, path) => {
    if (!keptFile(options, path, size)) return false;
    const kept = new KeptContent(options.maxFileBytes);
    for await (const chunk of content) kept.add(chunk as Buffer);
    const whole = kept.content();
    if (whole) options.onFile({ path, content: whole });
    return true;
  });
}

/**
 * Lists a gzipped tar archive: every regular file's path and git blob id (`sha1("blob <size>\0…")`, hashed as the
 * content streams past, so a file of any size costs no memory), for a host whose own listing costs a request per
 * directory or page. Links and other entries are not files of the listing.
 */
export async function listTarGz(
  body: ArchiveBody,
  what: string,
  options: ArchiveCaps & { stripTopDirectory: boolean },
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  await eachTarFile(body, what, options, async (content, size, path) => {
    const hash = createHash('sha1').update(`blob ${size}\0`);
    for await (const chunk of content) hash.update(chunk as Buffer);
    files.set(path, hash.digest('hex'));
    return true;
  });
  return files;
}

/**
 * Streams a gzipped tar through `read`, one regular file at a time (every other entry is drained: directories,
 * links, pax headers); `read` says whether it consumed the entry, else it is drained too.
 */
async function eachTarFile(
  body: ArchiveBody,
  what: string,
  options: ArchiveCaps & { stripTopDirectory: boolean },
  read: (content: AsyncIterable<unknown>, size: number, path: string) => Promise<boolean>,
): Promise<void> {
  const counted = new CountedBytes(what, 'compressed', options.maxArchiveBytes);
  const expanded = new CountedBytes(what, 'expanded', options.maxExpandedBytes);
  const extract = tar.extract();
  const entries = (async () => {
    // A failure here stops the download too, rather than leaving it stalled on a reader that went away.
    try {
      for await (const entry of extract) {
        const { type, name, size } = entry.header;
        const path = options.stripTopDirectory ? name.slice(name.indexOf('/') + 1) : name;
        if (type !== 'file' || path === '' || !(await read(entry, size ?? 0, path))) entry.resume();
      }
    } catch (error) {
      extract.destroy(error as Error);
      throw error;
    }
  })();
  try {
    await Promise.all([
      pipeline(nodeStream(body), counted.through, createGunzip(), expanded.through, extract),
      entries,
    ]);
  } catch (error) {
    // A cap ends the stream, and the reader sees only a premature end: say why.
    throw counted.tooLarge ?? expanded.tooLarge ?? error;
  }
}

/**
 * Reads a zip archive as it streams in (fflate's Unzip: local headers, data descriptors for sizes a streaming server
 * only knows at the end). Paths are the entries' names without a leading `/`; folder entries (`dir/`) are skipped.
 */
export async function readZip(body: ArchiveBody, what: string, options: ArchiveReadOptions): Promise<void> {
  const counted = new CountedBytes(what, 'compressed', options.maxArchiveBytes);
  const entries = new ZipEntries(options, new CountedBytes(what, 'expanded', options.maxExpandedBytes));
  try {
    for await (const chunk of counted.through(nodeStream(body))) {
      entries.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    }
    entries.push(new Uint8Array(0), true);
  } catch (error) {
    throw counted.tooLarge ?? error;
  }
}

function nodeStream(body: ArchiveBody): NodeJS.ReadableStream {
  return body instanceof ReadableStream ? Readable.fromWeb(body as WebReadableStream) : body;
}

/** An archive's bytes (compressed, or expanded) as they pass, failing past the cap. */
class CountedBytes {
  tooLarge: ArchiveTooLargeError | undefined;
  private received = 0;

  constructor(
    private readonly what: string,
    private readonly measure: ArchiveMeasure,
    private readonly maxBytes: number,
  ) {}

  /** The chunks as they pass, counted; an arrow, for pipeline calls it without `this`. */
  readonly through = (chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> => this.count(chunks);

  /** Counts `bytes` more; throws ArchiveTooLargeError once over the cap. */
  add(bytes: number): void {
    this.received += bytes;
    if (this.received > this.maxBytes) {
      throw (this.tooLarge = new ArchiveTooLargeError(this.what, this.measure, this.maxBytes));
    }
  }

  private async *count(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
    for await (const chunk of chunks) {
      this.add(chunk.length);
      yield chunk;
    }
  }
}

/**
 * The one rule for which entries are kept, in either format: a regular file (the caller says), with a path, that the
 * scan wants, no larger than `maxFileBytes`. `size` is undefined where the archive tells it only after the content
 * (a zip's data descriptor): the content is then counted as it comes (KeptContent).
 */
function keptFile(options: ArchiveReadOptions, path: string, size: number | undefined): boolean {
  return path !== '' && (size === undefined || size <= options.maxFileBytes) && options.wants(path);
}

/** A kept file's content as it comes, dropped once over `maxFileBytes` (the file is then read on its own). */
class KeptContent {
  private chunks: Buffer[] | undefined = [];
  private bytes = 0;

  constructor(private readonly maxFileBytes: number) {}

  add(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxFileBytes) this.chunks = undefined;
    else this.chunks?.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }

  /** The whole content, or undefined when it was over the limit. */
  content(): Buffer | undefined {
    return this.chunks && Buffer.concat(this.chunks);
  }
}

/**
 * A zip's entries as fflate's Unzip finds them. Every entry is started, the unwanted ones into nothing: an entry never
 * started stays in the Unzip's memory until the end, and so would one in a compression fflate cannot undo (neither
 * deflate nor stored), which is started into a decoder that drops its bytes. Each entry's expanded bytes are counted,
 * and a wanted one is handed on when its content is complete; one whose data fails to inflate, or that fflate cannot
 * undo, is skipped (a wanted one is read on its own).
 */
class ZipEntries {
  private readonly unzip = new Unzip((file) => this.start(file));
  /**
   * What an entry's handler threw (the expanded cap, or `onFile`'s own error). fflate hands a throw in the handler of
   * a deflated entry back to the same handler as the entry's error (UnzipInflate.push), where it would be lost: it is
   * kept here instead, and thrown once fflate's push has returned.
   */
  private thrown: { error: unknown } | undefined;

  constructor(
    private readonly options: ArchiveReadOptions,
    private readonly expanded: CountedBytes,
  ) {
    this.unzip.register(UnzipInflate);
  }

  /** Hands fflate the archive's next bytes; throws what an entry's handler threw meanwhile. */
  push(chunk: Uint8Array, final = false): void {
    this.unzip.push(chunk, final);
    if (this.thrown) throw this.thrown.error;
  }

  private start(file: UnzipFile): void {
    if (file.compression !== STORED && file.compression !== UnzipInflate.compression) {
      this.unzip.register(droppingDecoder(file.compression));
      file.ondata = () => undefined;
      file.start();
      return;
    }
    const path = file.name.replace(/^\/+/, '');
    const wanted = !path.endsWith('/') && keptFile(this.options, path, file.originalSize);
    const kept = wanted ? new KeptContent(this.options.maxFileBytes) : undefined;
    file.ondata = (error, chunk, final) => {
      if (error || this.thrown) return;
      try {
        this.expanded.add(chunk.length);
        if (!kept) return;
        kept.add(chunk);
        const content = final ? kept.content() : undefined;
        if (content) this.options.onFile({ path, content });
      } catch (thrown) {
        this.thrown = { error: thrown };
      }
    };
    file.start();
  }
}

const droppingDecoders = new Map<number, UnzipDecoderConstructor>();

/** A decoder for entries in `compression` that takes their bytes and drops them, handing on nothing; one a method. */
function droppingDecoder(compression: number): UnzipDecoderConstructor {
  let decoder = droppingDecoders.get(compression);
  if (!decoder) {
    decoder = class DroppingDecoder implements UnzipDecoder {
      static readonly compression = compression;
      ondata: UnzipDecoder['ondata'] = () => undefined;
      push(): void {}
    };
    droppingDecoders.set(compression, decoder);
  }
  return decoder;
}
