// Reading a YAML stream for the marker code (markers.ts) in time proportional to its length, in slices that a caller
// on the event loop can interleave with other work.
//
// `yaml`'s parseAllDocuments checks that mapping keys are unique by comparing each key with every earlier key of its
// mapping: a mapping of 40 000 keys takes seconds, and the marker code reads a file several times. Here the composer
// runs without that check and the same rule is applied afterwards with one lookup per key (keys are equal when they
// are the same node, or scalars with `===` values; a NaN key equals none), so a text is valid here exactly when
// parseAllDocuments reports no error for it.
//
// The work yields every few thousand lexical tokens and after each document, so `runSliced` can return to the event
// loop while a large file is read (a `serve` process receives events on the same thread that promotes). Composing one
// document is one step: a file that is a single large document still holds the thread for that long.
import { Composer, isNode, isPair, isScalar, Lexer, Parser, visit, type CST, type Document, type Scalar } from 'yaml';

/** Work done in steps: each `yield` is a point where the caller may pause it. */
export type Work<T> = Generator<void, T, void>;

export type YamlVersion = '1.1' | '1.2';

/** An error-free YAML stream: its documents, and its concrete syntax tree (one token per document, directive, …). */
export interface ParsedStream {
  docs: Document.Parsed[];
  tokens: CST.Token[];
}

/** Lexical tokens parsed between two points where the work may pause. */
const LEXEMES_PER_STEP = 2048;

/** The stream parsed with `version`'s schema; undefined when it is empty or any document has an error. */
export function* parseStream(text: string, version: YamlVersion): Work<ParsedStream | undefined> {
  const docs: Document.Parsed[] = [];
  const tokens: CST.Token[] = [];
  const valid = yield* eachDocument(
    text,
    version,
    (doc) => docs.push(doc),
    (token) => tokens.push(token),
  );
  return valid ? { docs, tokens } : undefined;
}

/**
 * The scalars starting at `offsets` when the stream is parsed with `version`'s schema; undefined when it is empty or
 * any document has an error. Nothing else of the parse is kept.
 */
export function* readScalars(
  text: string,
  version: YamlVersion,
  offsets: ReadonlySet<number>,
): Work<Map<number, Scalar> | undefined> {
  const scalars = new Map<number, Scalar>();
  const valid = yield* eachDocument(text, version, (doc) => collectScalars(doc, offsets, scalars));
  return valid ? scalars : undefined;
}

/** The scalars of the documents that start at `offsets`. */
export function* scalarsAt(docs: readonly Document.Parsed[], offsets: ReadonlySet<number>): Work<Map<number, Scalar>> {
  const scalars = new Map<number, Scalar>();
  for (const doc of docs) {
    collectScalars(doc, offsets, scalars);
    yield;
  }
  return scalars;
}

/**
 * Where the stream has errors under `version`'s schema: the first offset of each (a duplicate key's own offset).
 * Empty when it has none.
 */
export function* errorOffsets(text: string, version: YamlVersion): Work<number[]> {
  const offsets: number[] = [];
  yield* eachDocument(
    text,
    version,
    () => undefined,
    undefined,
    (errors) => offsets.push(...errors),
  );
  return offsets;
}

/**
 * Hands each document to `onDoc` as it is composed (and each top-level syntax token to `onToken`); false when the
 * stream is empty or a document has an error. A document with errors ends the work, unless `onErrors` takes their
 * offsets.
 */
function* eachDocument(
  text: string,
  version: YamlVersion,
  onDoc: (doc: Document.Parsed) => void,
  onToken?: (token: CST.Token) => void,
  onErrors?: (offsets: number[]) => void,
): Work<boolean> {
  const parser = new Parser();
  const composer = new Composer({ version, keepSourceTokens: true, uniqueKeys: false });
  let documents = 0;
  let valid = true;
  const take = function* (docs: Iterable<Document.Parsed>): Work<boolean> {
    for (const doc of docs) {
      const errors = errorsOf(doc);
      if (errors.length > 0) {
        valid = false;
        if (!onErrors) return false;
        onErrors(errors);
      } else {
        onDoc(doc);
      }
      documents++;
      yield;
    }
    return true;
  };
  // What Parser.parse does, one lexical token at a time, so that the work can pause inside a long document.
  let lexemes = 0;
  const lexer = new Lexer();
  for (const lexeme of lexer.lex(text)) {
    for (const token of parser.next(lexeme)) {
      onToken?.(token);
      if (!(yield* take(composer.next(token)))) return false;
    }
    if (++lexemes % LEXEMES_PER_STEP === 0) yield;
  }
  for (const token of parser.end()) {
    onToken?.(token);
    if (!(yield* take(composer.next(token)))) return false;
  }
  return (yield* take(composer.end(false, text.length))) && valid && documents > 0;
}

/** Runs the work to its end at once. */
export function runNow<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Runs the work in slices of about `sliceMs` of the thread, returning to the event loop between slices. */
export async function runSliced<T>(work: Work<T>, sliceMs = 20): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** The first offsets of the document's errors, a second equal key of a mapping among them. */
function errorsOf(doc: Document.Parsed): number[] {
  const errors = doc.errors.map((error) => error.pos[0]);
  const duplicate = duplicateKey(doc);
  if (duplicate !== undefined) errors.push(duplicate);
  return errors;
}

/**
 * Where the first key equal to an earlier key of its mapping starts, as `yaml`'s `uniqueKeys: true` would report it
 * (-1 for a key without a position).
 */
function duplicateKey(doc: Document.Parsed): number | undefined {
  let duplicate: number | undefined;
  visit(doc, {
    Map(_key, map) {
      const keys = new Set<unknown>();
      for (const pair of map.items) {
        const key: unknown = isPair(pair) ? pair.key : undefined;
        const id = isScalar(key) ? key.value : key;
        if (typeof id === 'number' && Number.isNaN(id)) continue;
        if (keys.has(id)) {
          duplicate = isNode(key) ? (key.range?.[0] ?? -1) : -1;
          return visit.BREAK;
        }
        keys.add(id);
      }
      return undefined;
    },
  });
  return duplicate;
}

function collectScalars(doc: Document.Parsed, offsets: ReadonlySet<number>, into: Map<number, Scalar>): void {
  visit(doc, {
    Scalar(_key, node) {
      const offset = node.srcToken?.offset;
      if (offset !== undefined && offsets.has(offset) && !into.has(offset)) into.set(offset, node);
    },
  });
}
