// The local mode's poller: `poll` once at start, then every interval. A run still going when the next is due is
// not doubled; a failed run is logged and the next one tries again.
import type { Logger } from '../logging/logger.js';
import { errorMessage } from '../util/error-message.js';

export interface Polling {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function startPolling(poll: () => Promise<void>, intervalMs: number, logger: Logger): Polling {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = (): void => {
    if (running || stopped) return;
    running = poll()
      .catch((error: unknown) => {
        logger.error('poll failed; the next one tries again', {
          error: errorMessage(error),
        });
      })
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, intervalMs);
  run();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
