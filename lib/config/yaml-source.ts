// Reading configuration files: which files a path names, their YAML documents, and where a field sits in them.
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Composer, isMap, isScalar, LineCounter, Parser, type Document, type Node } from 'yaml';
import { DEFAULT_NAMESPACE } from '../pipeline/model.js';
import { MAX_ALIAS_COUNT, MAX_DOCUMENTS_PER_FILE, MAX_EXPANDED_BYTES_PER_FILE, MAX_FILE_BYTES } from './limits.js';
import type { ConfigProblem } from './problems.js';
import { pathOf, type Place } from '../util/value-place.js';
import { errorMessage } from '../util/error-message.js';

/** One YAML document of a file, with what it takes to point at a field in it. */
export interface SourceDocument {
  file: string;
  /** 0-based position of the document in its file. */
  index: number;
  /** The plain JavaScript value of the document. */
  value: unknown;
  /** Paths of the `__proto__` keys in it, which cannot be kept as data: each is a problem. */
  reservedKeys: PropertyKey[][];
  /** Locates a field path (relative to the document root) as a line and column. */
  locate(path: readonly PropertyKey[]): { line: number; column: number } | undefined;
}

const YAML_FILE = /\.ya?ml$/i;

/**
 * The YAML files a path names: the file itself, or every `.yaml`/`.yml` file below a directory (recursively,
 * sorted, skipping hidden entries such as `.git`). Problems for paths that do not exist or hold no YAML.
 */
export async function findConfigFiles(path: string): Promise<{ files: string[]; problems: ConfigProblem[] }> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return { files: [], problems: [{ file: path, message: 'no such file or directory' }] };
  }
  if (info.isFile()) return { files: [path], problems: [] };
  const files: string[] = [];
  await walk(path, files);
  files.sort();
  if (files.length === 0) return { files, problems: [{ file: path, message: 'no .yaml or .yml files found' }] };
  return { files, problems: [] };
}

async function walk(directory: string, files: string[]): Promise<void> {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await walk(path, files);
    else if (entry.isFile() && YAML_FILE.test(entry.name)) files.push(path);
  }
}

/** Reads a file of at most MAX_FILE_BYTES: its size is checked before it is read, and no more than that is read. */
export async function readConfigFile(
  file: string,
): Promise<{ documents: SourceDocument[]; problems: ConfigProblem[] }> {
  let text: string;
  try {
    const read = await readAtMost(file, MAX_FILE_BYTES);
    if ('tooLarge' in read) return { documents: [], problems: [tooLarge(file, read.tooLarge)] };
    text = read.bytes.toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { documents: [], problems: [{ file, message: `cannot read the file (${code ?? 'error'})` }] };
  }
  return parseConfigText(text, file);
}

/** The file's bytes, or its size when that is over the limit (seen from a stat, or from reading past the limit). */
async function readAtMost(file: string, limit: number): Promise<{ bytes: Buffer } | { tooLarge: number }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limit) return { tooLarge: size };
    // The file may grow between the stat and the read: never read more than one byte past the limit.
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) return { tooLarge: Math.max(length, (await handle.stat()).size) };
    }
    return { bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

/** The problem of a file over MAX_FILE_BYTES, named by its path and size (also for a file refused unread). */
export function tooLarge(file: string, bytes: number): ConfigProblem {
  return {
    file,
    message:
      `the file holds ${mebibytes(bytes)}; a configuration file may hold at most ${mebibytes(MAX_FILE_BYTES, 0)}: ` +
      'split it into several files',
  };
}

/** Sizes as a person reads them: `4.0 MiB`, `1,024 MiB`. */
function mebibytes(bytes: number, decimals = 1): string {
  const value = bytes / (1024 * 1024);
  const digits = value >= 100 ? 0 : decimals;
  return `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} MiB`;
}

/**
 * Parses multi-document YAML text. Empty documents (a trailing `---`, comments only) are skipped. Documents are
 * composed one at a time, so a file with too many of them is refused after the first one too many, and nothing
 * here recurses per document.
 */
export function parseConfigText(
  text: string,
  file: string,
): { documents: SourceDocument[]; problems: ConfigProblem[] } {
  const documents: SourceDocument[] = [];
  const problems: ConfigProblem[] = [];
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_FILE_BYTES) return { documents, problems: [tooLarge(file, size)] };

  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer({ uniqueKeys: true });
  let expandedBytes = 0;
  let index = -1;
  for (const document of composer.compose(parser.parse(text))) {
    index += 1;
    const at = (offset: number | undefined) => {
      const position = offset === undefined ? undefined : lineCounter.linePos(offset);
      return { file, line: position?.line, column: position?.col, document: documentLabel(document, index) };
    };
    if (index === MAX_DOCUMENTS_PER_FILE) {
      const message =
        `the file holds more than ${MAX_DOCUMENTS_PER_FILE.toLocaleString('en-US')} YAML documents: ` +
        'split it into several files (a directory is read whole)';
      problems.push({ ...at(nodeOffset(document.contents) ?? document.range[0]), message });
      return { documents: [], problems };
    }
    if (document.errors.length > 0) {
      const errors = document.errors.map((error) => ({ at: error.pos[0], message: yamlError(error.message) }));
      // Where the parser ran out of stack, what it made of the rest of the file depends on where it did (how much
      // stack the process had left): that one problem says it all, and the file is read no further.
      const tooDeep = errors.find(({ message }) => message === TOO_DEEP);
      for (const error of tooDeep ? [tooDeep] : errors) {
        problems.push({ ...at(error.at), document: `document ${index + 1}`, message: error.message });
      }
      if (tooDeep) return { documents: [], problems };
      continue;
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      problems.push({ ...at(nodeOffset(document.contents)), message: toJsProblem(error) });
      continue;
    }
    // A comment-only document, or a bare `---`, holds nothing (kubectl skips them too).
    if (value === null || value === undefined) continue;
    const remaining = MAX_EXPANDED_BYTES_PER_FILE - expandedBytes;
    const walked = walkValue(value, remaining);
    expandedBytes += walked.bytes;
    if (walked.bytes > remaining) {
      const limit = mebibytes(MAX_EXPANDED_BYTES_PER_FILE, 0);
      const message =
        `with its YAML aliases expanded, the file holds more than ${limit}; a configuration file may expand to at ` +
        `most ${limit}: write the values out, or use fewer aliases`;
      problems.push({ ...at(nodeOffset(document.contents)), message });
      return { documents: [], problems };
    }
    documents.push({
      file,
      index,
      value,
      reservedKeys: walked.reservedKeys,
      locate: (path) => locate(document, lineCounter, path),
    });
  }
  return { documents, problems };
}

