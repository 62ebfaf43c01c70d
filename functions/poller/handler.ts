// The poller Lambda, on an EventBridge schedule: one `poll` message per (cluster, app kind) in use.
import '../../lib/runtime/stack-traces.js'; // first: readable stack traces from here on
import { pollerHandler } from '../../lib/runtime/poller.js';

export const handler = pollerHandler();
