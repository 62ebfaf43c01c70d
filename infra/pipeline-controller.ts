// The PipelineController L3 construct: one table, a queue and its DLQ (or the user's own), three functions (receiver
// behind a function URL, verifier on the queue, poller on a schedule), the generated master HMAC key, alarms, a
// CloudWatch dashboard, and IAM policies that give each function only the actions and resources its code uses; grants
// and metrics for the people who operate it. infra/README.md documents the props; infra/stack.ts puts the construct
// in a stack with outputs.
import type { EventRejection } from '../lib/http/event-outcome.js';
import { METRIC_NAMESPACE, type MetricName } from '../lib/observability/metric-names.js';
import type { PromotionFailureKind } from '../lib/promotion/failure-kind.js';
import { commitAuthorProblems, type CommitAuthor } from '../lib/promotion/pull-request/commit-author.js';
import { notificationSinkKinds, type NotificationSinkKind } from '../lib/runtime/notification-sinks.js';
import type { NewsKind } from '../lib/pipeline/model.js';
import { DEFAULT_SECRETS_PREFIX } from '../lib/secrets/prefix.js';
import { RECEIVER_READABLE_PURPOSES, SECRET_PURPOSE_TAG } from '../lib/secrets/tags.js';
import { Aws, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_RETENTION_DAYS, TABLE_SCHEMA } from '../lib/store/index.js';
import { addAlarms, type ControllerAlarms } from './alarms.js';
import type { FunctionName } from './bundling.js';
import { addDashboard } from './dashboard.js';
import { allowCloudWatchLogs, distinctKeys, KEY_READ_ACTIONS, KEY_USE_ACTIONS } from './encryption-key.js';
import { handlerFunction } from './function-code.js';
import { allowedLogRetentions, isLogRetention } from './log-retention.js';
import { ControllerMetrics } from './metrics.js';
import { acknowledgeFindings } from './nag.js';
import { operatorActions, type OperatorLevel, type OperatorResource } from './operator-access.js';
import { publishOutputs } from './outputs.js';
import { queueProblems, tableProblems } from './own-resources.js';
import { isHttpUrl } from '../lib/util/http-url.js';

/**
 * The tag a Pipeline's webhook HMAC Secret (`spec.promotion.strategy.secretRef`, key `hmac-key`) carries, one of the
 * two that let the receiver read a configuration Secret (`RECEIVER_READABLE_SECRET_TAG`).
 */
export const WEBHOOK_HMAC_SECRET_TAG = { key: SECRET_PURPOSE_TAG, value: 'webhook-hmac' } as const;

/**
 * The tag values that let the receiver read a configuration Secret. `pipelinectl apply` puts them
 * (lib/secrets/tags.ts) only on a Pipeline's webhook HMAC Secret (`webhook-hmac`) and on a ConfigSource's Secret
 * (`config-source`: its read token and the push webhooks' `webhook-secret`, a Secret that may serve nothing else); a
 * kubeconfig or pull-request Git token Secret never carries either, so the receiver cannot read those.
 */
export const RECEIVER_READABLE_SECRET_TAG = { key: SECRET_PURPOSE_TAG, values: RECEIVER_READABLE_PURPOSES } as const;

export const DEFAULTS = {
  pollSchedule: 'rate(5 minutes)',
  secretsPrefix: DEFAULT_SECRETS_PREFIX,
  retentionDays: DEFAULT_RETENTION_DAYS,
  receiverReservedConcurrency: 20,
  verifierMaxConcurrency: 10,
  logRetention: logs.RetentionDays.ONE_MONTH,
  removalPolicy: RemovalPolicy.RETAIN,
  /** The verifier's timeout; the queue's visibility timeout is 6× this (AWS's advice for SQS event sources). */
  verifierTimeout: Duration.seconds(60),
  maxReceiveCount: 5,
  /** MB per function: the verifier holds the Kubernetes and Git clients and reads whole lists of apps. */
  memorySize: { receiver: 512, verifier: 1024, poller: 256 },
  /** The bundles are plain JavaScript, no native module (test/infra/architecture.test.ts): Graviton runs them. */
  architecture: lambda.Architecture.ARM_64,
  tracing: false,
} as const;

/** What Lambda accepts as a function's memory, in MB. */
export const MEMORY_SIZE_RANGE = { min: 128, max: 10240 } as const;
/** The SQS event source's maximum concurrency, as Lambda accepts it. */
export const MAX_CONCURRENCY_RANGE = { min: 2, max: 1000 } as const;

/** Memory in MB per function (128–10240). */
export interface FunctionMemorySizes {
  /** @default 512 */
  readonly receiver?: number;
  /** @default 1024 */
  readonly verifier?: number;
  /** @default 256 */
  readonly poller?: number;
}

/** Where the notification strategy delivers (all optional; docs/notifications.md). */
export interface NotificationSinkProps {
  /** An HTTP endpoint that receives a Flux-format event (env `NOTIFICATION_WEBHOOK_URL`). @default none */
  readonly webhookUrl?: string;
  /** A JSON secret whose `token` signs that POST like Flux's generic-hmac; the verifier may read it. @default none */
  readonly webhookSecret?: secretsmanager.ISecret;
  /** An EventBridge bus; the verifier (only) gets `events:PutEvents` on it. @default none */
  readonly eventBus?: events.IEventBus;
  /**
   * A Flux notification-controller's event receiver, where Weave sent its events (env `NOTIFICATION_CONTROLLER_URL`),
   * e.g. `http://notification-controller.flux-system.svc.cluster.local./` when the verifier runs in a VPC that
   * reaches it.
   * @default none
   */
  readonly notificationControllerUrl?: string;
}

