// dynalite's HTTP server on the data directory's LevelDB, with its store failures answered instead of thrown.
//
// When a LevelDB read or write fails (a damaged block found by a read, a disk error, the store closed under a
// request), dynalite throws the error from a callback (`if (err) throw err` in its request handler), which ends the
// whole process. Here every failure of the one store it makes reaches dynalite as an error that it answers (HTTP 500,
// DynamoDB's InternalServerError shape): that request fails, the caller's retry or the verifier's redelivery handles
// it, and `onFailure` is told, so it is logged and the store's record says it was found damaged. The store is
// caught as dynalite makes it, through its `db.create` (dynalite 4.0.0, pinned in package.json). This covers every
// operation the Store adapter uses; ListTables and ListTagsOfResource, which nothing here calls, read through a piped
// stream that drops errors on the way, and still could end the process.
//
// dynalite 4.0.0 reads a Query or a Scan through a stream over an abstract-level iterator, and when the stream is done
// it closes the iterator with `iterator.return()`, which abstract-level's iterators do not have (theirs is `close()`).
// So every Query or Scan left its iterator open, held by the database until it closed, with LevelDB's native iterator
// and snapshot behind it: a receiver answering events about apps no pipeline lists (one Query each) grew by about
// 1 KiB of heap and more of native memory per event, never released. Here each iterator gets a `return` that closes
// it, and the iterators open are counted (`openIterators`), so that a test can see none is left behind.
import type { Server } from 'node:http';
import type { Readable } from 'node:stream';
import { requireFromDynalite } from './dynalite-module.js';

type Callback = (error: Error | null | undefined, ...results: unknown[]) => void;

/** The part of dynalite's LevelDB wrapper that requests go through: callback methods and streams. */
interface DynaliteDatabase {
  keys(options?: unknown): LevelIterator;
  values(options?: unknown): LevelIterator;
  get(...args: unknown[]): unknown;
  put(...args: unknown[]): unknown;
  del(...args: unknown[]): unknown;
  batch(...args: unknown[]): unknown;
  createKeyStream(options?: unknown): Readable;
  createValueStream(options?: unknown): Readable;
}

/** An abstract-level iterator, as dynalite's streams use it. */
interface LevelIterator {
  close(): Promise<void>;
  return?: () => Promise<void>;
}

interface DynaliteStore {
  db: DynaliteDatabase;
}

interface DynaliteDbModule {
  create: (options: unknown) => DynaliteStore;
}

export interface DynaliteOptions {
  /** The LevelDB directory; absent, the store is held in memory and nothing is written. */
  path?: string;
  createTableMs: number;
  deleteTableMs: number;
  updateTableMs: number;
}

/** A failure dynalite answers: it sends `body` with `statusCode` for an error that has both. */
interface AnsweredError extends Error {
  statusCode: number;
  body: { __type: string; message: string };
}

export interface DynaliteServer {
  server: Server;
  /** The LevelDB iterators open now: one per Query or Scan being answered, none once every answer is done. */
  openIterators: () => number;
}

export function createDynaliteServer(options: DynaliteOptions, onFailure: (error: Error) => void): DynaliteServer {
  const dynalite = requireFromDynalite('.') as (options: DynaliteOptions) => Server;
  const dbModule = requireFromDynalite('./db') as DynaliteDbModule;
  const create = dbModule.create;
  let store: DynaliteStore | undefined;
  dbModule.create = (storeOptions) => (store = create(storeOptions));
  let server: Server;
  try {
    server = dynalite(options);
  } finally {
    dbModule.create = create;
  }
  if (!store) throw new Error('dynalite did not make its store through db.create: is it still version 4.0.0?');
  answerFailures(store.db, onFailure);
  const open = closeIteratorsWhenDone(store.db);
  return { server, openIterators: () => open.size };
}

/** Gives each iterator the `return` that dynalite's streams call when they are done (see above); the open ones. */
function closeIteratorsWhenDone(db: DynaliteDatabase): ReadonlySet<LevelIterator> {
  const open = new Set<LevelIterator>();
  for (const method of ['keys', 'values'] as const) {
    const original = db[method].bind(db);
    db[method] = (options?: unknown) => {
      const iterator = original(options);
      open.add(iterator);
      const close = iterator.close.bind(iterator);
      // The database closes its iterators through `close` too, when it closes.
      iterator.close = () => {
        open.delete(iterator);
        return close();
      };
      iterator.return ??= () => iterator.close();
      return iterator;
    };
  }
  return open;
}

function answerFailures(db: DynaliteDatabase, onFailure: (error: Error) => void): void {
  const answered = (error: Error | null | undefined): Error | null | undefined => {
    if (!error || 'statusCode' in error) return error;
    onFailure(error);
    return answer(error);
  };
  for (const method of ['get', 'put', 'del', 'batch'] as const) {
    const original = db[method].bind(db);
    db[method] = (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback !== 'function') return original(...args);
      const guarded: Callback = (error, ...results) => {
        (callback as Callback)(answered(error), ...results);
      };
      return original(...args.slice(0, -1), guarded);
    };
  }
  for (const method of ['createKeyStream', 'createValueStream'] as const) {
    const original = db[method].bind(db);
    db[method] = (options?: unknown) => {
      const stream = original(options);
      // The stream hands its error object to dynalite's listeners: made answerable in place, before they run.
      stream.prependListener('error', (error: Error) => {
        if ('statusCode' in error) return;
        onFailure(error);
        Object.assign(error, answerFields(error));
      });
      return stream;
    };
  }
}

/**
 * A new error, so that dynalite's own checks of LevelDB's (a value that does not decode makes it delete the table's
 * description as if it never existed) do not apply: a damaged store is reported, never repaired by losing data.
 */
function answer(error: Error): AnsweredError {
  return Object.assign(new Error('the local store failed'), answerFields(error));
}

function answerFields(error: Error): Pick<AnsweredError, 'statusCode' | 'body'> {
  const code = (error as { code?: unknown }).code;
  return {
    statusCode: 500,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
      message: `the local store could not read or write its files: ${error.message}${typeof code === 'string' ? ` (${code})` : ''}`,
    },
  };
}
