// The poller Lambda's assembly: on each scheduled run, one `poll` message per (cluster, app kind) in use and one
// `sync-config-source` per ConfigSource; then, over
// the pipelines that listing named, the fleet's waiting approvals as metrics.
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
      // Listed once for both: the polls, and the pipelines whose approval markers are counted.
      const usage = await table.store.listClusterKinds();
      const polls = await enqueuePolls({
        store: {
          listClusterKinds: () => Promise.resolve(usage),
          listClusters: (page) => table.store.listClusters(page),
          listConfigSources: (page) => table.store.listConfigSources(page),
          listPipelineSets: (page) => table.store.listPipelineSets(page),
        },
        queue,
      });
      metrics.record('PollDuration', performance.now() - started);
      metrics.record('PollsEnqueued', polls);
      logger.info('enqueued polls', { polls });
      const pipelines = usage.flatMap((entry) => entry.pipelines);
      await recordApprovalWait({ store: table.store, metrics, logger, now: new Date() }, pipelines);
      return { polls };
    } finally {
      metrics.flush();
    }
  };
}