/** Notifications to people: approvals waiting, promotions opened or failed for good, regressions (docs/notifications.md). */
export interface PeopleNotificationProps {
  /**
   * A JSON secret `{"url": "https://hooks.slack.com/services/…"}`: a Slack incoming webhook; the verifier may read it.
   * @default none
   */
  readonly slackWebhook?: secretsmanager.ISecret;
  /**
   * A JSON secret `{"url": "…", "token": "…"}` (`token` optional): the news as JSON, signed like generic-hmac.
   * @default none
   */
  readonly webhook?: secretsmanager.ISecret;
  /**
   * An EventBridge bus the news are put on (detail-type `Pipeline news`); the verifier gets `events:PutEvents`.
   * @default none
   */
  readonly eventBus?: events.IEventBus;
  /** The kinds of news sent. @default all: approval-waiting, promotion-opened, promotion-failed, environment-regressed, rollback-opened, verification-failed */
  readonly news?: readonly NewsKind[];
}

/**
 * What the verifier may read to evaluate a Pipeline's verification checks (docs/verification.md) with its own role.
 * Nothing is granted for a list left out or empty.
 */
export interface VerificationAccessProps {
  /**
   * CloudWatch alarms a `cloudwatchAlarms` check may name: the verifier gets `cloudwatch:DescribeAlarms` on them
   * (`arn:aws:cloudwatch:<region>:<account>:alarm:<name>`). @default none
   */
  readonly cloudwatchAlarmArns?: readonly string[];
  /**
   * Amazon Managed Service for Prometheus workspaces a `prometheus` check with `auth: {sigv4: …}` may query: the
   * verifier gets `aps:QueryMetrics` on them (`arn:aws:aps:<region>:<account>:workspace/<id>`). @default none
   */
  readonly prometheusWorkspaceArns?: readonly string[];
}

export interface PipelineControllerProps {
  /** When the poller enqueues a poll of every (cluster, app kind) in use. @default rate(5 minutes) */
  readonly pollSchedule?: events.Schedule;
  /**
   * `namespace/name` of the GitopsCluster a target without clusterRef runs on. Only `pipelinectl apply` resolves
   * targets, so the functions never need it: the stack publishes it as the output `DefaultCluster`, which
   * `pipelinectl --aws --stack` reads when `--default-cluster` is not given.
   * @default none
   */
  readonly defaultCluster?: string;
  /**
   * Of the table, the master key secret and the log groups the construct creates (not of a `table` or `queue` you
   * bring). @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** Receives the alarm and OK notifications. @default no topic */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Your own actions, run when an alarm goes to ALARM (e.g. an `SnsAction` of a pager topic, a `LambdaAction`).
   * @default none besides `alarmTopic` (the alarms exist either way)
   */
  readonly alarmActions?: readonly cloudwatch.IAlarmAction[];
  /** Reserved concurrency of the receiver: a cap on what a flood of requests can cost (at least 1). @default 20 */
  readonly receiverReservedConcurrency?: number;
  /** The SQS event source's maximum concurrency (2–1000): how many verifiers run at once. @default 10 */
  readonly verifierMaxConcurrency?: number;
  /** Memory of each function in MB (128–10240). @default receiver 512, verifier 1024, poller 256 */
  readonly memorySize?: FunctionMemorySizes;
  /** The functions' processor architecture. @default lambda.Architecture.ARM_64 */
  readonly architecture?: lambda.Architecture;
  /**
   * X-Ray active tracing of the three functions (a trace per invocation; Powertools' log lines carry its id) and
   * `POWERTOOLS_TRACE_ENABLED=true`. Adds `xray:PutTraceSegments`/`PutTelemetryRecords` to each role. @default false
   */
  readonly tracing?: boolean;
  /**
   * Retention of each function's log group: one of CloudWatch's values (`logs.RetentionDays`), checked at synth.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * A customer managed KMS key for what the construct creates: the table, both queues, the master key secret and the
   * log groups. Each function's role gets `kms:Decrypt`, `DescribeKey`, `Encrypt`, `GenerateDataKey` on it; the key
   * policy gets the statement CloudWatch Logs needs, or, for an imported key, the synth warns with the statement to
   * add (infra/README.md, "Encryption").
   * @default AWS managed encryption: DynamoDB's and Secrets Manager's AWS managed keys, SSE-SQS, CloudWatch Logs' own
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * Your own table instead of a new one. It must have lib/store's `TABLE_SCHEMA`: string keys `pk`/`sk`, a global
   * secondary index `gsi1` on string `gsi1pk`/`gsi1sk` projecting ALL, TTL on `expiresAt` (checked at synth when it
   * is a `dynamodb.Table` of the app). Its own encryption key, if any, is granted to the functions.
   * @default a new table: on demand, PITR, deletion protection while retained
   */
  readonly table?: dynamodb.ITable;
  /**
   * Your own work queue instead of a new one: standard (not FIFO), a visibility timeout of at least the verifier's
   * 60 s (360 s recommended), redriving to its dead-letter queue (after 5 receives recommended). Its own encryption
   * key, if any, is granted to the functions.
   * @default a new queue and dead-letter queue
   */
  readonly queue?: sqs.IQueue;
  /**
   * The dead-letter queue of your `queue`.
   * @default the `deadLetterQueue` of a `queue` that is an `sqs.Queue` of the app; required for an imported queue
   */
  readonly deadLetterQueue?: sqs.IQueue;
  /** Runs the verifier in this VPC (for private EKS API endpoints); it gets its own security group. @default none */
  readonly vpc?: ec2.IVpc;
  /** The verifier's subnets in `vpc`. @default the VPC's private subnets with egress */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** EKS clusters the verifier may call `eks:DescribeCluster` on with its own role. @default none */
  readonly eksClusterArns?: readonly string[];
  /** Roles the verifier may assume (`spec.eks.roleArn` of a GitopsCluster). @default none */
  readonly assumeRoleArns?: readonly string[];
  /** The CloudWatch alarms and Prometheus workspaces the verification checks may read. @default none */
  readonly verification?: VerificationAccessProps;
  /** Prefix of the Secrets Manager secrets holding configuration Secrets. @default 'pipeline-controller/' */
  readonly secretsPrefix?: string;
  /** Days audit entries and finished promotion records are kept (the table's TTL). @default 90 */
  readonly retentionDays?: number;
  /** GitHub API base for GitHub Enterprise. @default derived from each repository URL */
  readonly githubApiUrl?: string;
  /** GitLab API base (`https://host/api/v4`) for every GitLab repository. @default derived from each repository URL */
  readonly gitlabApiUrl?: string;
  /** Bitbucket Server base URL (`https://host[/context]`). @default derived from each repository URL */
  readonly bitbucketServerApiUrl?: string;
  /** Azure DevOps collection URL (`https://dev.azure.com/org`). @default derived from each repository URL */
  readonly azureDevOpsApiUrl?: string;
  /** The notification strategy's sinks. @default none */
  readonly notification?: NotificationSinkProps;
  /** Where people are told what needs them (Slack, a signed webhook, EventBridge). @default none */
  readonly notify?: PeopleNotificationProps;
  /**
   * The author (and committer) of the pull request commits (env `COMMIT_AUTHOR_NAME`, `COMMIT_AUTHOR_EMAIL`).
   * @default Weave's: `Promotion Server` <promotion-server@pipeline-controller.invalid>
   */
  readonly commitAuthor?: CommitAuthor;
  /**
   * A CloudWatch dashboard of the functions' metrics (promotions, approvals, lead time, events, polls, dead letters;
   * docs/observability.md) and of their errors and throttles. The metrics are published either way. @default true
   */
  readonly dashboard?: boolean;
  /**
   * The stack outputs `pipelinectl --aws --stack NAME` reads (`TableName`, `QueueUrl`, `MasterKeySecretArn`…, under
   * these names: infra/outputs.ts), so the CLI works with any stack the construct is in. `false` leaves them out, for
   * a second controller in the same stack (whose outputs would have the same names). @default true
   */
  readonly stackOutputs?: boolean;
}

