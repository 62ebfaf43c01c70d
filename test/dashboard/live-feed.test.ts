// The live feed's close waits for a read of the fingerprint under way, so that the caller may close the backend once
// it returned: a read landing on a closed store (dynalite's "Database is not open") is then impossible.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { LiveFeed } from '../../lib/cli/dashboard/live-feed.js';
import { waitFor } from '../../lib/testing/wait-for.js';

/** The part of a response the feed uses: what it wrote, and whether it ended. */
class RecordedResponse extends EventEmitter {
  written: string[] = [];
  ended = false;
  writeHead(): this {
    return this;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    return true;
  }
  end(): this {
    this.ended = true;
    return this;
  }
}

describe('the live feed', () => {
  it('closes only once the read under way is over, and reads nothing after', async () => {
    let reads = 0;
    let finishRead: (fingerprint: string) => void = () => undefined;
    const feed = new LiveFeed({
      intervalMs: 5,
      fingerprint: () => {
        reads += 1;
        return new Promise<string>((resolve) => (finishRead = resolve));
      },
      onError: (error) => assert.fail(String(error)),
    });
    const response = new RecordedResponse();
    feed.subscribe(response as unknown as ServerResponse);
    await waitFor('a read of the fingerprint', () => reads === 1);

    let closed = false;
    const closing = feed.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(closed, false, 'the read is still under way');
    assert.equal(response.ended, true, 'the stream ended at once');
    finishRead('one');
    await closing;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(reads, 1, 'no read after the close');
  });
});
