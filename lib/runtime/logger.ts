// Adapts a Powertools logger to lib/'s Logger, so that lib/ does not depend on Powertools' types and the local mode
// can pass its own logger.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../logging/logger.js';

export function fromPowertools(logger: PowertoolsLogger): Logger {
  return {
    debug: (message, attributes = {}) => logger.debug(message, attributes),
    info: (message, attributes = {}) => logger.info(message, attributes),
    warn: (message, attributes = {}) => logger.warn(message, attributes),
    error: (message, attributes = {}) => logger.error(message, attributes),
  };
}

/** The function's logger: JSON lines to CloudWatch, each with the function's name as `service`. */
export function functionLogger(serviceName: 'receiver' | 'verifier' | 'poller'): Logger {
  return fromPowertools(new PowertoolsLogger({ serviceName }));
}