/** `Secret flux-system/x` when the document says so in its own nodes (its value may not be computable), else its position. */
function documentLabel(document: Document, index: number): string {
  const text = (path: string[]) => {
    const node: unknown = document.getIn(path, true);
    return isScalar(node) && typeof node.value === 'string' && node.value !== '' ? node.value : undefined;
  };
  const kind = text(['kind']);
  const name = text(['metadata', 'name']);
  if (!isMap(document.contents) || !kind || !name) return `document ${index + 1}`;
  return `${kind} ${text(['metadata', 'namespace']) ?? DEFAULT_NAMESPACE}/${name}`;
}

function toJsProblem(error: unknown): string {
  const message = errorMessage(error);
  if (/resource exhaustion/.test(message)) {
    return (
      `its YAML aliases expand to more than ${MAX_ALIAS_COUNT} copies (an alias bomb?): write the repeated values ` +
      'out, or use fewer aliases'
    );
  }
  return yamlError(message);
}

const TOO_DEEP = 'invalid YAML: nested too deeply to be read';

function yamlError(message: string): string {
  // The parser recurses per level of nesting, and says so in its own words.
  if (/Maximum call stack size exceeded/.test(message)) return TOO_DEEP;
  return `invalid YAML: ${firstLine(message)}`;
}

const MAX_RESERVED_KEYS_REPORTED = 100;

/**
 * The size of a value as JSON text (a bound, not a serialization), stopping once past `limit`, and where it holds a
 * `__proto__` key (which JavaScript objects and JSON tools do not keep as data). Iterative, so a deep value cannot
 * overflow the stack; an aliased node is counted each time it appears, as storing the value would.
 */
function walkValue(root: unknown, limit: number): { bytes: number; reservedKeys: PropertyKey[][] } {
  const reservedKeys: PropertyKey[][] = [];
  const stack: { value: unknown; place: Place | undefined }[] = [{ value: root, place: undefined }];
  let bytes = 0;
  for (let next = stack.pop(); next && bytes <= limit; next = stack.pop()) {
    const { value, place } = next;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (Array.isArray(value)) {
      bytes += 2 + value.length;
      value.forEach((item: unknown, key) => stack.push({ value: item, place: { key, parent: place } }));
    } else if (value !== null && typeof value === 'object') {
      bytes += 2;
      for (const [key, item] of Object.entries(value)) {
        bytes += key.length + 4;
        const child = { key, parent: place };
        if (key === '__proto__' && reservedKeys.length < MAX_RESERVED_KEYS_REPORTED) reservedKeys.push(pathOf(child));
        stack.push({ value: item as unknown, place: child });
      }
    } else bytes += 8;
  }
  return { bytes, reservedKeys };
}

/** The first line of a yaml error, without its own position (we report that separately) or a code excerpt. */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * Where a field is: its key when the field exists (so an unknown field points at its own name), else the nearest
 * ancestor that exists (a missing field points at the object that lacks it).
 */
function locate(
  document: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
): { line: number; column: number } | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const prefix = path.slice(0, depth);
    const offset = depth === 0 ? nodeOffset(document.contents) : fieldOffset(document, prefix);
    if (offset !== undefined) {
      const { line, col } = lineCounter.linePos(offset);
      return { line, column: col };
    }
  }
  return undefined;
}

function fieldOffset(document: Document, path: readonly PropertyKey[]): number | undefined {
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  const parent = parentPath.length === 0 ? document.contents : document.getIn(parentPath, true);
  if (isMap(parent)) {
    const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === last);
    if (pair) return nodeOffset(pair.key as Node);
    return undefined;
  }
  return nodeOffset(document.getIn(path, true) as Node | undefined);
}

function nodeOffset(node: Node | null | undefined): number | undefined {
  return node && typeof node === 'object' && 'range' in node && node.range ? node.range[0] : undefined;
}
