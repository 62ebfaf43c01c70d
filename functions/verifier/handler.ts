// Verifier Lambda: consumes the queue (SQS event source with ReportBatchItemFailures). Thin: the clients are
// built once per warm container, the work is lib/verifier's.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EksAccess, KubernetesClusterReader } from '../../lib/clusters/index.js';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Promoter } from '../../lib/promotion/index.js';
import { backoffRedelivery, consumeBatch } from '../../lib/queue/index.js';
import { awsDependencies } from '../../lib/runtime/aws.js';
import { fromPowertools } from '../../lib/runtime/logger.js';
import { createPromoter } from '../../lib/runtime/promoter.js';
import { createVerifier, DEFAULT_SETTINGS, RecentPipelines } from '../../lib/verifier/index.js';

const logger = fromPowertools(new Logger({ serviceName: 'verifier' }));
let clusters: KubernetesClusterReader | undefined;
let promoter: Promoter | undefined;
/** Pipeline definitions read by `poll` messages, reused for 30 s across the batches of this warm container. */
let recentPipelines: RecentPipelines | undefined;

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const aws = awsDependencies();
  clusters ??= new KubernetesClusterReader({
    getCluster: async (key) => (await aws.store.getCluster(key))?.document,
    secrets: aws.secrets,
    eksTokens: new EksAccess(),
  });
  promoter ??= await buildPromoter(aws);
  recentPipelines ??= new RecentPipelines(aws.store, DEFAULT_SETTINGS.pollPipelineMaxAgeMs, () => new Date());
  const verifier = createVerifier({
    store: aws.store,
    queue: aws.queue,
    clusters,
    promoter,
    logger,
    now: () => new Date(),
    workerId: context.awsRequestId,
    recentPipelines,
  });
  // A message that failed comes back after 30 s, 1, 2, 4, 8 min (DEFAULT_RETRY_DELAYS_SECONDS), then the DLQ.
  const redelivery = backoffRedelivery((receiptHandle, seconds) => aws.queue.changeVisibility(receiptHandle, seconds));
  return consumeBatch(event, verifier, { deadLetters: aws.deadLetters, logger, redelivery });
};

async function buildPromoter(aws: ReturnType<typeof awsDependencies>): Promise<Promoter> {
  const env = aws.environment;
  let hmacKey: string | undefined;
  if (env.NOTIFICATION_WEBHOOK_SECRET_ID) {
    hmacKey = (await aws.secrets.getById(env.NOTIFICATION_WEBHOOK_SECRET_ID))?.token;
    if (!hmacKey) throw new Error('the notification webhook secret has no "token" key');
  }
  return createPromoter({
    secrets: aws.secrets,
    githubApiUrl: env.GITHUB_API_URL,
    webhook: env.NOTIFICATION_WEBHOOK_URL ? { url: env.NOTIFICATION_WEBHOOK_URL, hmacKey } : undefined,
    eventBus: env.NOTIFICATION_EVENT_BUS
      ? { client: new EventBridgeClient({}), name: env.NOTIFICATION_EVENT_BUS }
      : undefined,
    logger,
    // What the GitHub marker scan learnt, shared by every container (its own item in the table).
    markerScanTable: {
      client: aws.dynamo,
      tableName: env.TABLE_NAME,
      retentionDays: env.RETENTION_DAYS,
    },
  });
}
