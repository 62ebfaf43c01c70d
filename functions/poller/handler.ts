// Poller Lambda, on an EventBridge schedule: one `poll` message per (cluster, app kind) in use.
import { Logger } from '@aws-lambda-powertools/logger';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { awsDependencies } from '../../lib/runtime/aws.js';

const logger = new Logger({ serviceName: 'poller' });

export const handler = async (): Promise<{ polls: number }> => {
  const { store, queue } = awsDependencies();
  const polls = await enqueuePolls({ store, queue });
  logger.info('enqueued polls', { polls });
  return { polls };
};