interface FunctionSpec {
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
}

/** A function and its execution role. */
interface FunctionAndRole {
  fn: lambda.Function;
  role: iam.Role;
}

/** What every function shares beyond its own spec. */
interface FunctionSettings {
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  architecture: lambda.Architecture;
  tracing: boolean;
  encryptionKey: kms.IKey | undefined;
}

export class PipelineController extends Construct {
  /** The table: a new one, or the `table` prop. */
  readonly table: dynamodb.ITable;
  /** The work queue: a new one, or the `queue` prop. */
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly masterKeySecret: Secret;
  /** The `encryptionKey` prop. */
  readonly encryptionKey?: kms.IKey;
  readonly receiver: lambda.Function;
  readonly verifier: lambda.Function;
  readonly poller: lambda.Function;
  readonly receiverUrl: lambda.FunctionUrl;
  readonly pollRule: events.Rule;
  readonly alarms: ControllerAlarms;
  /** The metrics dashboard, unless the `dashboard` prop is false. */
  readonly dashboard?: cloudwatch.Dashboard;
  /** The verifier's security group, when it runs in a VPC. */
  readonly verifierSecurityGroup?: ec2.SecurityGroup;
  /** The ARN pattern of the configuration Secrets (`<prefix>*`). */
  readonly secretsArnPattern: string;
  /** The `defaultCluster` prop, published as the stack output `DefaultCluster`. */
  readonly defaultCluster: string | undefined;
  /** The kinds of the notification sinks the verifier delivers to, published as an output (none: `[]`). */
  readonly notificationSinks: readonly NotificationSinkKind[];
  /** Each function's execution role (no managed policies; one inline policy each). */
  readonly roles: Readonly<Record<FunctionName, iam.Role>>;
  private readonly metrics: ControllerMetrics;
  private readonly eksClusterArns: readonly string[];
  private readonly assumeRoleArns: readonly string[];

  constructor(scope: Construct, id: string, props: PipelineControllerProps = {}) {
    super(scope, id);
    const settings = validate(this, props);
    const removalPolicy = props.removalPolicy ?? DEFAULTS.removalPolicy;
    const key = props.encryptionKey;
    this.encryptionKey = key;
    this.eksClusterArns = props.eksClusterArns ?? [];
    this.assumeRoleArns = props.assumeRoleArns ?? [];
    this.defaultCluster = props.defaultCluster;

    this.table = this.useOrCreateTable(props.table, removalPolicy, key);
    const queues = this.useOrCreateQueues(props.queue, settings.deadLetterQueue, key);
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    this.masterKeySecret = this.createMasterKeySecret(removalPolicy, key);
    // CloudFormation cannot create a log group encrypted with a key the Logs service may not use.
    if (key) allowCloudWatchLogs(this, key);
    this.secretsArnPattern = configurationSecretsArnPattern(settings.secretsPrefix);
    this.notificationSinks = notificationSinksOf(props.notification);

    const shared = functionSettingsOf(props, removalPolicy);
    const { receiver, verifier, poller, verifierSecurityGroup } = this.createFunctions(props, settings, shared);
    this.receiver = receiver.fn;
    this.verifier = verifier.fn;
    this.poller = poller.fn;
    this.roles = { receiver: receiver.role, verifier: verifier.role, poller: poller.role };
    this.verifierSecurityGroup = verifierSecurityGroup;
    this.receiverUrl = this.openReceiverUrl();
    this.consumeQueue(settings.verifierMaxConcurrency);
    this.pollRule = this.schedulePolls(props.pollSchedule);
    this.grantFunctions(props);

    const monitoring = this.addMonitoring(props);
    this.metrics = monitoring.metrics;
    this.alarms = monitoring.alarms;
    this.dashboard = monitoring.dashboard;
    this.acknowledgeNagFindings(settings.secretsPrefix, props.vpc !== undefined, shared.tracing);
    if (props.stackOutputs ?? true) publishOutputs(this, this);
  }

  /** The `table` prop (checked at synth), or a new table. */
  private useOrCreateTable(
    ownTable: dynamodb.ITable | undefined,
    removalPolicy: RemovalPolicy,
    key: kms.IKey | undefined,
  ): dynamodb.ITable {
    if (!ownTable) return this.makeTable(removalPolicy, key);
    // At synth, not now: the app may still add the index to its table after handing it over.
    this.node.addValidation({ validate: () => tableProblems(ownTable) });
    return ownTable;
  }

