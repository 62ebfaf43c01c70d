// The poller Lambda's assembly: on each scheduled run, the `poll-clusters` messages of the fleet, a `check-pipeline`
// per pipeline and a `sync-config-source` per ConfigSource (lib/poller); then, over the pipelines the poll named, the
// fleet's waiting approvals as metrics.
import { recordApprovalWait } from '../observability/approval-wait-metrics.js';
import { functionMetrics } from '../observability/emf-metrics.js';
import { enqueuePolls } from '../poller/poller.js';
import { awsDependencies } from './aws-dependencies.js';
import { functionLogger } from './logger.js';

export type PollerHandler = () => Promise<{ polls: number }>;

export function pollerHandler(): PollerHandler {
  const logger = functionLogger('poller');
  const metrics = functionMetrics('poller');
  return async () => {
    try {
      const { table, queue } = awsDependencies();
      const started = performance.now();
      const { pairs: polls, messages, pipelines } = await enqueuePolls({ store: table.store, queue });
      metrics.record('PollDuration', performance.now() - started);
      metrics.record('PollsEnqueued', polls);
      logger.info('enqueued polls', { polls, messages });
      await recordApprovalWait({ store: table.store, metrics, logger, now: new Date() }, pipelines);
      return { polls };
    } finally {
      metrics.flush();
    }
  };
}
