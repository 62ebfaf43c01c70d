// The one logger type of lib/: a message and optional attributes, per level. The Lambdas pass a Powertools logger
// (lib/runtime/logger.ts), the CLI and the local mode the console logger (console-logger.ts), tests their own; a module
// that logs at fewer levels asks for `Pick<Logger, …>`, so any of these fits it. No dependencies, so that every
// module may import it.
export interface Logger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/** A logger that drops everything: for a part whose caller wants no output of it, and for tests. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
