// The live part of the dashboard: server-sent events on GET /events saying `change` when what the pages show has
// changed. One timer for all open pages, running only while one is open, reads a fingerprint of the fleet; each page
// then fetches itself again. Nothing is read while no page is open; open pages cost one read per interval in all.
import type { ServerResponse } from 'node:http';

export interface LiveFeedOptions {
  /** Something that changes whenever a page would show something else. */
  fingerprint: () => Promise<string>;
  intervalMs: number;
  /** Told when reading the fingerprint fails (the feed keeps trying). */
  onError: (error: unknown) => void;
}

export class LiveFeed {
  /** Each open stream, with the fingerprint it was last told about (undefined: none yet). */
  readonly #clients = new Map<ServerResponse, string | undefined>();
  #timer: NodeJS.Timeout | undefined;
  /** The read under way, if any: `close` waits for it, so that nothing reads the backend after the feed closed. */
  #reading: Promise<void> | undefined;

  constructor(private readonly options: LiveFeedOptions) {}

  /** Makes `res` an event stream until the client goes away or the feed closes. */
  subscribe(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    // How long the browser waits before reconnecting after the stream breaks.
    res.write('retry: 2000\n\n');
    this.#clients.set(res, undefined);
    res.on('close', () => {
      this.#clients.delete(res);
      if (this.#clients.size === 0) this.#stop();
    });
    this.#timer ??= setInterval(() => void this.#tick(), this.options.intervalMs);
  }

  /** Ends every stream and stops the timer; resolves once no read of the fingerprint is under way. */
  async close(): Promise<void> {
    this.#stop();
    for (const res of this.#clients.keys()) res.end();
    this.#clients.clear();
    await this.#reading;
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): Promise<void> {
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  async #read(): Promise<void> {
    try {
      const fingerprint = await this.options.fingerprint();
      // A new stream is told `change` at its first tick too: its page was rendered before the stream opened, and
      // whatever changed in between is then fetched. From there on, only a change is told.
      for (const [res, seen] of this.#clients) {
        if (seen === fingerprint) continue;
        this.#clients.set(res, fingerprint);
        res.write('event: change\ndata: {}\n\n');
      }
    } catch (error) {
      this.options.onError(error);
    }
  }
}
