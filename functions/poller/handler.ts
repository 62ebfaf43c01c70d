// The poller Lambda, on an EventBridge schedule: one `poll` message per (cluster, app kind) in use.
import { pollerHandler } from '../../lib/runtime/poller.js';

export const handler = pollerHandler();
