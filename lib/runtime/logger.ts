// Adapts a Powertools logger to lib/'s Logger, so that lib/ does not depend on Powertools' types and the local mode
// can pass its own logger.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { loggable, loggableText } from '../logging/loggable.js';
import type { Logger } from '../logging/logger.js';

/** Messages and attributes go through the same `loggableText`/`loggable` rules as the console logger's. */
export function fromPowertools(logger: PowertoolsLogger): Logger {
  const entry = (attributes: Record<string, unknown>) => loggable(attributes) as Record<string, unknown>;
  return {
    debug: (message, attributes = {}) => logger.debug(loggableText(message), entry(attributes)),
    info: (message, attributes = {}) => logger.info(loggableText(message), entry(attributes)),
    warn: (message, attributes = {}) => logger.warn(loggableText(message), entry(attributes)),
    error: (message, attributes = {}) => logger.error(loggableText(message), entry(attributes)),
  };
}

/** The function's logger: JSON lines to CloudWatch, each with the function's name as `service`. */
export function functionLogger(serviceName: 'receiver' | 'verifier' | 'poller'): Logger {
  return fromPowertools(new PowertoolsLogger({ serviceName }));
}
