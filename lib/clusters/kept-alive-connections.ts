// One kept-alive HTTPS connection pool per cluster client. client-node 1.4 builds a new https.Agent for every request
// (KubeConfig.applySecurityAuthentication), so every request to a leaf cluster paid a TCP and TLS handshake. Here
// client-node still applies the kubeconfig to each request (the bearer token, basic auth or an exec plugin's
// credentials, refreshed as before, and the TLS options it would build its agent with), and the agent it built is
// then swapped for the client's kept one, made with exactly those TLS options. The kept agent is keyed on what a
// connection depends on: the server, the TLS options (CA, client certificate and key, verification, server name) and
// the credentials. When any of them changes, the next request starts a new pool and the old one is closed, so nothing
// made with an old certificate or token stays in use.
//
// A kept connection can be closed by the server while idle (a restart, an idle timeout) without this process having
// seen it yet; a GET sent on it fails at once with ECONNRESET or EPIPE. Such a GET is sent once more on a new
// connection, as Go's and browsers' HTTP clients do for idempotent requests on a reused connection; a failure on a
// new connection is reported as it is.
import { createHash } from 'node:crypto';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Duplex } from 'node:stream';
import {
  HttpMethod,
  wrapHttpLibrary,
  type HttpLibrary,
  type KubeConfig,
  type RequestContext,
  type ResponseContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';
import { sendBounded } from './bounded-fetch.js';

/**
 * How long an idle connection is kept. Below the API server's idle timeout (kube-apiserver closes idle connections
 * after 90 s) and the idle timeout of an AWS load balancer in front of it (350 s), so that a kept connection is not
 * one the other end has already dropped.
 */
export const IDLE_CONNECTION_MS = 30_000;

/** How a request fails when the connection it was sent on had been closed by the server: node's error codes. */
const DROPPED_CONNECTION_CODES: readonly unknown[] = ['ECONNRESET', 'EPIPE'];

/** The TLS options client-node gives the agent it builds (config.js, applySecurityAuthentication). */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** An https.Agent that keeps connections alive, and can tell how long each has been idle by the wall clock. */
class KeptAliveAgent extends HttpsAgent {
  private readonly idleSince = new WeakMap<Duplex, number>();
  private closed = false;

  constructor(
    options: AgentOptions,
    /** What the connections depend on, hashed (see `connectionKey`). */
    readonly key: string,
    private readonly now: () => number,
  ) {
    super({ ...options, ...sharedSecureContext(options), keepAlive: true, timeout: IDLE_CONNECTION_MS });
  }

  /** Called by node:http when a request is done with a socket: false destroys it instead of keeping it. */
  override keepSocketAlive(socket: Duplex): boolean {
    if (this.closed) return false;
    // node:http returns false when the server announces too short a keep-alive timeout; @types/node says void.
    const kept: unknown = super.keepSocketAlive(socket);
    if (kept === false) return false;
    this.idleSince.set(socket, this.now());
    return true;
  }

  /**
   * Destroys idle connections that have been idle too long by the wall clock. The idle timers do this while the
   * process runs, but they do not run while a Lambda container is frozen between invocations: after a thaw, a request
   * could otherwise be sent on a connection the server or a load balancer dropped meanwhile.
   */
  dropStale(): void {
    const now = this.now();
    for (const socket of this.idleSockets()) {
      const since = this.idleSince.get(socket);
      if (since === undefined || now - since >= IDLE_CONNECTION_MS) socket.destroy();
    }
  }

  /** Whether a request sent now goes out on a kept connection (node:http takes an idle one when there is one). */
  hasIdleConnection(): boolean {
    return this.idleSockets().length > 0;
  }

  /** Destroys every idle connection: after one of them was found closed by the server, the others likely were too. */
  dropIdle(): void {
    for (const socket of this.idleSockets()) socket.destroy();
  }

  /** Closes the idle connections now, and every busy one once its request is done. */
  close(): void {
    this.closed = true;
    this.dropIdle();
  }

  private idleSockets(): Duplex[] {
    return Object.values(this.freeSockets).flatMap((sockets) => sockets ?? []);
  }
}

/**
 * The `default` authentication method of a cluster client's API classes (client-node's kubeconfig authentication,
 * with the client's kept-alive agent in place of the one-off agent client-node builds) and their `httpApi`
 * (client-node's node-fetch library with each answer's bytes bounded, see bounded-fetch.ts, sending a GET again when a
 * kept connection turns out to be closed).
 */
export class KeptAliveConnections implements SecurityAuthentication {
  readonly httpApi: HttpLibrary = wrapHttpLibrary({ send: (request) => this.send(request) });
  private agent: KeptAliveAgent | undefined;
  private closed = false;

  constructor(
    private readonly kubeconfig: KubeConfig,
    /** Milliseconds since the epoch (wall clock), for idle connections. */
    private readonly now: () => number = Date.now,
  ) {}

  getName(): string {
    return 'kubeconfig authentication over kept-alive connections';
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.kubeconfig.applySecurityAuthentication(context);
    const built = context.getAgent();
    // A proxy agent (a kubeconfig proxy-url) or plain HTTP: client-node's own agent, one connection per request; so
    // too for the last requests of a replaced client.
    if (this.closed || !(built instanceof HttpsAgent) || built.constructor !== HttpsAgent) return;
    const options = tlsOptionsOf(built);
    const key = connectionKey(context, options);
    let agent = this.agent;
    if (agent?.key !== key) {
      agent?.close();
      agent = new KeptAliveAgent(options, key, this.now);
      this.agent = agent;
    }
    agent.dropStale();
    context.setAgent(agent);
  }

  private async send(request: RequestContext): Promise<ResponseContext> {
    const agent = request.getAgent();
    const onKeptConnection = agent instanceof KeptAliveAgent && agent.hasIdleConnection();
    try {
      return await sendBounded(request);
    } catch (error) {
      const again =
        onKeptConnection &&
        request.getHttpMethod() === HttpMethod.GET &&
        request.getSignal()?.aborted !== true &&
        isDroppedConnection(error);
      if (!again) throw error;
      agent.dropIdle();
      return sendBounded(request);
    }
  }

  /** Closes the connections: idle ones now, busy ones when their request is done. For a replaced client. */
  close(): void {
    this.closed = true;
    this.agent?.close();
    this.agent = undefined;
  }
}

/**
 * One TLS context for every connection of an agent: node otherwise makes one per connection, parsing the CA and the
 * client certificate again, and a poll every 5 minutes opens a new connection to each cluster (its kept one has been
 * idle too long). Options no context can be made of are left to the connection, which fails on them as client-node's
 * own agent does.
 */
function sharedSecureContext(options: AgentOptions): { secureContext?: SecureContext } {
  try {
    return { secureContext: createSecureContext(options) };
  } catch {
    return {};
  }
}

function tlsOptionsOf(agent: HttpsAgent): AgentOptions {
  const options: AgentOptions = {};
  for (const name of TLS_OPTIONS) {
    const value = agent.options[name];
    if (value !== undefined) Object.assign(options, { [name]: value });
  }
  return options;
}

/** A hash of what a connection depends on: the server's origin, the TLS options and the credentials sent. */
function connectionKey(context: RequestContext, options: AgentOptions): string {
  const hash = createHash('sha256');
  const part = (value: unknown): void => {
    if (value === undefined) hash.update('-');
    else if (Buffer.isBuffer(value)) hash.update('b').update(value);
    else if (Array.isArray(value)) for (const item of value) part(item);
    else if (typeof value === 'string') hash.update('s').update(value);
    else hash.update('j').update(JSON.stringify(value) ?? typeof value);
    hash.update('\0');
  };
  part(new URL(context.getUrl()).origin);
  for (const name of TLS_OPTIONS) part(options[name]);
  const headers = context.getHeaders();
  part(Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1]);
  return hash.digest('hex');
}

/** node-fetch's error for a connection closed before the answer came: a FetchError of type `system`. */
function isDroppedConnection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, type, code } = error as { name?: unknown; type?: unknown; code?: unknown };
  return name === 'FetchError' && type === 'system' && DROPPED_CONNECTION_CODES.includes(code);
}