  /** The `queue` prop with its dead-letter queue (checked at synth), or a new queue redriving to a new one. */
  private useOrCreateQueues(
    ownQueue: sqs.IQueue | undefined,
    ownDeadLetterQueue: sqs.IQueue | undefined,
    key: kms.IKey | undefined,
  ): { queue: sqs.IQueue; deadLetterQueue: sqs.IQueue } {
    if (ownQueue && ownDeadLetterQueue) {
      this.node.addValidation({
        validate: () => queueProblems(ownQueue, ownDeadLetterQueue, DEFAULTS.verifierTimeout),
      });
      return { queue: ownQueue, deadLetterQueue: ownDeadLetterQueue };
    }
    const deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      ...queueEncryption(key),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const queue = new sqs.Queue(this, 'Queue', {
      ...queueEncryption(key),
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(DEFAULTS.verifierTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: DEFAULTS.maxReceiveCount },
    });
    return { queue, deadLetterQueue };
  }

  /** The generated master HMAC key the cluster keys derive from. */
  private createMasterKeySecret(removalPolicy: RemovalPolicy, key: kms.IKey | undefined): Secret {
    return new Secret(this, 'MasterKey', {
      description:
        'pipeline-controller master HMAC key: {"current": "…", "previous"?: "…"}; cluster keys derive from it',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'current',
        excludePunctuation: true,
        passwordLength: 48,
      },
      encryptionKey: key,
      removalPolicy,
    });
  }

  /** What lib/runtime/aws.ts reads; every function validates the required ones at its first invocation. */
  private functionEnvironments(
    props: PipelineControllerProps,
    settings: Settings,
  ): { common: Record<string, string>; verifier: Record<string, string> } {
    const common: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      QUEUE_URL: this.queue.queueUrl,
      DEAD_LETTER_QUEUE_URL: this.deadLetterQueue.queueUrl,
      MASTER_KEY_SECRET_ID: this.masterKeySecret.secretArn,
      SECRETS_PREFIX: settings.secretsPrefix,
      RETENTION_DAYS: String(settings.retentionDays),
      // Read by Powertools' Metrics (lib/observability/emf-metrics.ts), not by aws.ts: the namespace the dashboard graphs.
      POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
    };
    const notification = props.notification ?? {};
    const verifier: Record<string, string> = {
      ...common,
      ...(props.githubApiUrl !== undefined && { GITHUB_API_URL: props.githubApiUrl }),
      ...(props.gitlabApiUrl !== undefined && { GITLAB_API_URL: props.gitlabApiUrl }),
      ...(props.bitbucketServerApiUrl !== undefined && { BITBUCKET_SERVER_API_URL: props.bitbucketServerApiUrl }),
      ...(props.azureDevOpsApiUrl !== undefined && { AZURE_DEVOPS_API_URL: props.azureDevOpsApiUrl }),
      ...(notification.webhookUrl !== undefined && { NOTIFICATION_WEBHOOK_URL: notification.webhookUrl }),
      ...(notification.webhookSecret && { NOTIFICATION_WEBHOOK_SECRET_ID: notification.webhookSecret.secretArn }),
      ...(notification.eventBus && { NOTIFICATION_EVENT_BUS: notification.eventBus.eventBusArn }),
      ...(notification.notificationControllerUrl !== undefined && {
        NOTIFICATION_CONTROLLER_URL: notification.notificationControllerUrl,
      }),
      ...peopleNotificationEnvironment(props.notify, Stack.of(this).stackName),
      ...(props.commitAuthor && {
        COMMIT_AUTHOR_NAME: props.commitAuthor.name,
        COMMIT_AUTHOR_EMAIL: props.commitAuthor.email,
      }),
    };
    return { common, verifier };
  }

  /** The receiver, the verifier (in the `vpc`, when given, with a security group of its own) and the poller. */
  private createFunctions(
    props: PipelineControllerProps,
    settings: Settings,
    functionSettings: FunctionSettings,
  ): Record<FunctionName, FunctionAndRole> & { verifierSecurityGroup: ec2.SecurityGroup | undefined } {
    const environment = this.functionEnvironments(props, settings);
    const make = (name: FunctionName, spec: FunctionSpec, extra: Partial<lambda.FunctionOptions> = {}) =>
      this.makeFunction(name, spec, functionSettings, extra);
    const receiver = make(
      'receiver',
      {
        description: 'pipeline-controller receiver: authenticates Flux events and webhooks, enqueues checks',
        memorySize: settings.memorySize.receiver,
        timeout: Duration.seconds(10),
        environment: environment.common,
      },
      { reservedConcurrentExecutions: settings.receiverReservedConcurrency },
    );
    const verifierSecurityGroup = props.vpc
      ? new ec2.SecurityGroup(this, 'VerifierSecurityGroup', {
          vpc: props.vpc,
          description: 'pipeline-controller verifier: no inbound; outbound to Kubernetes API servers, AWS and Git',
          allowAllOutbound: true,
        })
      : undefined;
    const verifier = make(
      'verifier',
      {
        description: 'pipeline-controller verifier: reads leaf clusters, records status, decides and promotes',
        memorySize: settings.memorySize.verifier,
        timeout: DEFAULTS.verifierTimeout,
        environment: environment.verifier,
      },
      props.vpc
        ? {
            vpc: props.vpc,
            vpcSubnets: props.vpcSubnets ?? { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
            ...(verifierSecurityGroup && { securityGroups: [verifierSecurityGroup] }),
          }
        : {},
    );
    const poller = make('poller', {
      description: 'pipeline-controller poller: enqueues one poll per (cluster, app kind) in use',
      memorySize: settings.memorySize.poller,
      timeout: Duration.seconds(60),
      environment: environment.common,
    });
    return { receiver, verifier, poller, verifierSecurityGroup };
  }

  /** The cdk-nag findings this design accepts, each with its reason (infra/nag.ts). */
  private acknowledgeNagFindings(secretsPrefix: string, vpc: boolean, tracing: boolean): void {
    acknowledgeFindings({
      masterKeySecret: this.masterKeySecret,
      functions: [this.receiver, this.verifier, this.poller],
      receiverRole: this.roles.receiver,
      verifierRole: this.roles.verifier,
      roles: Object.values(this.roles),
      secretsPrefix,
      vpc,
      tracing,
    });
  }

  /** The receiver: Flux cannot sign SigV4, so the URL is open and lib/http checks the HMAC of every request. */
  private openReceiverUrl(): lambda.FunctionUrl {
    return this.receiver.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
  }

  /** The verifier takes the work queue's messages in batches, at most `maxConcurrency` verifiers at once. */
  private consumeQueue(maxConcurrency: number): void {
    this.verifier.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency,
      }),
    );
  }

  private schedulePolls(schedule: events.Schedule | undefined): events.Rule {
    return new events.Rule(this, 'PollSchedule', {
      description: 'pipeline-controller: the scheduled poll, the backstop for lost events',
      schedule: schedule ?? events.Schedule.expression(DEFAULTS.pollSchedule),
      targets: [new targets.LambdaFunction(this.poller, { retryAttempts: 2, maxEventAge: Duration.minutes(5) })],
    });
  }

  /** Each role's own statements, then the keys of what it touches (a table or queue brought by the user may have a key of its own). */
  private grantFunctions(props: PipelineControllerProps): void {
    this.grantReceiver(this.roles.receiver);
    this.grantVerifier(this.roles.verifier, props);
    this.grantPoller(this.roles.poller);
    const tableKey = this.table.encryptionKey;
    const queueKey = this.queue.encryptionMasterKey;
    grantKeyUse(this.roles.receiver, [tableKey, queueKey, this.encryptionKey]);
    grantKeyUse(this.roles.verifier, [tableKey, queueKey, this.deadLetterQueue.encryptionMasterKey]);
    grantKeyUse(this.roles.poller, [tableKey, queueKey]);
  }

  /** The functions' and queues' metrics, the alarms on them and, unless the `dashboard` prop is false, the dashboard. */
  private addMonitoring(props: PipelineControllerProps): {
    metrics: ControllerMetrics;
    alarms: ControllerAlarms;
    dashboard: cloudwatch.Dashboard | undefined;
  } {
    const functions = { receiver: this.receiver, verifier: this.verifier, poller: this.poller };
    const metrics = new ControllerMetrics({ functions, queue: this.queue, deadLetterQueue: this.deadLetterQueue });
    const alarms = addAlarms(this, {
      metrics,
      functions,
      topic: props.alarmTopic,
      alarmActions: props.alarmActions ?? [],
    });
    const dashboard = (props.dashboard ?? true) ? addDashboard(this, { functions, metrics }) : undefined;
    return { metrics, alarms, dashboard };
  }

  /**
   * What `pipelinectl --aws` needs against this deployment, for every command: status, get, explain, history,
   * metrics, approve, retry, apply, delete, check, flux-config, dlq. The actions are those of the SDK calls the CLI
   * sends (infra/operator-access.ts), on this table and its index, the queues, the configuration Secrets under the
   * prefix and the master key, this stack's outputs, the `eksClusterArns` and `assumeRoleArns` (for `check`), and the
   * keys that encrypt them. `secretsmanager:TagResource` under the prefix lets the grantee mark a Secret as a webhook
   * HMAC key, which the receiver may then read (infra/README.md, "Least privilege"): grant it to people who apply.
   */
  grantOperate(grantee: iam.IGrantable): iam.Grant {
    return this.grantOperator(grantee, 'operate');
  }

  /** What `pipelinectl --aws` needs to look only: status, get, explain, history, metrics (reads of the table). */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.grantOperator(grantee, 'read');
  }

  /**
   * A metric the functions publish (lib/observability/metric-names.ts) under the emitting function's `service`
   * dimension: 5-minute periods; counts as sums, levels as maxima, durations as averages unless `options` say else.
   */
  metric(name: MetricName, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric(name, options);
  }

  /**
   * Promotions that failed and are not retried: a person must act (sum). With a `reason`, those of that failure kind
   * only (docs/observability.md); without, all of them.
   */
  metricPromotionsFailed(
    options: cloudwatch.MetricOptions & { reason?: PromotionFailureKind } = {},
  ): cloudwatch.Metric {
    const { reason, ...rest } = options;
    return reason === undefined
      ? this.metrics.metric('PromotionsFailedForGood', rest)
      : this.metrics.byReason('PromotionsFailedForGood', reason, rest);
  }

  /** Promotion attempts that failed and are tried again at a scheduled time (sum); by failure kind with a `reason`. */
  metricPromotionsFailedRetrying(
    options: cloudwatch.MetricOptions & { reason?: PromotionFailureKind } = {},
  ): cloudwatch.Metric {
    const { reason, ...rest } = options;
    return reason === undefined
      ? this.metrics.metric('PromotionsFailedRetrying', rest)
      : this.metrics.byReason('PromotionsFailedRetrying', reason, rest);
  }

  /** Promotions started (sum). */
  metricPromotionsStarted(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('PromotionsStarted', options);
  }

  /** Promotions that succeeded (sum). */
  metricPromotionsSucceeded(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('PromotionsSucceeded', options);
  }

  /** Requests to the events route, whatever became of them (sum). */
  metricEventsReceived(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('EventsReceived', options);
  }

  /**
   * Events the receiver refused (401, 400, 405, 413). With a `reason`, the metric of that reason; without, the sum
   * over every reason, a math expression, because the functions publish the metric per reason only.
   */
  metricEventsRejected(options: cloudwatch.MetricOptions & { reason?: EventRejection } = {}): cloudwatch.IMetric {
    const { reason, ...rest } = options;
    return reason === undefined ? this.metrics.eventsRejectedTotal(rest) : this.metrics.eventsRejected(reason, rest);
  }

  /** Events answered 500: the store or the queue failed, Flux sends them again (sum). */
  metricEventsFailed(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('EventsFailed', options);
  }

  /** Approvals waiting for a person over the whole fleet, at the poller's run (maximum). */
  metricApprovalsWaiting(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('ApprovalsWaiting', options);
  }

  /** Age in seconds of the oldest waiting approval, at the poller's run (maximum). */
  metricOldestApprovalAge(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('OldestApprovalAge', options);
  }

  /** A revision's time from the first to the last environment, in ms (average; `statistic: 'p90'` for a percentile). */
  metricLeadTime(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.metric('LeadTime', options);
  }

  /**
   * Messages in the dead-letter queue (the maximum of its visible messages), whoever put them there: what the
   * dead-letter alarm watches. The verifier's own count of the bodies it set aside is `metric('DeadLetters')`.
   */
  metricDeadLetters(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.deadLetters(options);
  }

  /** Age in seconds of the oldest message in the work queue (maximum): how far the verifiers are behind. */
  metricOldestMessageAge(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.oldestMessageAge(options);
  }

  /** The table's one secondary index, through which stored objects are listed by kind. */
  private get tableIndexArn(): string {
    return `${this.table.tableArn}/index/${TABLE_SCHEMA.index}`;
  }

  private grantOperator(grantee: iam.IGrantable, level: OperatorLevel): iam.Grant {
    const stack = Stack.of(this);
    const arns: Record<OperatorResource, readonly string[]> = {
      table: [this.table.tableArn],
      tableIndex: [this.tableIndexArn],
      queue: [this.queue.queueArn],
      deadLetterQueue: [this.deadLetterQueue.queueArn],
      configurationSecrets: [this.secretsArnPattern],
      masterKeySecret: [this.masterKeySecret.secretArn],
      // The exact ARN, with the stack's id: no wildcard (and no cdk-nag finding) on the grantee.
      stack: [stack.stackId],
      eksClusters: this.eksClusterArns,
      clusterRoles: this.assumeRoleArns,
    };
    const grants: iam.Grant[] = [];
    for (const [resource, actions] of operatorActions(level)) {
      const resourceArns = arns[resource];
      if (resourceArns.length === 0) continue;
      grants.push(iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [...resourceArns] }));
    }
    const keys = distinctKeys(
      level === 'read'
        ? [this.table.encryptionKey]
        : [
            this.table.encryptionKey,
            this.queue.encryptionMasterKey,
            this.deadLetterQueue.encryptionMasterKey,
            this.encryptionKey,
          ],
    );
    if (keys.length > 0) {
      grants.push(
        iam.Grant.addToPrincipal({
          grantee,
          actions: [...(level === 'read' ? KEY_READ_ACTIONS : KEY_USE_ACTIONS)],
          resourceArns: keys.map((each) => each.keyArn),
        }),
      );
    }
    return grants.reduce((all, grant) => all.combine(grant));
  }

  /** On demand, PITR, TTL and the gsi1 index: everything lib/store's TABLE_SCHEMA declares. */
  private makeTable(removalPolicy: RemovalPolicy, key: kms.IKey | undefined): dynamodb.Table {
    const table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      ...(key
        ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: key }
        : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    table.addGlobalSecondaryIndex({
      indexName: TABLE_SCHEMA.index,
      partitionKey: { name: TABLE_SCHEMA.indexPartitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.indexSortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    return table;
  }

  /** A function with its own role and log group, so no AWS managed policy is attached (cdk-nag IAM4). */
  private makeFunction(
    name: FunctionName,
    spec: FunctionSpec,
    settings: FunctionSettings,
    extra: Partial<lambda.FunctionOptions>,
  ): FunctionAndRole {
    const id = name.charAt(0).toUpperCase() + name.slice(1);
    const logGroup = new logs.LogGroup(this, `${id}LogGroup`, {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
      encryptionKey: settings.encryptionKey,
    });
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `pipeline-controller ${name}`,
    });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    // The package's prebuilt bundle where there is one, else the sources bundled by NodejsFunction (function-code.ts).
    const fn = handlerFunction(this, id, name, {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: settings.architecture,
      description: spec.description,
      memorySize: spec.memorySize,
      timeout: spec.timeout,
      role,
      logGroup,
      ...(settings.tracing && { tracing: lambda.Tracing.ACTIVE }),
      environment: {
        ...spec.environment,
        // Read by Powertools' Tracer should a function add it; Lambda's own trace segments need no code.
        ...(settings.tracing && { POWERTOOLS_TRACE_ENABLED: 'true' }),
      },
      ...extra,
    });
    return { fn, role };
  }

  /** GetItem/Query/UpdateItem: getCluster, getPipeline, findTargets (the table, not the index), approve, getServedInput. */
  private grantReceiver(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'Table',
        actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        resources: [this.table.tableArn],
      }),
    );
    // An approval through /approval appends its `approved` audit entry: new items in audit partitions only.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'AppendAudit',
        actions: ['dynamodb:PutItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } },
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'Enqueue', actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'MasterKey',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.masterKeySecret.secretArn],
      }),
    );
    // A Pipeline's webhook HMAC Secret and a ConfigSource's Secret live under the same prefix as kubeconfigs and Git
    // tokens; only the tag tells them apart, so the receiver may read a secret under the prefix only when it carries
    // one of the tag values it checks webhooks with (StringEquals with a list: any one of them).
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WebhookSecrets',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secretsArnPattern],
        conditions: {
          StringEquals: {
            [`secretsmanager:ResourceTag/${RECEIVER_READABLE_SECRET_TAG.key}`]: [
              ...RECEIVER_READABLE_SECRET_TAG.values,
            ],
          },
        },
      }),
    );
  }

  private grantVerifier(role: iam.Role, props: PipelineControllerProps): void {
    // The whole Store (lib/verifier takes it all): statuses (BatchGetItem, Put/Update), approvals (Delete on
    // clear), promotion records, audit entries, and what a ConfigSource's sync or a PipelineSet's apps generator
    // applies (BatchWriteItem: a pipeline's apps index entries, as `pipelinectl apply` writes them; a pristine pair's
    // first poll writes its new statuses so too). No Scan.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'Table',
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [this.table.tableArn],
      }),
    );
    // A ConfigSource's sync and a PipelineSet's apps generator apply as `pipelinectl apply` does, over the stored
    // clusters, pipelines and sources, which are listed through the index.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'TableIndex', actions: ['dynamodb:Query'], resources: [this.tableIndexArn] }),
    );
    // Re-checks and follow-up messages (SendMessageBatch is authorized as SendMessage); invalid bodies go to the DLQ.
    // Receive/Delete/ChangeVisibility on the queue come with the event source.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'Enqueue',
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn, this.deadLetterQueue.queueArn],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ConfigurationSecrets',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secretsArnPattern],
      }),
    );
    const eksClusterArns = props.eksClusterArns ?? [];
    if (eksClusterArns.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'DescribeEksClusters',
          actions: ['eks:DescribeCluster'],
          resources: [...eksClusterArns],
        }),
      );
    }
    const assumeRoleArns = props.assumeRoleArns ?? [];
    if (assumeRoleArns.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'AssumeClusterRoles',
          actions: ['sts:AssumeRole'],
          resources: [...assumeRoleArns],
        }),
      );
    }
    const alarmArns = props.verification?.cloudwatchAlarmArns ?? [];
    if (alarmArns.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'VerificationAlarms',
          actions: ['cloudwatch:DescribeAlarms'],
          resources: [...alarmArns],
        }),
      );
    }
    const workspaceArns = props.verification?.prometheusWorkspaceArns ?? [];
    if (workspaceArns.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'VerificationPrometheus',
          actions: ['aps:QueryMetrics'],
          resources: [...workspaceArns],
        }),
      );
    }
    const notification = props.notification ?? {};
    notification.webhookSecret?.grantRead(role);
    notification.eventBus?.grantPutEventsTo(role);
    props.notify?.slackWebhook?.grantRead(role);
    props.notify?.webhook?.grantRead(role);
    props.notify?.eventBus?.grantPutEventsTo(role);
    if (props.vpc) {
      // What AWSLambdaVPCAccessExecutionRole grants, written out (the role has no managed policies). The Describe
      // calls have no resource-level permissions; the rest is scoped to this account and region.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'VpcDescribe',
          actions: ['ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets'],
          resources: ['*'],
        }),
      );
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'VpcNetworkInterfaces',
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: [`arn:${Aws.PARTITION}:ec2:${Aws.REGION}:${Aws.ACCOUNT_ID}:*/*`],
        }),
      );
    }
  }

  /**
   * listClusterKinds is one Query of the USAGE partition; the registered clusters and ConfigSources are listed
   * through the index. The configuration generation and the poll plan are the `CONFIG` partition's items, read and
   * the plan written (docs/architecture.md, "The poll digest"). The polls go out with SendMessageBatch.
   */
  private grantPoller(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'Table',
        actions: ['dynamodb:Query'],
        resources: [this.table.tableArn, this.tableIndexArn],
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'PollPlan',
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CONFIG'] } },
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'Enqueue', actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
  }
}

