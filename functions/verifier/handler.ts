// Verifier Lambda: consumes the queue (SQS event source with ReportBatchItemFailures). Thin: the clients are
// built once per warm container, the work is lib/verifier's.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EksAccess, KubernetesClusterReader } from '../../lib/clusters/index.js';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Promoter } from '../../lib/promotion/index.js';
import { consumeBatch } from '../../lib/queue/index.js';
import { awsDependencies } from '../../lib/runtime/aws.js';
import { fromPowertools } from '../../lib/runtime/logger.js';
import { createPromoter } from '../../lib/runtime/promoter.js';
import { createVerifier } from '../../lib/verifier/index.js';

const logger = fromPowertools(new Logger({ serviceName: 'verifier' }));
let clusters: KubernetesClusterReader | undefined;
let promoter: Promoter | undefined;

export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const aws = awsDependencies();
  clusters ??= new KubernetesClusterReader({
    getCluster: async (key) => (await aws.store.getCluster(key))?.document,
    secrets: aws.secrets,
    eksTokens: new EksAccess(),
  });
  promoter ??= await buildPromoter(aws);
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
  });
}
