// The verifier Lambda's assembly: an SQS batch (event source with ReportBatchItemFailures) in, the shared consumer
// and the verifier built by assembleVerifier (as the local mode builds it), the records to retry out.
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EksAccess } from '../clusters/eks.js';
import { functionMetrics } from '../observability/emf-metrics.js';
import { effectMetrics } from '../observability/effect-metrics.js';
import { countedDeadLetters, measuredMessages } from '../observability/message-metrics.js';
import { commitAuthorOf } from '../promotion/pull-request/commit-author.js';
import { backoffRedelivery, consumeBatch } from '../queue/index.js';
import { assembleVerifier } from './assemble-verifier.js';
import { awsDependencies, type AwsDependencies } from './aws-dependencies.js';
import { functionLogger } from './logger.js';
import { newEventBridgeClient, peopleNotifications } from './people-notifications.js';
import { perContainer } from './per-container.js';
import type { PromotionSettings } from './promoter.js';

export type VerifierHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function verifierHandler(): VerifierHandler {
  const logger = functionLogger('verifier');
  const metrics = functionMetrics('verifier');
  const verifierOf = perContainer(async () => {
    const aws = awsDependencies();
    return assembleVerifier({
      store: aws.table.store,
      queue: aws.queue,
      secrets: aws.secrets,
      logger,
      now: () => new Date(),
      eksTokens: new EksAccess(),
      promotion: await promotionSettings(aws),
      listeners: [effectMetrics({ metrics, audit: aws.table.store })],
      people: await peopleNotifications(aws, logger, newEventBridgeClient),
    });
  });
  return async (event, context) => {
    const aws = awsDependencies();
    const verifier = (await verifierOf())(context.awsRequestId);
    // A message that failed comes back after 30 s, 1, 2, 4, 8 min (DEFAULT_RETRY_DELAYS_SECONDS), then the DLQ.
    const redelivery = backoffRedelivery((receiptHandle, seconds) =>
      aws.queue.changeVisibility(receiptHandle, seconds),
    );
    try {
      return await consumeBatch(event, measuredMessages(verifier, metrics), {
        deadLetters: countedDeadLetters(aws.deadLetters, metrics),
        logger,
        redelivery,
      });
    } finally {
      metrics.flush();
    }
  };
}

/** How promotions reach GitHub and the notification sinks, from the function's environment. */
async function promotionSettings(aws: AwsDependencies): Promise<PromotionSettings> {
  const env = aws.environment;
  let hmacKey: string | undefined;
  if (env.NOTIFICATION_WEBHOOK_SECRET_ID) {
    hmacKey = (await aws.secrets.getById(env.NOTIFICATION_WEBHOOK_SECRET_ID))?.token;
    if (!hmacKey) throw new Error('the notification webhook secret has no "token" key');
  }
  return {
    githubApiUrl: env.GITHUB_API_URL,
    gitlabApiUrl: env.GITLAB_API_URL,
    bitbucketServerApiUrl: env.BITBUCKET_SERVER_API_URL,
    azureDevOpsApiUrl: env.AZURE_DEVOPS_API_URL,
    webhook: env.NOTIFICATION_WEBHOOK_URL ? { url: env.NOTIFICATION_WEBHOOK_URL, hmacKey } : undefined,
    notificationController: env.NOTIFICATION_CONTROLLER_URL ? { url: env.NOTIFICATION_CONTROLLER_URL } : undefined,
    eventBus: env.NOTIFICATION_EVENT_BUS
      ? { client: await newEventBridgeClient(), name: env.NOTIFICATION_EVENT_BUS }
      : undefined,
    commitAuthor: commitAuthorOf({ name: env.COMMIT_AUTHOR_NAME, email: env.COMMIT_AUTHOR_EMAIL }),
    // What the GitHub marker scan learnt, shared by every container (its own item in the table).
    markerScans: aws.table.markerScans(),
  };
}
