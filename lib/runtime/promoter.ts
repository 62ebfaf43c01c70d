// Builds the promoter a deployment uses: pull requests on every Git host (each host's client loaded on the first
// promotion to it), notifications when at least one sink is configured. Used by the verifier's assembly
// (assemble-verifier.ts), so the Lambda and the local mode promote the same way.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Logger } from '../logging/logger.js';
import { StrategyPromoter, type Promoter } from '../promotion/index.js';
import { deferredAzureDevOpsHost } from '../promotion/azure-devops/deferred-host.js';
import { deferredBitbucketServerHost } from '../promotion/bitbucket-server/deferred-host.js';
import { deferredGitHubHost } from '../promotion/github/deferred-host.js';
import { deferredGitLabHost } from '../promotion/gitlab/deferred-host.js';
import type {
  CommitAuthor,
  GitHost,
  MarkerScanStore,
  PullRequestPromoterOptions,
} from '../promotion/pull-request/index.js';
import { deferredPromoter } from '../promotion/deferred-promoter.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import {
  EventBridgeSink,
  NotificationControllerSink,
  NotificationPromoter,
  WebhookSink,
  type NotificationSink,
} from '../promotion/notification-strategy/index.js';
import type { SecretSource } from '../secrets/port.js';
import { ExternalServicePromoter, type ServedInputStore } from '../promotion/external-service/promoter.js';

/** How this runtime promotes; everything but the Secrets and the logger, which the verifier's assembly passes. */
export interface PromotionSettings {
  /** GitHub API base for every repository (GitHub Enterprise, or the local simulation); default per repo URL. */
  githubApiUrl?: string;
  /** GitLab API base (`https://host/api/v4`) for every repository; default per repo URL. */
  gitlabApiUrl?: string;
  /** Bitbucket Server base (`https://host[/context]`, below which `/rest/api/1.0` is served); default per repo URL. */
  bitbucketServerApiUrl?: string;
  /** Azure DevOps collection URL (`https://dev.azure.com/org`); default per repo URL. */
  azureDevOpsApiUrl?: string;
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
  /** Where the `external-service` strategy records what it serves (the store); without it that strategy is absent. */
  servedInputs?: ServedInputStore;
  now?: () => Date;
  logger?: Logger;
  /** The Git hosts (`createGitHosts`), when shared with a ConfigSource's sync; default a set of its own. */
  hosts?: readonly GitHost[];
}

/** Every Git host, each client loaded on its first use: a deployment uses one or two of them. */
export function createGitHosts(config: Pick<PromoterConfig, 'logger' | 'githubWriteIntervalMs'>): GitHost[] {
  return [
    deferredGitHubHost({ logger: config.logger, writeIntervalMs: config.githubWriteIntervalMs }),
    deferredGitLabHost({ logger: config.logger }),
    deferredBitbucketServerHost({ logger: config.logger }),
    deferredAzureDevOpsHost({ logger: config.logger }),
  ];
}

/** The API bases the settings put in place of those derived from repository URLs. */
export function gitApiUrlsOf(settings: PromotionSettings): Partial<Record<GitProviderType, string>> {
  return withoutUndefined({
    github: settings.githubApiUrl,
    gitlab: settings.gitlabApiUrl,
    'bitbucket-server': settings.bitbucketServerApiUrl,
    'azure-devops': settings.azureDevOpsApiUrl,
  });
}

export function createPromoter(config: PromoterConfig): Promoter {
  const pullRequestOptions: PullRequestPromoterOptions = {
    secrets: config.secrets,
    hosts: config.hosts ?? createGitHosts(config),
    apiUrls: gitApiUrlsOf(config),
    logger: config.logger,
    markerScans: config.markerScans,
    commitAuthor: config.commitAuthor,
  };
  const sinks: NotificationSink[] = [];
  if (config.webhook) sinks.push(new WebhookSink({ url: config.webhook.url, hmacKey: config.webhook.hmacKey }));
  if (config.notificationController) {
    sinks.push(new NotificationControllerSink({ url: config.notificationController.url }));
  }
  if (config.eventBus)
    sinks.push(new EventBridgeSink({ client: config.eventBus.client, eventBusName: config.eventBus.name }));
  return new StrategyPromoter({
    // Loaded on the first promotion (deferred-promoter.ts), its options read now.
    pullRequest: deferredPromoter('pull-request', async () => {
      const { PullRequestPromoter } = await import('../promotion/pull-request/promoter.js');
      return new PullRequestPromoter(pullRequestOptions);
    }),
    // Without a sink there is nowhere to notify: the strategy reports itself unavailable, for good.
    notification: sinks.length > 0 ? new NotificationPromoter({ sinks, instance: config.instance }) : undefined,
    externalService: config.servedInputs && new ExternalServicePromoter(config.servedInputs, config.now),
  });
}

function withoutUndefined<K extends string>(record: Record<K, string | undefined>): Partial<Record<K, string>> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<
    Record<K, string>
  >;
}
