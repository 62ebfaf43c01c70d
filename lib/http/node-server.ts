// The receiver over node:http, for the local mode (`pipelinectl serve`) and the tests: the same handler as the
// Lambda, behind the same transport-neutral types. What the handler never sees is logged here: a 413 (a warning,
// as the receiver logs its own) and a body the client abandoned (debug: the client's doing, not a failure of ours).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logging/logger.js';
import { declaredLength, logBodyAbandoned, logBodyTooLarge } from './request-log.js';
import { DEFAULT_MAX_BODY_BYTES, JSON_CONTENT_TYPE, jsonResponse } from './types.js';
import type { HttpHandler, HttpRequest, HttpResponse } from './types.js';

export interface HttpServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Bodies over this are answered 413 without being read to the end. Default 3 MiB, as the receiver's. */
  maxBodyBytes?: number;
  /**
   * Told when the handler itself throws (it should not: the receiver answers 500 for its own failures), or reading
   * a request fails other than by the client going away.
   */
  onError?: (error: unknown) => void;
  /** Where the 413s this server answers itself and the bodies clients abandon are logged. Default: nowhere. */
  logger?: Pick<Logger, 'debug' | 'warn'>;
}

export interface RunningHttpServer {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  port: number;
  /** Stops listening and closes every connection, idle or not. */
  close(): Promise<void>;
}

const TOO_LARGE = jsonResponse(413, { error: 'request body too large' });
const INTERNAL_ERROR = jsonResponse(500, { error: 'internal error' });

export async function startHttpServer(
  handle: HttpHandler,
  options: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const logger = options.logger ?? { debug() {}, warn() {} };
  const server = createServer((req, res) => {
    serve(req, res, handle, maxBodyBytes, logger).catch((error: unknown) => {
      options.onError?.(error);
      if (!res.headersSent) send(res, INTERNAL_ERROR);
      else res.destroy();
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handle: HttpHandler,
  maxBodyBytes: number,
  logger: Pick<Logger, 'debug' | 'warn'>,
): Promise<void> {
  const declaredBytes = declaredLength(req.headers['content-length']);
  const seen = { method: (req.method ?? 'GET').toUpperCase(), path: pathOf(req), declaredBytes };
  if (declaredBytes !== undefined && declaredBytes > maxBodyBytes) {
    logBodyTooLarge(logger, { ...seen, receivedBytes: 0 });
    rejectTooLarge(req, res);
    return;
  }
  const read = await readBody(req, maxBodyBytes);
  switch (read.kind) {
    case 'too-large':
      logBodyTooLarge(logger, { ...seen, receivedBytes: read.receivedBytes });
      rejectTooLarge(req, res);
      return;
    case 'abandoned':
      logBodyAbandoned(logger, { ...seen, receivedBytes: read.receivedBytes });
      res.destroy();
      return;
    case 'complete':
      send(res, await handle(toHttpRequest(req, read.body)));
  }
}

type BodyRead =
  | { kind: 'complete'; body: Buffer }
  /** Over the cap: nothing more is kept. */
  | { kind: 'too-large'; receivedBytes: number }
  /** The client went away before the end of its body. */
  | { kind: 'abandoned'; receivedBytes: number };

/**
 * The body, or `too-large` as soon as it exceeds the cap: from then on nothing more is kept (the rest is discarded
 * until the connection, which the 413 closes, goes away). A client that disconnects mid-body is `abandoned`; any
 * other read error rejects.
 */
function readBody(req: IncomingMessage, maxBodyBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const settle = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length <= maxBodyBytes) {
        chunks.push(chunk);
        return;
      }
      settle();
      chunks.length = 0;
      req.resume();
      resolve({ kind: 'too-large', receivedBytes: length });
    };
    const onEnd = (): void => {
      settle();
      resolve({ kind: 'complete', body: Buffer.concat(chunks, length) });
    };
    const onError = (error: Error): void => {
      settle();
      // node:http destroys the request with `aborted` (ECONNRESET) when its connection closes before the body ends.
      if (req.readableAborted || (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
        resolve({ kind: 'abandoned', receivedBytes: length });
        return;
      }
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Answers 413 and closes the connection once the answer is out, so the rest of an oversized body is not read. */
function rejectTooLarge(req: IncomingMessage, res: ServerResponse): void {
  // Discard whatever arrives meanwhile, so the client can finish writing and read the answer.
  req.resume();
  send(res, { ...TOO_LARGE, headers: { ...TOO_LARGE.headers, connection: 'close' } });
}

function toHttpRequest(req: IncomingMessage, body: Buffer): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: pathOf(req),
    headers,
    body,
    remoteAddress: req.socket.remoteAddress,
  };
}

/** The request's path as sent, without the query string. */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function send(res: ServerResponse, response: HttpResponse): void {
  const body = Buffer.from(response.body ?? '', 'utf8');
  res.writeHead(response.statusCode, {
    'content-type': JSON_CONTENT_TYPE,
    ...response.headers,
    'content-length': String(body.length),
  });
  res.end(body);
}
