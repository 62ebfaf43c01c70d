// The API clients a Git host adapter keeps between promotions of one process (a warm Lambda container, one serve):
// one per API base and credentials, so a client's connections, its discovery answers and its rate-limit state are
// reused, and the oldest are dropped beyond a bound. Keys are hashes: the cache never holds a credential as a key.
import { createHash } from 'node:crypto';

const DEFAULT_MAX_CLIENTS = 32;

/** Identifies an API base and credentials without holding them: a SHA-256 of both. */
export function credentialsKey(apiUrl: string, credentials: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([apiUrl, credentials]))
    .digest('hex');
}

export class ClientCache<T> {
  private readonly clients = new Map<string, T>();

  constructor(private readonly maxClients = DEFAULT_MAX_CLIENTS) {}

  /** The client for this API base and credentials, created by `create` the first time. */
  get(apiUrl: string, credentials: unknown, create: () => T): T {
    const key = credentialsKey(apiUrl, credentials);
    let client = this.clients.get(key);
    if (!client) {
      client = create();
      this.clients.set(key, client);
      while (this.clients.size > this.maxClients) {
        const oldest = this.clients.keys().next().value;
        if (oldest === undefined) break;
        this.clients.delete(oldest);
      }
    }
    return client;
  }
}
