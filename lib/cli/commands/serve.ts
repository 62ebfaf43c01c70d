// pipelinectl serve: the local mode in the foreground. It applies the configuration, serves the receiver, runs the
// verifier and the poller, and prints one line when it is ready. SIGINT or SIGTERM stops it cleanly (exit 0); a
// second signal while it stops ends it at once (exit 130).
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  startLocalMode,
  type LocalMode,
  type LocalModeOptions,
  type LocalNotificationSinks,
} from '../../local/mode.js';
import { DEFAULT_DATA_DIR } from '../../local/data-dir.js';
import type { LocalPeopleNotifications } from '../../local/people-notifications.js';
import { parseNewsKinds } from '../../notify/index.js';
import { NEWS_KINDS } from '../../pipeline/model.js';
import { commitAuthorOf, commitAuthorProblems, type CommitAuthor } from '../../promotion/pull-request/commit-author.js';
import { createConsoleLogger } from '../../logging/console-logger.js';
import type { Logger } from '../../logging/logger.js';
import {
  parseDashboardPort,
  startDashboardBesideLocalMode,
  type DashboardBesideLocalMode,
} from '../operations/dashboard.js';
import { CliError } from '../errors.js';
import { DEFAULT_RECEIVER_PORT, parseDuration, parseHost, parseHttpUrl, parseObjectKey, parsePort } from '../flags.js';
import { GIT_API_FLAGS, type GitApiFlagValues } from '../git-api-flags.js';
import { httpUrl } from '../../util/http-url.js';
import { errorMessage } from '../../util/error-message.js';

interface ServeFlags extends GitApiFlagValues {
  config: string;
  port: string;
  host: string;
  dataDir: string;
  pollInterval: string;
  defaultCluster?: string;
  commitAuthorName?: string;
  commitAuthorEmail?: string;
  notificationWebhookUrl?: string;
  notificationWebhookSecret?: string;
  notificationControllerUrl?: string;
  notificationEventBus?: string;
  notifySlackSecret?: string;
  notifyWebhookSecret?: string;
  notifyEventBus?: string;
  notifyNews?: string;
  newStore?: boolean;
  newMasterKey?: boolean;
  dashboardPort?: string;
}

export type ServeOptions = Omit<LocalModeOptions, 'logger' | 'now' | 'secrets'> & {
  /** Serve the dashboard on 127.0.0.1 at this port (0: a free one), beside the receiver. */
  dashboardPort?: number;
};

const PROMOTION = "How promotions are carried out (the same settings as the verifier Lambda's environment):";

/**
 * The promotion settings, each also read from the environment variable the verifier Lambda reads (a flag on the
 * command line wins), so one set of variables configures both runtimes. The webhook's key is not a flag value: it
 * is a Secret of the configuration, named like the Lambda's NOTIFICATION_WEBHOOK_SECRET_ID names its secret.
 */
const PROMOTION_FLAGS = [
  ...GIT_API_FLAGS.map(({ flag, env, description }) => ({ flags: `${flag} <url>`, env, description })),
  {
    flags: '--commit-author-name <name>',
    env: 'COMMIT_AUTHOR_NAME',
    description: 'author of the pull request commits (default "Promotion Server", as Weave)',
  },
  {
    flags: '--commit-author-email <email>',
    env: 'COMMIT_AUTHOR_EMAIL',
    description: 'e-mail of that author (default promotion-server@pipeline-controller.invalid)',
  },
  {
    flags: '--notification-webhook-url <url>',
    env: 'NOTIFICATION_WEBHOOK_URL',
    description: 'notification sink: an HTTP endpoint that receives the Flux-format promotion event',
  },
  {
    flags: '--notification-webhook-secret <ns/name>',
    env: 'NOTIFICATION_WEBHOOK_SECRET',
    description: "a Secret of --config whose 'token' signs the webhook like Flux's generic-hmac (default: unsigned)",
  },
  {
    flags: '--notification-controller-url <url>',
    env: 'NOTIFICATION_CONTROLLER_URL',
    description:
      "notification sink: a Flux notification-controller's event receiver, as Weave used " +
      '(e.g. http://notification-controller.flux-system.svc.cluster.local./)',
  },
  {
    flags: '--notification-event-bus <name>',
    env: 'NOTIFICATION_EVENT_BUS',
    description: "notification sink: an EventBridge bus (name or ARN), with the AWS SDK's credentials and region",
  },
] as const;

const PEOPLE = 'Notifications to people (docs/notifications.md; each also read from its environment variable):';

/** Where people are told of approvals waiting, promotions opened or failed, regressions; the URLs are Secrets. */
const PEOPLE_FLAGS = [
  {
    flags: '--notify-slack-secret <ns/name>',
    env: 'NOTIFY_SLACK_SECRET',
    description: "a Secret of --config whose 'url' is a Slack incoming webhook",
  },
  {
    flags: '--notify-webhook-secret <ns/name>',
    env: 'NOTIFY_WEBHOOK_SECRET',
    description: "a Secret of --config whose 'url' receives the news as JSON, signed with its optional 'token'",
  },
  {
    flags: '--notify-event-bus <name>',
    env: 'NOTIFY_EVENT_BUS',
    description: "an EventBridge bus (name or ARN) for the news, with the AWS SDK's credentials and region",
  },
  {
    flags: '--notify-news <kinds>',
    env: 'NOTIFY_NEWS',
    description: `the kinds of news sent, comma-separated (default all: ${NEWS_KINDS.join(', ')})`,
  },
] as const;

