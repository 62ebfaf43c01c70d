// The poller Lambda's assembly: on each scheduled run, one `poll` message per (cluster, app kind) in use.
import { enqueuePolls } from '../poller/poller.js';
import { awsDependencies } from './aws.js';
import { functionLogger } from './logger.js';

export type PollerHandler = () => Promise<{ polls: number }>;

export function pollerHandler(): PollerHandler {
  const logger = functionLogger('poller');
  return async () => {
    const { table, queue } = awsDependencies();
    const polls = await enqueuePolls({ store: table.store, queue });
    logger.info('enqueued polls', { polls });
    return { polls };
  };
}