interface Settings {
  secretsPrefix: string;
  retentionDays: number;
  receiverReservedConcurrency: number;
  verifierMaxConcurrency: number;
  memorySize: Record<FunctionName, number>;
  /** With the `queue` prop: its dead-letter queue. */
  deadLetterQueue: sqs.IQueue | undefined;
}

const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function validate(scope: Construct, props: PipelineControllerProps): Settings {
  const fail = (message: string): never => {
    throw new Error(`PipelineController ${scope.node.path}: ${message}`);
  };
  const settings: Settings = {
    secretsPrefix: props.secretsPrefix ?? DEFAULTS.secretsPrefix,
    retentionDays: props.retentionDays ?? DEFAULTS.retentionDays,
    receiverReservedConcurrency: props.receiverReservedConcurrency ?? DEFAULTS.receiverReservedConcurrency,
    verifierMaxConcurrency: props.verifierMaxConcurrency ?? DEFAULTS.verifierMaxConcurrency,
    memorySize: {
      receiver: props.memorySize?.receiver ?? DEFAULTS.memorySize.receiver,
      verifier: props.memorySize?.verifier ?? DEFAULTS.memorySize.verifier,
      poller: props.memorySize?.poller ?? DEFAULTS.memorySize.poller,
    },
    deadLetterQueue:
      props.deadLetterQueue ?? (props.queue instanceof sqs.Queue ? props.queue.deadLetterQueue?.queue : undefined),
  };
  /** A number known at synth time (not a token resolved at deploy time). */
  const known = (value: number) => !Token.isUnresolved(value);
  const isWhole = (value: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
    Number.isInteger(value) && value >= min && value <= max;

  if (!Token.isUnresolved(settings.secretsPrefix) && !/^[\w/+=.@-]+$/.test(settings.secretsPrefix)) {
    fail(`secretsPrefix must be a non-empty secret name prefix without wildcards, got '${settings.secretsPrefix}'`);
  }
  if (known(settings.retentionDays) && !isWhole(settings.retentionDays, 1)) {
    fail(`retentionDays must be a positive integer, got ${settings.retentionDays}`);
  }
  const reserved = settings.receiverReservedConcurrency;
  if (known(reserved) && !isWhole(reserved, 1)) {
    fail(`receiverReservedConcurrency must be a positive integer, got ${reserved}`);
  }
  const maxConcurrency = settings.verifierMaxConcurrency;
  const concurrency = MAX_CONCURRENCY_RANGE;
  if (known(maxConcurrency) && !isWhole(maxConcurrency, concurrency.min, concurrency.max)) {
    fail(
      `verifierMaxConcurrency must be an integer from ${concurrency.min} to ${concurrency.max}, got ${maxConcurrency}`,
    );
  }
  for (const [name, size] of Object.entries(settings.memorySize)) {
    if (known(size) && !isWhole(size, MEMORY_SIZE_RANGE.min, MEMORY_SIZE_RANGE.max)) {
      fail(
        `memorySize.${name} must be an integer from ${MEMORY_SIZE_RANGE.min} to ${MEMORY_SIZE_RANGE.max} (MB), got ${size}`,
      );
    }
  }
  const retention = props.logRetention;
  if (retention !== undefined && known(retention) && !isLogRetention(retention)) {
    fail(
      `logRetention must be a retention CloudWatch Logs accepts (logs.RetentionDays), got ${retention}; ` +
        `allowed: ${allowedLogRetentions()}`,
    );
  }
  const urls: [string, string | undefined][] = [
    ['githubApiUrl', props.githubApiUrl],
    ['gitlabApiUrl', props.gitlabApiUrl],
    ['bitbucketServerApiUrl', props.bitbucketServerApiUrl],
    ['azureDevOpsApiUrl', props.azureDevOpsApiUrl],
    ['notification.webhookUrl', props.notification?.webhookUrl],
    ['notification.notificationControllerUrl', props.notification?.notificationControllerUrl],
  ];
  for (const [name, url] of urls) {
    // The value is not repeated: a webhook URL may carry a token in its path. The functions would refuse it at
    // their first invocation (lib/runtime/aws.ts); the synth is the cheaper place to learn it.
    if (url !== undefined && !Token.isUnresolved(url) && !isHttpUrl(url)) fail(`${name} must be an http(s) URL`);
  }
  const cluster = props.defaultCluster;
  if (cluster !== undefined && !Token.isUnresolved(cluster)) {
    const [namespace = '', name = '', ...rest] = cluster.split('/');
    if (rest.length > 0 || !OBJECT_NAME.test(namespace) || !OBJECT_NAME.test(name)) {
      fail(`defaultCluster must be 'namespace/name' of a GitopsCluster, got '${cluster}'`);
    }
  }
  for (const arn of props.eksClusterArns ?? []) {
    if (!Token.isUnresolved(arn) && !/^arn:[\w-]+:eks:[\w-]+:\d{12}:cluster\/.+$/.test(arn)) {
      fail(`eksClusterArns: '${arn}' is not an EKS cluster ARN`);
    }
  }
  for (const arn of props.assumeRoleArns ?? []) {
    if (!Token.isUnresolved(arn) && !/^arn:[\w-]+:iam::\d{12}:role\/.+$/.test(arn)) {
      fail(`assumeRoleArns: '${arn}' is not an IAM role ARN`);
    }
  }
  for (const arn of props.verification?.cloudwatchAlarmArns ?? []) {
    if (!Token.isUnresolved(arn) && !/^arn:[\w-]+:cloudwatch:[\w-]+:\d{12}:alarm:.+$/.test(arn)) {
      fail(`verification.cloudwatchAlarmArns: '${arn}' is not a CloudWatch alarm ARN`);
    }
  }
  for (const arn of props.verification?.prometheusWorkspaceArns ?? []) {
    if (!Token.isUnresolved(arn) && !/^arn:[\w-]+:aps:[\w-]+:\d{12}:workspace\/.+$/.test(arn)) {
      fail(
        `verification.prometheusWorkspaceArns: '${arn}' is not an Amazon Managed Service for Prometheus workspace ARN`,
      );
    }
  }
  if (props.vpcSubnets && !props.vpc) fail('vpcSubnets needs vpc');
  if (props.deadLetterQueue && !props.queue) fail('deadLetterQueue needs queue: it is the dead-letter queue of yours');
  // Every message the controller sends has no group id: a FIFO queue would refuse them all.
  if (props.queue?.fifo) fail('queue must be a standard queue, not FIFO');
  if (props.queue && !settings.deadLetterQueue) {
    fail('queue has no dead-letter queue: pass deadLetterQueue (an imported queue does not say where it redrives)');
  }
  const author = props.commitAuthor;
  if (author && !Token.isUnresolved(author.name) && !Token.isUnresolved(author.email)) {
    for (const problem of commitAuthorProblems(author)) fail(`commitAuthor: ${problem}`);
  }
  return settings;
}

function functionSettingsOf(props: PipelineControllerProps, removalPolicy: RemovalPolicy): FunctionSettings {
  return {
    logRetention: props.logRetention ?? DEFAULTS.logRetention,
    removalPolicy,
    architecture: props.architecture ?? DEFAULTS.architecture,
    tracing: props.tracing ?? DEFAULTS.tracing,
    encryptionKey: props.encryptionKey,
  };
}

/**
 * The configuration Secrets' ARNs (`<prefix>*`). Built from the pseudo parameters, not the stack's env, so the ARN
 * (and its cdk-nag finding id) is the same in every environment.
 */
function configurationSecretsArnPattern(secretsPrefix: string): string {
  return `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${secretsPrefix}*`;
}

/** The kinds of the notification strategy's sinks the verifier delivers to. */
function notificationSinksOf(notification: NotificationSinkProps = {}): readonly NotificationSinkKind[] {
  return notificationSinkKinds({
    webhook: notification.webhookUrl,
    notificationController: notification.notificationControllerUrl,
    eventBus: notification.eventBus,
  });
}

function queueEncryption(key: kms.IKey | undefined): Pick<sqs.QueueProps, 'encryption' | 'encryptionMasterKey'> {
  return key
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key }
    : { encryption: sqs.QueueEncryption.SQS_MANAGED };
}

