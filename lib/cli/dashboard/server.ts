// The dashboard's HTTP server: node:http on a loopback address only, answering only requests addressed to a loopback
// name on its port (no DNS rebinding) and only its owner's (the token of owner-access.ts), with headers that keep the
// pages from being framed, sniffed or made to load anything from elsewhere. Pages come from routes.ts, the event
// stream from live-feed.ts.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readHistoryWithConfigSources } from '../operations/history.js';
import { readStatus } from '../operations/status.js';
import type { Backend } from '../backend.js';
import type { Logger } from '../../logging/logger.js';
import { loadAssets } from './assets.js';
import { LiveFeed } from './live-feed.js';
import { isLoopbackHost, isLoopbackHostHeader } from './loopback.js';
import { ACCESS_REFUSED, checkAccess, createAccessToken, ownerUrl } from './owner-access.js';
import { createCsrfToken } from './request-guard.js';
import { createDashboardRoutes } from './routes.js';
import { errorMessage } from '../../util/error-message.js';

export interface DashboardOptions {
  /**
   * What the pages read. A promise lets the dashboard listen (and its URL be printed) before the backend is there,
   * as the demo does while its local mode starts: requests wait for it.
   */
  backend: Backend | Promise<Backend>;
  /** A loopback address or `localhost`; default 127.0.0.1. Anything else is refused. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** How often open pages are checked for changes. Default 2 s. */
  refreshMs?: number;
  logger: Pick<Logger, 'warn' | 'error'>;
  now?: () => Date;
}

export interface RunningDashboard {
  /** `http://127.0.0.1:PORT/`, without the token: it lets no one in, and may be logged. */
  url: string;
  /**
   * `http://127.0.0.1:PORT/?token=…`: the URL its owner opens, holding this start's token. Shown on the owner's
   * terminal (or written to a file only they can read), never logged.
   */
  ownerUrl: string;
  port: number;
  /**
   * Ends the event streams, stops listening and closes every connection; resolves once no answer or live-update read
   * is under way, so the caller may close the backend then (it is the caller's).
   */
  close(): Promise<void>;
}

/** The only form the dashboard takes is a few fields: anything larger is not from its page. */
const MAX_BODY_BYTES = 16 * 1024;

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it Chromium sends `Origin: null` with the form, and the same-origin check fails.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export class NonLoopbackHostError extends Error {
  constructor(host: string) {
    super(`the dashboard listens on a loopback address only (127.0.0.1, ::1, localhost), not ${JSON.stringify(host)}`);
    this.name = 'NonLoopbackHostError';
  }
}

export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new NonLoopbackHostError(host);
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  const assets = await loadAssets();
  const csrfToken = createCsrfToken();
  const accessToken = createAccessToken();
  const backendReady = Promise.resolve(options.backend);
  const routesReady = backendReady.then((backend) => createDashboardRoutes({ backend, csrfToken, now, logger }));
  // A backend that never comes (the demo failed to start) is not an unhandled rejection: the caller reports it.
  routesReady.catch(() => undefined);
  const feed = new LiveFeed({
    intervalMs: options.refreshMs ?? 2000,
    fingerprint: async () => {
      const backend = await backendReady;
      const { json } = await readStatus(backend, undefined, now());
      const newest = await readHistoryWithConfigSources(backend, { limit: 1 });
      return JSON.stringify([json, newest.entries, await backend.store.listFreezes()]);
    },
    onError: (error) =>
      logger.warn('dashboard: reading for live updates failed', {
        error: errorMessage(error),
      }),
  });

  let port = 0;
  /** The answers under way: `close` waits for them, so that none reads the backend after it returned. */
  const answering = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const answer = handle(req, res).catch((error: unknown) => {
      logger.error('dashboard: answering failed', { error: errorMessage(error) });
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error');
      else res.destroy();
    });
    answering.add(answer);
    void answer.finally(() => answering.delete(answer));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hostHeader = req.headers.host;
    if (!isLoopbackHostHeader(hostHeader, port)) {
      send(res, 421, 'text/plain; charset=utf-8', 'the dashboard answers only requests to 127.0.0.1 or localhost');
      return;
    }
    const url = new URL(req.url ?? '/', `http://${hostHeader}`);
    const method = (req.method ?? 'GET').toUpperCase();
    // Before anything is read or answered: a request that is not the owner's learns nothing but how to get in.
    const access = checkAccess({ method, url, cookie: req.headers.cookie }, accessToken, port);
    if (access.outcome === 'refused') return send(res, 401, 'text/plain; charset=utf-8', ACCESS_REFUSED[access.why]);
    if (access.outcome === 'exchange') {
      res.writeHead(303, { ...SECURITY_HEADERS, location: access.location, 'set-cookie': access.setCookie });
      res.end();
      return;
    }
    if (method === 'GET' && url.pathname === '/events') return feed.subscribe(res);
    if (method === 'GET' && url.pathname === '/favicon.ico') return send(res, 204, 'text/plain', '');
    const asset = method === 'GET' ? assets.get(url.pathname) : undefined;
    if (asset) return send(res, 200, asset.contentType, asset.body);
    const body = await readBody(req);
    if (body === undefined) return send(res, 413, 'text/plain; charset=utf-8', 'request body too large');
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const routes = await routesReady;
    const response = await routes({ method, url, headers, body, origin: `http://${hostHeader}` });
    res.writeHead(response.status, {
      ...SECURITY_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      ...response.headers,
    });
    res.end(method === 'HEAD' || response.body === undefined ? undefined : String(response.body));
  }

  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  port = address.port;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shown}:${port}/`;
  return {
    url,
    ownerUrl: ownerUrl(url, accessToken),
    port,
    close: async () => {
      const feedClosed = feed.close();
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await Promise.all([closed, feedClosed, ...answering]);
    },
  };
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType });
  res.end(body);
}

/** The body as text, or undefined when it is over MAX_BODY_BYTES (reading stops there). */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
