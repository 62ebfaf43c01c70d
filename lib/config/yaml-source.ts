// Reading configuration files: which files a path names, their YAML documents, and where a field sits in them.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import type { ConfigProblem } from './problems.js';

/** One YAML document of a file, with what it takes to point at a field in it. */
export interface SourceDocument {
  file: string;
  /** 0-based position of the document in its file. */
  index: number;
  /** The plain JavaScript value of the document. */
  value: unknown;
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

export async function readConfigFile(
  file: string,
): Promise<{ documents: SourceDocument[]; problems: ConfigProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { documents: [], problems: [{ file, message: `cannot read the file (${code ?? 'error'})` }] };
  }
  return parseConfigText(text, file);
}

/** Parses multi-document YAML text. Empty documents (a trailing `---`, comments only) are skipped. */
export function parseConfigText(
  text: string,
  file: string,
): { documents: SourceDocument[]; problems: ConfigProblem[] } {
  const lineCounter = new LineCounter();
  const documents: SourceDocument[] = [];
  const problems: ConfigProblem[] = [];
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  // parseAllDocuments returns an EmptyStream (no documents) for empty input, which is an array all the same.
  parsed.forEach((document, index) => {
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        const position = error.linePos?.[0];
        problems.push({
          file,
          line: position?.line,
          column: position?.col,
          document: `document ${index + 1}`,
          message: `invalid YAML: ${firstLine(error.message)}`,
        });
      }
      return;
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    // A comment-only document, or a bare `---`, holds nothing (kubectl skips them too).
    if (value === null || value === undefined) return;
    documents.push({
      file,
      index,
      value,
      locate: (path) => locate(document, lineCounter, path),
    });
  });
  return { documents, problems };
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
