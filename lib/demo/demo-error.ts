// Why the demo cannot run, said to the person who started it: one message and the exit code to end with. The demo
// knows nothing of its command line; lib/cli/commands/demo.ts reports it as any other command error.
export class DemoError extends Error {
  override name = 'DemoError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