/** How long after a clean stop the process may linger (an idle keep-alive socket) before it is ended. */
const EXIT_GRACE_MS = 3000;

export function register(program: Command): void {
  const command = program
    .command('serve')
    .description('Run the local mode: the receiver, the verifier and the poller in one process, on a data directory')
    .requiredOption(
      '--config <dir>',
      'configuration file or directory (Pipelines, GitopsClusters, Secrets), applied at start',
    )
    .option('--port <port>', 'receiver port; 0 picks a free one', DEFAULT_RECEIVER_PORT)
    .option('--host <host>', 'address the receiver listens on', '127.0.0.1')
    .option('--data-dir <dir>', 'data directory: store, master key, Secrets', DEFAULT_DATA_DIR)
    .option('--poll-interval <duration>', 'how often every cluster is polled (e.g. 30s, 5m, 1h)', '5m')
    .option('--default-cluster <ns/name>', 'GitopsCluster for targets without a clusterRef')
    .option(
      '--new-master-key',
      "make a new master key when master-key.json is missing next to a store (then re-issue every cluster's token " +
        'with pipelinectl flux-config)',
    )
    .option('--new-store', 'start with an empty store when dynamodb/ is missing next to a master key or Secrets')
    .option(
      '--dashboard-port <port>',
      "also serve the dashboard on 127.0.0.1 at this port (0 picks a free one), never the receiver's port",
    )
    .addHelpText(
      'after',
      '\nThe data directory is checked at each start: a damaged or incomplete one is refused with what to do\n' +
        '(restore a backup: pipelinectl backup, pipelinectl restore).\n' +
        'Without a notification sink, a promotion by the notification strategy fails for good (apply warns).',
    )
    .action(async (flags: ServeFlags) => {
      await serve(parseServeFlags(flags));
    });
  for (const flag of PROMOTION_FLAGS) {
    command.addOption(new Option(flag.flags, flag.description).env(flag.env).helpGroup(PROMOTION));
  }
  for (const flag of PEOPLE_FLAGS) {
    command.addOption(new Option(flag.flags, flag.description).env(flag.env).helpGroup(PEOPLE));
  }
}

export function parseServeFlags(flags: ServeFlags): ServeOptions {
  if (flags.config.trim() === '') throw new CliError('--config must name a file or directory');
  if (flags.dataDir.trim() === '') throw new CliError('--data-dir must name a directory');
  const port = parsePort(flags.port, '--port');
  return {
    configDir: flags.config,
    dataDir: flags.dataDir,
    port,
    host: parseHost(flags.host, '--host'),
    pollIntervalMs: parseDuration(flags.pollInterval, '--poll-interval', { minMs: 1000, maxMs: 24 * 3_600_000 }),
    defaultCluster:
      flags.defaultCluster === undefined ? undefined : parseObjectKey(flags.defaultCluster, '--default-cluster'),
    githubApiUrl: flags.githubApiUrl === undefined ? undefined : parseHttpUrl(flags.githubApiUrl, '--github-api-url'),
    ...optional('gitlabApiUrl', httpUrlFlag(flags.gitlabApiUrl, '--gitlab-api-url')),
    ...optional('bitbucketServerApiUrl', httpUrlFlag(flags.bitbucketServerApiUrl, '--bitbucket-server-api-url')),
    ...optional('azureDevOpsApiUrl', httpUrlFlag(flags.azureDevopsApiUrl, '--azure-devops-api-url')),
    ...optional('commitAuthor', parseCommitAuthor(flags)),
    ...optional('notification', parseNotificationSinks(flags)),
    ...optional('people', parsePeopleNotifications(flags)),
    ...(flags.newStore ? { newStore: true } : {}),
    ...(flags.newMasterKey ? { newMasterKey: true } : {}),
    ...optional(
      'dashboardPort',
      flags.dashboardPort === undefined ? undefined : parseDashboardPort(flags.dashboardPort, port),
    ),
  };
}

function parsePeopleNotifications(flags: ServeFlags): LocalPeopleNotifications | undefined {
  const people: LocalPeopleNotifications = {
    ...optional('slackSecret', secretFlag(flags.notifySlackSecret, '--notify-slack-secret')),
    ...optional('webhookSecret', secretFlag(flags.notifyWebhookSecret, '--notify-webhook-secret')),
    ...optional('eventBus', flags.notifyEventBus?.trim() || undefined),
  };
  if (flags.notifyNews !== undefined) {
    try {
      return { ...people, news: parseNewsKinds(flags.notifyNews, '--notify-news') };
    } catch (error) {
      throw new CliError(errorMessage(error));
    }
  }
  return Object.keys(people).length === 0 ? undefined : people;
}

function secretFlag(value: string | undefined, flag: string) {
  return value === undefined ? undefined : parseObjectKey(value, flag);
}

