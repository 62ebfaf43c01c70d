// An error the CLI reports as one line on stderr, with an exit code, and no stack.
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
