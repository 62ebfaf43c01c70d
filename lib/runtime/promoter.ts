// Builds the promoter a deployment uses: GitHub pull requests always, notifications when at least one sink is
// configured. Used by the verifier's assembly (assemble-verifier.ts), so the Lambda and the local mode promote the
// same way.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Logger } from '../logging/logger.js';
import { StrategyPromoter, type Promoter } from '../promotion/index.js';
import { GitHubPullRequestPromoter, type CommitAuthor, type MarkerScanStore } from '../promotion/github/index.js';
import {
  EventBridgeSink,
  NotificationControllerSink,
  NotificationPromoter,
  WebhookSink,
  type NotificationSink,
} from '../promotion/notification/index.js';
import type { SecretSource } from '../secrets/port.js';

/** How this runtime promotes; everything but the Secrets and the logger, which the verifier's assembly passes. */
export interface PromotionSettings {
  /** GitHub API base for every repository (GitHub Enterprise, or the local simulation); default per repo URL. */
  githubApiUrl?: string;
  /** Notification webhook and the key that signs it like Flux's generic-hmac. */
  webhook?: { url: string; hmacKey?: string };
  /** A Flux notification-controller's event receiver, where Weave's notification strategy sent its events. */
  notificationController?: { url: string };
  /** Notification EventBridge bus. */
  eventBus?: { client: EventBridgeClient; name: string };
  /** Names this instance in notification events. */
  instance?: string;
  /**
   * Where the GitHub marker scan is kept across processes (the table: `dynamoTable(…).markerScans()`), so a new
   * Lambda container or a restarted `serve` reads only the blobs never seen before. Without it each process scans
   * every repository once.
   */
  markerScans?: MarkerScanStore;
  /** Spacing of GitHub writes; default Octokit's (1 s, 3 s before opening a pull request). Benchmarks set 0. */
  githubWriteIntervalMs?: number;
  /** The pull request commit's author; default Weave's `Promotion Server`. */
  commitAuthor?: CommitAuthor;
}

export interface PromoterConfig extends PromotionSettings {
  secrets: SecretSource;
  logger?: Logger;
}

export function createPromoter(config: PromoterConfig): Promoter {
  const sinks: NotificationSink[] = [];
  if (config.webhook) sinks.push(new WebhookSink({ url: config.webhook.url, hmacKey: config.webhook.hmacKey }));
  if (config.notificationController) {
    sinks.push(new NotificationControllerSink({ url: config.notificationController.url }));
  }
  if (config.eventBus)
    sinks.push(new EventBridgeSink({ client: config.eventBus.client, eventBusName: config.eventBus.name }));
  return new StrategyPromoter({
    pullRequest: new GitHubPullRequestPromoter({
      secrets: config.secrets,
      apiUrl: config.githubApiUrl,
      logger: config.logger,
      writeIntervalMs: config.githubWriteIntervalMs,
      markerScans: config.markerScans,
      commitAuthor: config.commitAuthor,
    }),
    // Without a sink there is nowhere to notify: the strategy reports itself unavailable, for good.
    notification: sinks.length > 0 ? new NotificationPromoter({ sinks, instance: config.instance }) : undefined,
  });
}
