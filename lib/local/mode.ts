// The local mode (`pipelinectl serve`): the receiver, the verifier and the poller in one process, on the same lib/
// code as the Lambdas, with dynalite on disk and the embedded queue.
//
// Start: dynalite on the data directory, checked first and refused when damaged (dynamo.ts; its LevelDB lock makes
// a second serve fail), the configuration applied
// (clusters and pipelines to the store, Secrets to secrets.json), the master key, the promotions a killed serve left
// in the middle released for a retry (interrupted.ts), the embedded queue consumed by the verifier (promoting with the
// Lambda's settings: GitHub API, commit author, notification sinks), the receiver (plus the loopback-only message
// route of the CLI) over node:http, the poller, and finally serve.json, which tells the other commands where to reach
// it and which notification sinks it has (apply warns when a notification pipeline has none). Stop undoes it in order; the store keeps every status, approval and
// promotion record, the queue nothing (the first poll after a restart re-checks all).
import { userInfo } from 'node:os';
import { localUserIdentity } from '../pipeline/approver-identity.js';
import { handleRequest, startHttpServer, type HttpHandler, type RunningHttpServer } from '../http/index.js';
import { objectKeyString, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import { enqueuePolls } from '../poller/poller.js';
import { EmbeddedQueue } from '../queue/index.js';
import type { Logger } from '../logging/logger.js';
import type { CommitAuthor } from '../promotion/pull-request/commit-author.js';
import { assembleVerifier } from '../runtime/assemble-verifier.js';
import { DEFAULT_SETTINGS } from '../verifier/index.js';
import { notificationSinkKinds, type NotificationSinkKind } from '../runtime/notification-sinks.js';
import { newEventBridgeClient } from '../runtime/people-notifications.js';
import type { PromotionSettings } from '../runtime/promoter.js';
import type { MasterKeys } from '../secrets/master-keys.js';
import { StaticSecretSource, type SecretSource } from '../secrets/port.js';
import { dynamoTable, type DynamoTable, type Store } from '../store/index.js';
import { applyLocalConfiguration, type AppliedConfiguration } from './configuration.js';
import { releaseInterruptedPromotions } from './interrupted.js';
import { loadOrCreateMasterKeys, readServeInfo, removeServeInfo, writeServeInfo } from './data-dir.js';
import { DataDirError } from './data-dir-errors.js';
import { startLocalDynamo, type LocalDynamo, type LocalDynamoOptions } from './dynamo.js';
import { handleLocalMessage, LOCAL_MESSAGES_PATH } from './messages-route.js';
import { peopleNotifications, type LocalPeopleNotifications } from './people-notifications.js';
import { startPolling, type Polling } from './polling.js';
import { DataDirSecretSource, LayeredSecretSource } from './secrets.js';
import { errorMessage } from '../util/error-message.js';

export interface LocalModeOptions {
  /** A file or directory of configuration (Pipelines, GitopsClusters, Secrets), applied at start. */
  configDir: string;
  /** Default `.data`. */
  dataDir: string;
  /** The receiver's port; 0 picks a free one. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  pollIntervalMs: number;
  defaultCluster?: ObjectKey;
  /** GitHub API base for every pull request (the demo's simulated GitHub, or GitHub Enterprise). */
  githubApiUrl?: string;
  /** GitLab, Bitbucket Server and Azure DevOps API bases, as the verifier Lambda's variables (docs/deploying.md). */
  gitlabApiUrl?: string;
  bitbucketServerApiUrl?: string;
  azureDevOpsApiUrl?: string;
  /** Secrets layered over the configuration's, e.g. the demo's simulated kubeconfigs and GitHub token. */
  secrets?: readonly { key: ObjectKey; values: Record<string, string> }[];
  /** Where notification promotions go, as on AWS (docs/notifications.md); none: they fail for good. */
  notification?: LocalNotificationSinks;
  /** Notifications to people: Slack, a signed webhook, EventBridge (docs/notifications.md). */
  people?: LocalPeopleNotifications;
  /** The pull request commit's author; default Weave's `Promotion Server`. */
  commitAuthor?: CommitAuthor;
  logger: Logger;
  now?: () => Date;
  /**
   * The embedded queue's visibility timeout for a received message. Default 30. A failed message comes back after
   * the queue's backoff instead (30 s, 1, 2, 4, 8 min, as on AWS: DEFAULT_RETRY_DELAYS_SECONDS).
   */
  visibilityTimeoutSeconds?: number;
  /** Spacing of GitHub writes; default Octokit's, as on AWS. The event-to-PR benchmark sets 0 to time the rest. */
  githubWriteIntervalMs?: number;
  /** Start with an empty store when dynamodb/ is missing next to a master key or Secrets (`--new-store`). */
  newStore?: boolean;
  /** Make a new master key when master-key.json is missing next to a store (`--new-master-key`). */
  newMasterKey?: boolean;
}

/** The notification sinks of the local mode, as the Lambda's environment names them. */
export interface LocalNotificationSinks {
  /** An HTTP endpoint that receives the Flux-format event (`NOTIFICATION_WEBHOOK_URL`). */
  webhookUrl?: string;
  /** A Secret of the configuration whose `token` signs that POST like Flux's generic-hmac (needs `webhookUrl`). */
  webhookSecret?: ObjectKey;
  /** A Flux notification-controller's event receiver, where Weave sent its events (`NOTIFICATION_CONTROLLER_URL`). */
  notificationControllerUrl?: string;
  /** An EventBridge bus, name or ARN, reached with the AWS SDK's usual credentials and region. */
  eventBus?: string;
}

export interface LocalMode {
  /** e.g. `http://127.0.0.1:8080`. */
  receiverUrl: string;
  store: Store;
  masterKeys: MasterKeys;
  /** Enqueues a poll of every (cluster, kind) in use, as the interval does. */
  poll(): Promise<void>;
  /** Stops taking requests, lets in-flight work finish, stops the store, removes serve.json. */
  stop(): Promise<void>;
}

/** The longest interval setInterval takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function startLocalMode(options: LocalModeOptions): Promise<LocalMode> {
  const { dataDir, logger } = options;
  const now = options.now ?? (() => new Date());
  checkPollInterval(options.pollIntervalMs);

  const parts: Parts = {};
  const stop = once(() => stopParts(parts, dataDir, logger));
  try {
    const { dynamo, table } = await openStore(options, parts);
    const { store } = table;
    const applied = await applyConfiguration(options, store, now);
    const masterKeys = await loadOrCreateMasterKeys(dataDir);
    // Unique per run, also for several runs in one process: a record held by any other id was left by a stopped run.
    const workerId = `local:${process.pid}:${Date.now()}`;
    // Before the queue and the poller start, so that the first poll resumes what a killed serve left in the middle.
    await releaseInterruptedPromotions({ store, workerId, logger, now });
    const secrets = layeredSecrets(options);
    const queue = createQueue(options, parts);
    const promotion = await promotionSettings(options, table, secrets, parts);
    await startVerifier({ options, store, queue, secrets, promotion, workerId, now }, parts);
    const server = await startReceiverServer({ options, store, queue, secrets, masterKeys, now }, parts);
    const receiverUrl = reachableUrl(server.url);
    const poll = startPoller(options, store, queue, parts);
    const notificationSinks = notificationSinkKinds(promotion);
    await publishServeInfo({ dataDir, dynamo, receiverUrl, notificationSinks, promotion, now }, parts);
    reportStarted(options, { dynamo, server, receiverUrl, applied, notificationSinks });
    return { receiverUrl, store, masterKeys, poll, stop };
  } catch (error) {
    await stop().catch(() => undefined); // the start failure is the error worth reporting
    throw error;
  }
}

/** What the steps after the store share. */
interface Running {
  options: LocalModeOptions;
  store: Store;
  queue: EmbeddedQueue;
  secrets: SecretSource;
  now: () => Date;
}

/** dynalite on the data directory (recorded in `parts`), and the table on it. */
async function openStore(
  options: LocalModeOptions,
  parts: Parts,
): Promise<{ dynamo: LocalDynamo; table: DynamoTable }> {
  const dynamo = await startDynamo(options.dataDir, {
    logger: options.logger,
    newStore: options.newStore,
    newMasterKey: options.newMasterKey,
  });
  parts.dynamo = dynamo;
  return { dynamo, table: dynamoTable({ client: dynamo.client, tableName: dynamo.tableName }) };
}

/** Clusters and pipelines to the store, Secrets to secrets.json. */
function applyConfiguration(options: LocalModeOptions, store: Store, now: () => Date): Promise<AppliedConfiguration> {
  return applyLocalConfiguration({
    configDir: options.configDir,
    dataDir: options.dataDir,
    defaultCluster: options.defaultCluster,
    store,
    extraSecrets: options.secrets,
    logger: options.logger,
    now,
  });
}

/** The Secrets given by the caller win over the data directory's, which is re-read whenever it changes. */
function layeredSecrets(options: LocalModeOptions): SecretSource {
  return new LayeredSecretSource([
    new StaticSecretSource(options.secrets ?? []),
    new DataDirSecretSource(options.dataDir),
  ]);
}

/** The embedded queue (recorded in `parts`), not consumed yet. */
function createQueue(options: LocalModeOptions, parts: Parts): EmbeddedQueue {
  const queue = new EmbeddedQueue({
    logger: options.logger,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
  });
  parts.queue = queue;
  return queue;
}

/** The Lambda's promotion settings, from the options; an EventBridge client it makes is recorded in `parts`. */
async function promotionSettings(
  options: LocalModeOptions,
  table: DynamoTable,
  secrets: SecretSource,
  parts: Parts,
): Promise<PromotionSettings> {
  const promotion: PromotionSettings = {
    ...(await notificationSettings(options.notification ?? {}, secrets)),
    githubApiUrl: options.githubApiUrl,
    gitlabApiUrl: options.gitlabApiUrl,
    bitbucketServerApiUrl: options.bitbucketServerApiUrl,
    azureDevOpsApiUrl: options.azureDevOpsApiUrl,
    instance: 'local',
    markerScans: table.markerScans(),
    githubWriteIntervalMs: options.githubWriteIntervalMs,
    commitAuthor: options.commitAuthor,
  };
  parts.eventBridge = promotion.eventBus?.client;
  return promotion;
}

/**
 * The verifier consuming the queue, assembled as the verifier Lambda assembles it; unlike there, no EKS tokens (no
 * AWS identity is assumed here), and one worker id for the whole run where the Lambda has one per invocation.
 */
async function startVerifier(
  {
    options,
    store,
    queue,
    secrets,
    promotion,
    workerId,
    now,
  }: Running & { promotion: PromotionSettings; workerId: string },
  parts: Parts,
): Promise<void> {
  const { logger } = options;
  const people = await peopleNotifications(options.people ?? {}, {
    secrets,
    store,
    logger,
    now,
    dataDir: options.dataDir,
    // One client for both, destroyed at stop.
    eventBridge: async () => {
      const client = promotion.eventBus?.client ?? (await newEventBridgeClient());
      parts.eventBridge = client;
      return client;
    },
  });
  const verifierOf = assembleVerifier({
    store,
    queue,
    secrets,
    logger,
    now,
    promotion,
    people,
    settings: { pollDecisionDelaySeconds: pollDecisionDelaySeconds(options.pollIntervalMs) },
  });
  queue.start(verifierOf(workerId));
}

/** The receiver, plus the loopback-only message route of the CLI, over node:http (recorded in `parts`). */
async function startReceiverServer(
  { options, store, queue, secrets, masterKeys, now }: Running & { masterKeys: MasterKeys },
  parts: Parts,
): Promise<RunningHttpServer> {
  const { logger } = options;
  const handle: HttpHandler = (request) =>
    request.path === LOCAL_MESSAGES_PATH
      ? handleLocalMessage(request, { queue, masterKey: () => Promise.resolve(masterKeys.current), logger })
      : handleRequest(request, {
          store,
          queue,
          secrets,
          masterKeys: () => Promise.resolve(masterKeys),
          logger,
          now,
          // The data directory, and with it every webhook key, is its owner's: the user serve runs as.
          webhookKeyHolder: localUserIdentity(userInfo().username),
        });
  const server = await startHttpServer(handle, {
    port: options.port,
    host: options.host ?? '127.0.0.1',
    // The server logs what it answers itself (a 413 before the handler, a body the client abandoned).
    logger,
    onError: (error) => logger.error('HTTP handler failed', { error: errorMessage(error) }),
  });
  parts.server = server;
  return server;
}

/** The poll timer (recorded in `parts`); the poll it runs, which `LocalMode.poll` runs too. */
function startPoller(options: LocalModeOptions, store: Store, queue: EmbeddedQueue, parts: Parts): () => Promise<void> {
  // The first poll decides every pipeline: what a stopped run had queued (a decision after a recorded change, a
  // re-check, a retry) is lost with it, and SQS would have redelivered it.
  let resumed = false;
  const poll = async (): Promise<void> => {
    const { pairs, messages } = await enqueuePolls({
      store,
      queue,
      ...(resumed ? {} : { pipelineCheck: 'resume' as const }),
    });
    resumed = true;
    options.logger.debug('enqueued polls', { polls: pairs, messages });
  };
  parts.polling = startPolling(poll, options.pollIntervalMs, options.logger);
  return poll;
}

/** serve.json (recorded in `parts`): where the other commands reach this serve, and which sinks it has. */
async function publishServeInfo(
  serve: {
    dataDir: string;
    dynamo: LocalDynamo;
    receiverUrl: string;
    notificationSinks: NotificationSinkKind[];
    promotion: PromotionSettings;
    now: () => Date;
  },
  parts: Parts,
): Promise<void> {
  await writeServeInfo(serve.dataDir, {
    pid: process.pid,
    dynamoEndpoint: serve.dynamo.endpoint,
    dynamoAccessKey: serve.dynamo.accessKey,
    receiverUrl: serve.receiverUrl,
    startedAt: serve.now().toISOString(),
    notificationSinks: serve.notificationSinks,
    gitApiUrls: gitApiUrlsOf(serve.promotion),
  });
  parts.serveInfoWritten = true;
}

/** The start in the log, and a warning when a pipeline is promoted by notification with no sink to carry it. */
function reportStarted(
  options: LocalModeOptions,
  started: {
    dynamo: LocalDynamo;
    server: RunningHttpServer;
    receiverUrl: string;
    applied: AppliedConfiguration;
    notificationSinks: NotificationSinkKind[];
  },
): void {
  const { logger } = options;
  const { receiverUrl, applied, notificationSinks } = started;
  logger.debug('local mode started', {
    receiverUrl,
    listening: started.server.url,
    dataDir: options.dataDir,
    dynamoEndpoint: started.dynamo.endpoint,
    pipelines: applied.pipelines.length,
    clusters: applied.clusters.length,
    pollIntervalMs: options.pollIntervalMs,
  });
  if (notificationSinks.length === 0 && applied.configuration.pipelines.some(usesNotification)) {
    logger.warn(
      'a pipeline is promoted by notification, but no notification sink is configured: its promotions will fail ' +
        '(start serve with --notification-webhook-url, --notification-controller-url or --notification-event-bus)',
    );
  }
}

/**
 * The sinks as the promoter takes them: the webhook's key read from its Secret (the configuration has been applied,
 * so a Secret it holds is there), and the EventBridge client made only when a bus is named.
 */
async function notificationSettings(
  sinks: LocalNotificationSinks,
  secrets: SecretSource,
): Promise<Pick<PromotionSettings, 'webhook' | 'notificationController' | 'eventBus'>> {
  let hmacKey: string | undefined;
  if (sinks.webhookSecret) {
    const name = objectKeyString(sinks.webhookSecret);
    hmacKey = (await secrets.getSecret(sinks.webhookSecret))?.token;
    if (!hmacKey) {
      throw new Error(`the notification webhook's Secret ${name} is not in the configuration, or has no "token" key`);
    }
  }
  let eventBus: PromotionSettings['eventBus'];
  if (sinks.eventBus) {
    eventBus = { client: await newEventBridgeClient(), name: sinks.eventBus };
  }
  return {
    webhook: sinks.webhookUrl === undefined ? undefined : { url: sinks.webhookUrl, hmacKey },
    notificationController:
      sinks.notificationControllerUrl === undefined ? undefined : { url: sinks.notificationControllerUrl },
    eventBus,
  };
}

/** Whether a later environment (the first is never promoted into) is promoted by the notification strategy. */
function usesNotification(pipeline: Pipeline): boolean {
  return pipeline.environments.slice(1).some((env) => {
    const strategy = env.promotion?.strategy;
    return strategy?.notification !== undefined && strategy['pull-request'] === undefined;
  });
}

/**
 * How long a poll's changes wait for their shared decision (docs/architecture.md, "Deciding after a poll"): the
 * verifier's 5 s, but well within the poll interval, so that a change a poll found is acted on before the next poll
 * (a short interval, as in a demo or a test, decides within the poll message).
 */
export function pollDecisionDelaySeconds(pollIntervalMs: number): number {
  return Math.min(DEFAULT_SETTINGS.pollDecisionDelaySeconds, Math.floor(pollIntervalMs / 1000 / 4));
}

function checkPollInterval(ms: number): void {
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_TIMER_MS) {
    throw new RangeError(`pollIntervalMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`);
  }
}

