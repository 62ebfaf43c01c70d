// Verifier Lambda: consumes the queue (SQS event source with ReportBatchItemFailures). Thin: the clients are
// built once per warm container, the work is lib/verifier's.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EksAccess, KubernetesClusterReader } from '../../lib/clusters/index.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { consumeBatch } from '../../lib/queue/index.js';
import { awsDependencies } from '../../lib/runtime/aws.js';
import { fromPowertools } from '../../lib/runtime/logger.js';
import { createVerifier } from '../../lib/verifier/index.js';

const logger = fromPowertools(new Logger({ serviceName: 'verifier' }));
let clusters: KubernetesClusterReader | undefined;
// The pull-request and notification strategies are plugged in here as they become available (issue 5).
const promoter = new StrategyPromoter({});

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const aws = awsDependencies();
  clusters ??= new KubernetesClusterReader({
    getCluster: async (key) => (await aws.store.getCluster(key))?.document,
    secrets: aws.secrets,
    eksTokens: new EksAccess(),
  });
  const verifier = createVerifier({
    store: aws.store,
    queue: aws.queue,
    clusters,
    promoter,
    logger,
    now: () => new Date(),
    workerId: context.awsRequestId,
  });
  return consumeBatch(event, verifier, { deadLetters: aws.deadLetters, logger });
};
