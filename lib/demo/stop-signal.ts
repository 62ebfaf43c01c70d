// How the demo is stopped: Ctrl-C (or SIGTERM) once stops everything in order; a second one does not wait.

/** Resolves `stopped` on the first SIGINT or SIGTERM; a second one ends the process at once. */
export class StopSignal {
  readonly stopped: Promise<void>;
  private readonly handler: () => void;
  private received = false;

  constructor() {
    let resolve: () => void = () => undefined;
    this.stopped = new Promise((r) => (resolve = r));
    this.handler = () => {
      if (this.received) process.exit(130);
      this.received = true;
      resolve();
    };
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}
