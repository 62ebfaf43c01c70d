// A scripted HTTP(S) service on 127.0.0.1, for the `http` check and the outbound request's rules in tests, benchmarks
// and the demo: each path answers as it is told (a status, a body, headers, a redirect, an answer of many bytes, late
// or never), anything else 404; every request is logged. `https: true` serves with the committed test certificate
// (certs/README.md: SAN 127.0.0.1 and localhost): trust `FAKE_CA_PEM`.
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { FAKE_CA_PEM } from './fake-kube-api.js';
import { LoopbackServer } from './listen.js';

export { FAKE_CA_PEM };

export interface FakeHttpRoute {
  /** Default 200. */
  status?: number;
  /** Default empty. */
  body?: string;
  headers?: Record<string, string>;
  /** Answer a redirect (status default 302) to this Location. */
  redirectTo?: string;
  /** Answer this many bytes of body, streamed in 64 KiB pieces, without a Content-Length. */
  streamedBytes?: number;
  /** Answer after this long, or never (until the server stops). */
  delayMs?: number | 'never';
}

export interface FakeHttpRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
}

const certDirectory = new URL('./certs/', import.meta.url);
const PIECE = 64 * 1024;

export class FakeHttpTarget {
  /** Every request received, oldest first. */
  readonly requests: FakeHttpRequest[] = [];
  private readonly routes = new Map<string, FakeHttpRoute>();
  private server?: LoopbackServer;

  private constructor(private readonly https: boolean) {}

  static async start(options: { https?: boolean } = {}): Promise<FakeHttpTarget> {
    const target = new FakeHttpTarget(options.https === true);
    const handler = (request: IncomingMessage, response: ServerResponse): void => {
      request.resume();
      request.on('end', () => {
        const path = request.url ?? '/';
        target.requests.push({ method: request.method ?? '', path, headers: request.headers });
        const route = target.routes.get(path.split('?')[0] ?? path);
        if (!route) {
          response.writeHead(404, { 'content-type': 'text/plain' });
          response.end('not found');
          return;
        }
        if (route.delayMs === 'never') return;
        if (route.delayMs === undefined) {
          answer(response, route);
          return;
        }
        target.server?.later(route.delayMs, () => answer(response, route));
      });
    };
    const server = target.https
      ? createHttpsServer(
          {
            cert: readFileSync(new URL('server.crt', certDirectory)),
            key: readFileSync(new URL('server.key', certDirectory)),
          },
          handler,
        )
      : createHttpServer(handler);
    target.server = await LoopbackServer.start(server, target.https ? 'secureConnection' : 'connection');
    return target;
  }

  /** `http://127.0.0.1:<port>` (or `https://`). */
  get url(): string {
    if (this.server === undefined) throw new Error('FakeHttpTarget is not started');
    return `${this.https ? 'https' : 'http'}://127.0.0.1:${this.server.port}`;
  }

  /** How `path` (without its query) answers from now on. */
  route(path: string, route: FakeHttpRoute): this {
    this.routes.set(path, route);
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }
}

function answer(response: ServerResponse, route: FakeHttpRoute): void {
  const headers: Record<string, string> = { 'content-type': 'text/plain', ...route.headers };
  if (route.redirectTo !== undefined) headers.location = route.redirectTo;
  response.writeHead(route.status ?? (route.redirectTo === undefined ? 200 : 302), headers);
  if (route.streamedBytes === undefined) {
    response.end(route.body ?? '');
    return;
  }
  let left = route.streamedBytes;
  const more = (): void => {
    while (left > 0) {
      const piece = Buffer.alloc(Math.min(PIECE, left), 'x');
      left -= piece.length;
      if (!response.write(piece)) {
        response.once('drain', more);
        return;
      }
    }
    response.end();
  };
  response.on('error', () => undefined);
  more();
}
