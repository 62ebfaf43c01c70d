// The receiver over node:http, for the local mode (`pipelinectl serve`) and the tests: the same handler as the
// Lambda, behind the same transport-neutral types.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MAX_BODY_BYTES, JSON_CONTENT_TYPE, jsonResponse } from './types.js';
import type { HttpHandler, HttpRequest, HttpResponse } from './types.js';

export interface HttpServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Bodies over this are answered 413 without being read to the end. Default 512 KiB, as the receiver's. */
  maxBodyBytes?: number;
  /** Told when the handler itself throws (it should not: the receiver answers 500 for its own failures). */
  onError?: (error: unknown) => void;
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
  const server = createServer((req, res) => {
    serve(req, res, handle, maxBodyBytes).catch((error: unknown) => {
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
): Promise<void> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBodyBytes) {
    rejectTooLarge(req, res);
    return;
  }
  const body = await readBody(req, maxBodyBytes);
  if (body === undefined) {
    rejectTooLarge(req, res);
    return;
  }
  send(res, await handle(toHttpRequest(req, body)));
}

/**
 * The body, or undefined as soon as it exceeds the cap: from then on nothing more is kept (the rest is discarded
 * until the connection, which the 413 closes, goes away).
 */
function readBody(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer | undefined> {
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
      resolve(undefined);
    };
    const onEnd = (): void => {
      settle();
      resolve(Buffer.concat(chunks, length));
    };
    const onError = (error: Error): void => {
      settle();
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
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: query === -1 ? url : url.slice(0, query),
    headers,
    body,
    remoteAddress: req.socket.remoteAddress,
  };
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
