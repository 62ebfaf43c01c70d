// Readable stack traces for the Lambda bundles, paid for only when a trace is formatted. Node's
// `--enable-source-maps` reads and parses the source map of every module as it loads it, and measures each module's
// lines: for the verifier about 30 ms of CPU at every cold start (docs/benchmarks.md, "Cold start"), whether or not
// an error is ever logged. This hook maps a frame when an error's `stack` is first read: the map of a bundle file is
// read then (`<file>.map`, beside it, as esbuild links it), once per process, with Node's own SourceMap, and a frame
// is written as Node writes a mapped one (name from the map, the original file, line and column). A file without a
// map (Node's own, a test's TypeScript) keeps V8's frame. Each function's entry installs it first
// (functions/*/handler.ts).
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file's source map and the folder its `sources` are relative to; undefined when it has none. */
interface LoadedMap {
  map: SourceMap;
  directory: string;
}

const loaded = new Map<string, LoadedMap | undefined>();

function mapOf(fileName: string): LoadedMap | undefined {
  if (loaded.has(fileName)) return loaded.get(fileName);
  let found: LoadedMap | undefined;
  try {
    const file = fileName.startsWith('file:') ? fileURLToPath(fileName) : fileName;
    if (path.isAbsolute(file)) {
      const payload = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload;
      found = { map: new SourceMap(payload), directory: path.dirname(file) };
    }
  } catch {
    found = undefined; // no map beside the file, or not one Node can read: V8's frame stays
  }
  loaded.set(fileName, found);
  return found;
}

/** What `findEntry` answers for a position it maps; `name` is there since Node 20, beyond @types/node. */
interface Entry {
  originalSource?: string;
  originalLine?: number;
  originalColumn?: number;
  name?: string;
}

function entryAt(map: SourceMap, line: number | null, column: number | null): Entry {
  return line === null || column === null ? {} : map.findEntry(line - 1, column - 1);
}

/** A frame as V8 writes it (CallSite's own toString, which @types/node does not declare). */
function v8Frame(callSite: NodeJS.CallSite): string {
  return (callSite as NodeJS.CallSite & { toString(): string }).toString();
}

/** One frame as Node writes a mapped one (lib/internal/source_map/prepare_stack_trace.js), or V8's own. */
function frame(callSite: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string {
  const fileName = callSite.getFileName() ?? callSite.getEvalOrigin();
  const source = fileName === undefined ? undefined : mapOf(fileName);
  if (!source) return v8Frame(callSite);
  const at = entryAt(source.map, callSite.getLineNumber(), callSite.getColumnNumber());
  if (at.originalSource === undefined || at.originalLine === undefined || at.originalColumn === undefined) {
    return v8Frame(callSite);
  }
  // The minifier renamed functions: the map names the enclosing one, or failing that the caller's call of it.
  const name =
    entryAt(source.map, callSite.getEnclosingLineNumber(), callSite.getEnclosingColumnNumber()).name ??
    (caller && caller.getFileName() === fileName
      ? entryAt(source.map, caller.getLineNumber(), caller.getColumnNumber()).name
      : undefined);
  const typeName = callSite.getTypeName();
  const qualifier = typeName !== null && typeName !== 'global' ? `${typeName}.` : '';
  const functionName = name ?? callSite.getFunctionName() ?? callSite.getMethodName() ?? '<anonymous>';
  const prefix = callSite.isAsync() ? 'async ' : callSite.isConstructor() ? 'new ' : '';
  const file = path.resolve(source.directory, at.originalSource);
  return `${prefix}${qualifier}${functionName} (${file}:${at.originalLine + 1}:${at.originalColumn + 1})`;
}

/** A frame, mapped when it can be: a failure to map it (an unreadable map) leaves V8's frame, never no trace. */
function safeFrame(callSite: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string {
  try {
    return frame(callSite, caller);
  } catch {
    return v8Frame(callSite);
  }
}

function mappedStack(error: Error, callSites: NodeJS.CallSite[]): string {
  // Node's own errors carry their code in the first line (`TypeError [ERR_INVALID_ARG_TYPE]: …`), as Node writes it.
  const code = (error as { code?: unknown }).code;
  const header =
    typeof code === 'string' && code.startsWith('ERR_')
      ? `${error.name} [${code}]: ${error.message}`
      : Error.prototype.toString.call(error);
  return header + callSites.map((callSite, index) => `\n    at ${safeFrame(callSite, callSites[index + 1])}`).join('');
}

Error.prepareStackTrace = mappedStack;