/** `{ [key]: value }`, or nothing when the value is undefined (so a parse without the flag has no such key). */
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function parseCommitAuthor(flags: ServeFlags): CommitAuthor | undefined {
  if (flags.commitAuthorName === undefined && flags.commitAuthorEmail === undefined) return undefined;
  const author = commitAuthorOf({ name: flags.commitAuthorName, email: flags.commitAuthorEmail });
  const [problem] = commitAuthorProblems(author);
  if (problem) {
    const flag = problem.includes('e-mail') ? '--commit-author-email' : '--commit-author-name';
    throw new CliError(`${flag}: ${problem}`);
  }
  return author;
}

function parseNotificationSinks(flags: ServeFlags): LocalNotificationSinks | undefined {
  const sinks: LocalNotificationSinks = {
    ...optional(
      'webhookUrl',
      flags.notificationWebhookUrl === undefined
        ? undefined
        : parseSinkUrl(flags.notificationWebhookUrl, '--notification-webhook-url'),
    ),
    ...optional(
      'webhookSecret',
      flags.notificationWebhookSecret === undefined
        ? undefined
        : parseObjectKey(flags.notificationWebhookSecret, '--notification-webhook-secret'),
    ),
    ...optional(
      'notificationControllerUrl',
      flags.notificationControllerUrl === undefined
        ? undefined
        : parseSinkUrl(flags.notificationControllerUrl, '--notification-controller-url'),
    ),
    ...optional('eventBus', flags.notificationEventBus?.trim() || undefined),
  };
  if (sinks.webhookSecret && !sinks.webhookUrl) {
    throw new CliError('--notification-webhook-secret signs the webhook: it needs --notification-webhook-url');
  }
  return Object.keys(sinks).length === 0 ? undefined : sinks;
}

/** A sink's http(s) URL exactly as given (its path may matter to the endpoint), without credentials in it. */
function parseSinkUrl(text: string, flag: string): string {
  const value = text.trim();
  const url = httpUrl(value);
  if (!url) throw new CliError(`${flag} must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  if (url.username || url.password) {
    throw new CliError(`${flag} must not hold credentials: sign the webhook with --notification-webhook-secret`);
  }
  return value;
}

export async function serve(options: ServeOptions, logger: Logger = createConsoleLogger()): Promise<void> {
  const { dashboardPort, ...localMode } = options;
  const stopSignal = listenForStop(logger);
  let mode: LocalMode;
  let dashboard: DashboardBesideLocalMode | undefined;
  try {
    // Listening before the local mode starts, so that a port in use is refused before anything else is.
    if (dashboardPort !== undefined) {
      dashboard = await startDashboardBesideLocalMode(options.dataDir, dashboardPort, logger);
    }
    mode = await startLocalMode({ ...localMode, logger });
    await dashboard?.attach();
  } catch (error) {
    await dashboard?.close();
    stopSignal.dispose();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `port ${options.port} on ${options.host ?? '127.0.0.1'} is in use: pick another with --port (0 picks a free one)`,
      );
    }
    throw error;
  }
  announceReady(mode, options, logger, dashboard);
  const signal = await stopSignal.received;
  logger.info('stopping', { signal });
  try {
    await dashboard?.close();
    await mode.stop();
  } finally {
    stopSignal.dispose();
  }
  logger.info('stopped');
  // Everything is closed; should a library still hold an idle socket, do not keep the terminal waiting for it.
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}

/**
 * One line: readable on a terminal, a JSON line (`message: "ready"`) otherwise; the dashboard's URL when served. The
 * terminal is its owner's and gets the URL with the token; a JSON line goes to a log, which gets the URL without it
 * and the file (only the owner can read) that holds the URL with it.
 */
function announceReady(
  mode: LocalMode,
  options: ServeOptions,
  logger: Logger,
  dashboard: DashboardBesideLocalMode | undefined,
): void {
  const dataDir = resolve(options.dataDir);
  if (process.stdout.isTTY) {
    process.stdout.write(`pipelinectl serve: receiver ${mode.receiverUrl}, data directory ${dataDir} (Ctrl-C stops)\n`);
    if (dashboard) process.stdout.write(`dashboard: ${dashboard.ownerUrl}\n`);
  } else {
    logger.info('ready', {
      receiverUrl: mode.receiverUrl,
      dataDir,
      pid: process.pid,
      ...optional('dashboardUrl', dashboard?.url),
      ...optional('dashboardUrlFile', dashboard && resolve(dashboard.ownerUrlFile)),
    });
  }
}

/** The first SIGINT or SIGTERM resolves `received`; a second one ends the process at once. */
function listenForStop(logger: Logger): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let first: NodeJS.Signals | undefined;
  let resolveReceived: (signal: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolvePromise) => {
    resolveReceived = resolvePromise;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (first) {
      logger.warn('second signal while stopping; exiting now', { signal });
      process.exit(130);
    }
    first = signal;
    resolveReceived(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    received,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function httpUrlFlag(value: string | undefined, flag: string): string | undefined {
  return value === undefined ? undefined : parseHttpUrl(value, flag);
}
