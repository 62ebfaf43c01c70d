// Builds the promoter a deployment uses: GitHub pull requests always, notifications when at least one sink is
// configured. Shared by the verifier Lambda and the local mode, so both promote the same way.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { StrategyPromoter, type Promoter } from '../promotion/index.js';
import { GitHubPullRequestPromoter } from '../promotion/github/index.js';
import {
  EventBridgeSink,
  NotificationPromoter,
  WebhookSink,
  type NotificationSink,
} from '../promotion/notification/index.js';
import type { SecretSource } from '../secrets/port.js';
import { DynamoMarkerScans } from '../store/index.js';
import { tableContext } from '../store/dynamodb/table.js';
import type { StructuredLogger } from './logger.js';

export interface PromoterConfig {
  secrets: SecretSource;
  /** GitHub API base for every repository (GitHub Enterprise, or the local simulation); default per repo URL. */
  githubApiUrl?: string;
  /** Notification webhook and the key that signs it like Flux's generic-hmac. */
  webhook?: { url: string; hmacKey?: string };
  /** Notification EventBridge bus. */
  eventBus?: { client: EventBridgeClient; name: string };
  logger?: StructuredLogger;
  /** Names this instance in notification events. */
  instance?: string;
  /**
   * The table that keeps the GitHub marker scan across processes, so a new Lambda container or a restarted `serve`
   * reads only the blobs never seen before. Without it each process scans every repository once.
   */
  markerScanTable?: { client: DynamoDBClient; tableName: string; retentionDays?: number };
  /** Spacing of GitHub writes; default Octokit's (1 s, 3 s before opening a pull request). Benchmarks set 0. */
  githubWriteIntervalMs?: number;
}

export function createPromoter(config: PromoterConfig): Promoter {
  const sinks: NotificationSink[] = [];
  if (config.webhook) sinks.push(new WebhookSink({ url: config.webhook.url, hmacKey: config.webhook.hmacKey }));
  if (config.eventBus)
    sinks.push(new EventBridgeSink({ client: config.eventBus.client, eventBusName: config.eventBus.name }));
  return new StrategyPromoter({
    pullRequest: new GitHubPullRequestPromoter({
      secrets: config.secrets,
      apiUrl: config.githubApiUrl,
      logger: config.logger,
      writeIntervalMs: config.githubWriteIntervalMs,
      markerScans: config.markerScanTable
        ? new DynamoMarkerScans(
            tableContext(
              config.markerScanTable.client,
              config.markerScanTable.tableName,
              config.markerScanTable.retentionDays,
            ),
          )
        : undefined,
    }),
    // Without a sink there is nowhere to notify: the strategy reports itself unavailable, for good.
    notification: sinks.length > 0 ? new NotificationPromoter({ sinks, instance: config.instance }) : undefined,
  });
}
