// Adapts a Powertools Logger to the small logger interfaces lib/ uses (message + optional attributes), so lib/
// does not depend on Powertools' types and the local mode can pass its own logger.
import type { Logger } from '@aws-lambda-powertools/logger';

export interface StructuredLogger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

export function fromPowertools(logger: Logger): StructuredLogger {
  return {
    debug: (message, attributes = {}) => logger.debug(message, attributes),
    info: (message, attributes = {}) => logger.info(message, attributes),
    warn: (message, attributes = {}) => logger.warn(message, attributes),
    error: (message, attributes = {}) => logger.error(message, attributes),
  };
}
