// Adapts a Powertools logger to lib/'s Logger, so that lib/ does not depend on Powertools' types and the local mode
// can pass its own logger.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { loggable } from '../logging/loggable.js';
import type { Logger } from '../logging/logger.js';
import { printable } from '../logging/printable.js';

/** Messages and attributes go through the same `printable`/`loggable` rules as the console logger's. */
export function fromPowertools(logger: PowertoolsLogger): Logger {
  const entry = (attributes: Record<string, unknown>) => loggable(attributes) as Record<string, unknown>;
  return {
    debug: (message, attributes = {}) => logger.debug(printable(message), entry(attributes)),
    info: (message, attributes = {}) => logger.info(printable(message), entry(attributes)),
    warn: (message, attributes = {}) => logger.warn(printable(message), entry(attributes)),
    error: (message, attributes = {}) => logger.error(printable(message), entry(attributes)),
  };
}

/** The function's logger: JSON lines to CloudWatch, each with the function's name as `service`. */
export function functionLogger(serviceName: 'receiver' | 'verifier' | 'poller'): Logger {
  return fromPowertools(new PowertoolsLogger({ serviceName }));
}
