// Starting a fake server on a free loopback port: shared by the fake Kubernetes API, the fake Git hosts and the fake
// services the verification checks and notifications call (LoopbackServer).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';

/** Listens on 127.0.0.1 with a port the system picks; resolves to that port, or rejects if listening fails. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * A fake's server on a free loopback port that keeps track of its connections and of the answers it delays, so that
 * `stop` ends at once: kept-alive and hanging connections destroyed, delayed answers never sent.
 */
export class LoopbackServer {
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    /** The port the system picked. */
    readonly port: number,
  ) {}

  /** Listens with `server`; `connectionEvent` is `secureConnection` for a TLS server. */
  static async start(
    server: Server,
    connectionEvent: 'connection' | 'secureConnection' = 'connection',
  ): Promise<LoopbackServer> {
    const sockets = new Set<Socket>();
    server.on(connectionEvent, (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return new LoopbackServer(server, sockets, await listenOnLoopback(server));
  }

  /** Runs `then` after `ms`, unless the server stops first. */
  later(ms: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      then();
    }, ms);
    this.#timers.add(timer);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A request listener that reads the whole body before `handle`; a handler that throws ends the connection. */
export function withBody(
  handle: (request: IncomingMessage, body: Buffer, response: ServerResponse) => Promise<void> | void,
): RequestListener {
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      Promise.resolve()
        .then(() => handle(request, Buffer.concat(chunks), response))
        .catch(() => response.destroy());
    });
  };
}
