// The archives the fake Git hosts serve: a gzipped ustar of a commit's files, as GitHub's tarball and GitLab's
// archive.tar.gz are, under one top directory of the host's naming, with a pax `path` record for a path longer than
// ustar holds and GitHub's global pax header naming the commit; and the zip Azure DevOps streams of a commit's items.
// Written in one go: a route answers synchronously.
import { gzipSync } from 'node:zlib';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';

const BLOCK = 512;

/** The files of a commit whose mode is a regular file's, by path, as an archive holds them. */
export function regularFiles(
  entries: Iterable<[string, { mode: string; sha: string }]>,
  blob: (sha: string) => Buffer | undefined,
): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [path, entry] of entries) {
    const content = entry.mode === '100644' || entry.mode === '100755' ? blob(entry.sha) : undefined;
    if (content) files.set(path, content);
  }
  return files;
}

/** The gzipped archive of `files` (path → content), each under `top/` (at the root when `top` is empty). */
export function tarGz(top: string, files: ReadonlyMap<string, Buffer>, comment?: string): Buffer {
  const blocks: Buffer[] = [];
  const prefix = top === '' ? '' : `${top}/`;
  if (comment !== undefined) blocks.push(...paxEntry('pax_global_header', 'g', 'comment', comment));
  if (prefix !== '') blocks.push(header(prefix, 0, '5'));
  for (const [path, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const name = `${prefix}${path}`;
    if (Buffer.byteLength(name) > 100) blocks.push(...paxEntry(`${prefix}PaxHeader`, 'x', 'path', name));
    blocks.push(header(name.slice(0, 100), content.length, '0'), padded(content));
  }
  blocks.push(Buffer.alloc(2 * BLOCK));
  return gzipSync(Buffer.concat(blocks));
}

/**
 * The zip of `files` (path → content), each deflated at the root and its folders as entries of their own (`dir/`),
 * written as a streaming server writes it: sizes and checksums after each file's data (data descriptors). A path in
 * `otherMethods` is written as it is but marked with that compression method instead (e.g. 14, LZMA), as an archiver
 * that compresses some entries by a method the reader has no decoder for would write it.
 */
export function zipArchive(
  files: ReadonlyMap<string, Buffer>,
  otherMethods: ReadonlyMap<string, number> = new Map(),
): Buffer {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const entries = new Map(files);
  for (const path of files.keys()) {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      entries.set(path.slice(0, slash + 1), Buffer.alloc(0));
    }
  }
  for (const [path, content] of [...entries].sort(([a], [b]) => a.localeCompare(b))) {
    const method = otherMethods.get(path);
    const entry =
      method === undefined ? new ZipDeflate(path) : Object.assign(new ZipPassThrough(path), { compression: method });
    zip.add(entry);
    entry.push(content, true);
  }
  zip.end();
  return Buffer.concat(chunks);
}

function paxEntry(name: string, type: 'g' | 'x', key: string, value: string): Buffer[] {
  const body = Buffer.from(paxRecord(key, value));
  return [header(name, body.length, type), padded(body)];
}

/** `<length> <key>=<value>\n`, where the length counts itself. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest) + 1;
  while (String(length).length + Buffer.byteLength(rest) !== length) length += 1;
  return `${length}${rest}`;
}

function header(name: string, size: number, type: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(type === '5' ? 0o755 : 0o644, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(0, 12), 136);
  block.write(' '.repeat(8), 148);
  block.write(type, 156);
  block.write('ustar\u000000', 257);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7), 148);
  return block;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\u0000`;
}

function padded(content: Buffer): Buffer {
  const rest = content.length % BLOCK;
  return rest === 0 ? content : Buffer.concat([content, Buffer.alloc(BLOCK - rest)]);
}
