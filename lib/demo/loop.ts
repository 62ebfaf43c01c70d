// A periodic task for the demo's simulated actors (Flux, the merge bot, CI).

/** Runs `step` every `intervalMs` (never two at once) until stopped; a step that throws is reported to `onError`
 * and does not stop it. */
export class Loop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly intervalMs: number,
    private readonly step: () => unknown,
    private readonly onError?: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = (async () => {
        try {
          await this.step();
        } catch (error) {
          this.onError?.(error); // and the next round tries again
        }
      })().finally(() => {
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs);
  }
}
