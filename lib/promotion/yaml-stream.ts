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
import { Composer, isPair, isScalar, Lexer, Parser, visit, type CST, type Document, type Scalar } from 'yaml';

/** Work done in steps: each `yield` is a point where the caller may pause it. */
export type Work<T> = Generator<void, T, void>;

export type YamlVersion = '1.1' | '1.2';

/** An error-free YAML stream: its documents, and its concrete syntax tree (one token per document, directive, …). */
export interface ParsedStream {
  docs: Document.Parsed[];
  tokens: CST.Token[];
  /** The scalar whose source starts at `offset`, if any. */
  scalarAt(offset: number): Scalar | undefined;
}

/** Lexical tokens parsed between two points where the work may pause. */
const LEXEMES_PER_STEP = 2048;

/** The stream parsed with `version`'s schema; undefined when it is empty or any document has an error. */
export function* parseStream(text: string, version: YamlVersion): Work<ParsedStream | undefined> {
  const parser = new Parser();
  const composer = new Composer({ version, keepSourceTokens: true, uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  const tokens: CST.Token[] = [];
  const take = function* (token: CST.Token): Work<boolean> {
    tokens.push(token);
    for (const doc of composer.next(token)) {
      if (doc.errors.length > 0 || hasDuplicateKeys(doc)) return false;
      docs.push(doc);
      yield;
    }
    return true;
  };
  // What Parser.parse does, one lexical token at a time, so that the work can pause inside a long document.
  let count = 0;
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) if (!(yield* take(token))) return undefined;
    if (++count % LEXEMES_PER_STEP === 0) yield;
  }
  for (const token of parser.end()) if (!(yield* take(token))) return undefined;
  for (const doc of composer.end(false, text.length)) {
    if (doc.errors.length > 0 || hasDuplicateKeys(doc)) return undefined;
    docs.push(doc);
  }
  if (docs.length === 0) return undefined;
  let scalars: Map<number, Scalar> | undefined;
  return {
    docs,
    tokens,
    scalarAt(offset) {
      scalars ??= scalarsByOffset(docs);
      return scalars.get(offset);
    },
  };
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

/** Whether a mapping of the document has two equal keys, as `yaml`'s `uniqueKeys: true` would report them. */
function hasDuplicateKeys(doc: Document.Parsed): boolean {
  let duplicate = false;
  visit(doc, {
    Map(_key, map) {
      const keys = new Set<unknown>();
      for (const pair of map.items) {
        const key: unknown = isPair(pair) ? pair.key : undefined;
        const id = isScalar(key) ? key.value : key;
        if (typeof id === 'number' && Number.isNaN(id)) continue;
        if (keys.has(id)) {
          duplicate = true;
          return visit.BREAK;
        }
        keys.add(id);
      }
      return undefined;
    },
  });
  return duplicate;
}

function scalarsByOffset(docs: Document.Parsed[]): Map<number, Scalar> {
  const scalars = new Map<number, Scalar>();
  for (const doc of docs) {
    visit(doc, {
      Scalar(_key, node) {
        const offset = node.srcToken?.offset;
        if (offset !== undefined && !scalars.has(offset)) scalars.set(offset, node);
      },
    });
  }
  return scalars;
}