/** One statement per role for the customer managed keys of what it touches; none without such a key. */
function grantKeyUse(role: iam.Role, keys: readonly (kms.IKey | undefined)[]): void {
  const distinct = distinctKeys(keys);
  if (distinct.length === 0) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'EncryptionKey',
      actions: [...KEY_USE_ACTIONS],
      resources: distinct.map((each) => each.keyArn),
    }),
  );
}

/** The verifier's NOTIFY_* variables (lib/runtime/people-notifications.ts reads them). */
function peopleNotificationEnvironment(
  notify: PeopleNotificationProps | undefined,
  stackName: string,
): Record<string, string> {
  if (!notify || (!notify.slackWebhook && !notify.webhook && !notify.eventBus)) return {};
  return {
    ...(notify.slackWebhook && { NOTIFY_SLACK_SECRET_ID: notify.slackWebhook.secretArn }),
    ...(notify.webhook && { NOTIFY_WEBHOOK_SECRET_ID: notify.webhook.secretArn }),
    ...(notify.eventBus && { NOTIFY_EVENT_BUS: notify.eventBus.eventBusArn }),
    ...(notify.news && { NOTIFY_NEWS: notify.news.join(',') }),
    // So that the approve command in a message works when pasted: pipelinectl finds the stack by its name.
    NOTIFY_APPROVE_FLAGS: `--aws --stack ${stackName}`,
  };
}