/** What has been started so far, so that a failed start and `stop` undo exactly that. */
interface Parts {
  dynamo?: LocalDynamo;
  queue?: EmbeddedQueue;
  server?: RunningHttpServer;
  polling?: Polling;
  /** The notification sink's EventBridge client, when a bus is configured. */
  eventBridge?: { destroy(): void };
  serveInfoWritten?: boolean;
}

/** dynalite, with the error naming the running serve when another process holds the data directory. */
async function startDynamo(dataDir: string, options: LocalDynamoOptions): Promise<LocalDynamo> {
  try {
    return await startLocalDynamo(dataDir, options);
  } catch (error) {
    if (error instanceof DataDirError) throw error; // the message already says what is wrong and what to do
    const serve = await readServeInfo(dataDir).catch(() => undefined);
    if (serve && serve.pid !== process.pid) {
      throw new Error(
        `the data directory ${dataDir} is in use by pipelinectl serve (pid ${serve.pid}, receiver ${serve.receiverUrl})`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Stops, in order: the HTTP server, the poll timer, the queue (in-flight work finishes), the EventBridge client,
 * dynalite, serve.json.
 */
async function stopParts(parts: Parts, dataDir: string, logger: Logger): Promise<void> {
  const { server, polling, queue, dynamo, eventBridge } = parts;
  const steps: [string, (() => Promise<void>) | undefined][] = [
    ['the HTTP server', server && (() => server.close())],
    ['the poller', polling && (() => polling.stop())],
    ['the queue', queue && (() => queue.stop())],
    ['the EventBridge client', eventBridge && (() => Promise.resolve(eventBridge.destroy()))],
    ['the store', dynamo && (() => dynamo.stop())],
    ['serve.json', parts.serveInfoWritten ? () => removeServeInfo(dataDir, process.pid) : undefined],
  ];
  const failed: string[] = [];
  for (const [what, step] of steps) {
    if (!step) continue;
    try {
      await step();
    } catch (error) {
      logger.error(`stopping ${what} failed`, { error: errorMessage(error) });
      failed.push(what);
    }
  }
  if (failed.length > 0) throw new Error(`stopping ${failed.join(', ')} failed (see the log)`);
}

/** The URL other local processes reach the server on: a wildcard address is reached through loopback. */
function reachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

/** Runs `work` once; later calls get the same promise. */
function once(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= work());
}

/** The API base URLs of the promotion settings, by Git host type, for serve.json (those set only). */
function gitApiUrlsOf(promotion: PromotionSettings): Partial<Record<GitProviderType, string>> {
  const urls: Partial<Record<GitProviderType, string>> = {};
  if (promotion.githubApiUrl !== undefined) urls.github = promotion.githubApiUrl;
  if (promotion.gitlabApiUrl !== undefined) urls.gitlab = promotion.gitlabApiUrl;
  if (promotion.bitbucketServerApiUrl !== undefined) urls['bitbucket-server'] = promotion.bitbucketServerApiUrl;
  if (promotion.azureDevOpsApiUrl !== undefined) urls['azure-devops'] = promotion.azureDevOpsApiUrl;
  return urls;
}
