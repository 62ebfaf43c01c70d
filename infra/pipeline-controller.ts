// The PipelineController L3 construct: one table, a queue and its DLQ, three functions (receiver behind
// a function URL, verifier on the queue, poller on a schedule), the generated master HMAC key, alarms, a CloudWatch
// dashboard, and IAM policies that give each function only the actions and resources its code uses. infra/README.md documents the
// props; infra/stack.ts puts the construct in a stack with outputs.
import { METRIC_NAMESPACE } from '../lib/observability/metric-names.js';
import { commitAuthorProblems, type CommitAuthor } from '../lib/promotion/pull-request/commit-author.js';
import { notificationSinkKinds, type NotificationSinkKind } from '../lib/runtime/notification-sinks.js';
import type { NewsKind } from '../lib/pipeline/model.js';
import { SECRET_PURPOSE_TAG } from '../lib/secrets/tags.js';
import { Aws, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../lib/store/index.js';
import { addAlarms, type ControllerAlarms } from './alarms.js';
import { BUNDLE_SETTINGS, ENTRIES, LOCK_FILE, REPO_ROOT, type FunctionName } from './bundling.js';
import { addDashboard } from './dashboard.js';
import { acknowledgeFindings } from './nag.js';

/**
 * The tag that lets the receiver read a configuration Secret. `pipelinectl apply` puts it (lib/secrets/tags.ts) only
 * on a Pipeline's webhook HMAC Secret (`spec.promotion.strategy.secretRef`, key `hmac-key`); a kubeconfig or Git
 * token Secret never carries it, so the receiver cannot read those.
 */
export const WEBHOOK_HMAC_SECRET_TAG = { key: SECRET_PURPOSE_TAG, value: 'webhook-hmac' } as const;

export const DEFAULTS = {
  pollSchedule: 'rate(5 minutes)',
  secretsPrefix: 'pipeline-controller/',
  retentionDays: 90,
  receiverReservedConcurrency: 20,
  verifierMaxConcurrency: 10,
  logRetention: logs.RetentionDays.ONE_MONTH,
  removalPolicy: RemovalPolicy.RETAIN,
  /** The verifier's timeout; the queue's visibility timeout is 6× this (AWS's advice for SQS event sources). */
  verifierTimeout: Duration.seconds(60),
  maxReceiveCount: 5,
} as const;

/** Where the notification strategy delivers (all optional; docs/notifications.md). */
export interface NotificationSinkProps {
  /** An HTTP endpoint that receives a Flux-format event (env `NOTIFICATION_WEBHOOK_URL`). */
  readonly webhookUrl?: string;
  /** A JSON secret whose `token` signs that POST like Flux's generic-hmac; the verifier may read it. */
  readonly webhookSecret?: secretsmanager.ISecret;
  /** An EventBridge bus; the verifier (only) gets `events:PutEvents` on it. */
  readonly eventBus?: events.IEventBus;
  /**
   * A Flux notification-controller's event receiver, where Weave sent its events (env `NOTIFICATION_CONTROLLER_URL`),
   * e.g. `http://notification-controller.flux-system.svc.cluster.local./` when the verifier runs in a VPC that
   * reaches it.
   */
  readonly notificationControllerUrl?: string;
}

/** Notifications to people: approvals waiting, promotions opened or failed for good, regressions (docs/notifications.md). */
export interface PeopleNotificationProps {
  /** A JSON secret `{"url": "https://hooks.slack.com/services/…"}`: a Slack incoming webhook; the verifier may read it. */
  readonly slackWebhook?: secretsmanager.ISecret;
  /** A JSON secret `{"url": "…", "token": "…"}` (`token` optional): the news as JSON, signed like generic-hmac. */
  readonly webhook?: secretsmanager.ISecret;
  /** An EventBridge bus the news are put on (detail-type `Pipeline news`); the verifier gets `events:PutEvents`. */
  readonly eventBus?: events.IEventBus;
  /** The kinds of news sent. @default all: approval-waiting, promotion-opened, promotion-failed, environment-regressed */
  readonly news?: readonly NewsKind[];
}

export interface PipelineControllerProps {
  /** When the poller enqueues a poll of every (cluster, app kind) in use. @default rate(5 minutes) */
  readonly pollSchedule?: events.Schedule;
  /**
   * `namespace/name` of the GitopsCluster a target without clusterRef runs on. Only `pipelinectl apply` resolves
   * targets, so the functions never need it: the stack publishes it as the output `DefaultCluster`, which
   * `pipelinectl --aws --stack` reads when `--default-cluster` is not given.
   */
  readonly defaultCluster?: string;
  /** Of the table, the master key secret and the log groups. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Receives the alarm and OK notifications. @default no actions (the alarms still exist) */
  readonly alarmTopic?: sns.ITopic;
  /** Reserved concurrency of the receiver: a cap on what a flood of requests can cost. @default 20 */
  readonly receiverReservedConcurrency?: number;
  /** The SQS event source's maximum concurrency (2–1000): how many verifiers run at once. @default 10 */
  readonly verifierMaxConcurrency?: number;
  /** Retention of each function's log group. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Runs the verifier in this VPC (for private EKS API endpoints); it gets its own security group. */
  readonly vpc?: ec2.IVpc;
  /** The verifier's subnets in `vpc`. @default the VPC's private subnets with egress */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /** EKS clusters the verifier may call `eks:DescribeCluster` on with its own role. @default none */
  readonly eksClusterArns?: readonly string[];
  /** Roles the verifier may assume (`spec.eks.roleArn` of a GitopsCluster). @default none */
  readonly assumeRoleArns?: readonly string[];
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
}

interface FunctionSpec {
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
}

export class PipelineController extends Construct {
  readonly table: dynamodb.Table;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly masterKeySecret: Secret;
  readonly receiver: nodejs.NodejsFunction;
  readonly verifier: nodejs.NodejsFunction;
  readonly poller: nodejs.NodejsFunction;
  readonly receiverUrl: lambda.FunctionUrl;
  readonly pollRule: events.Rule;
  readonly alarms: ControllerAlarms;
  /** The metrics dashboard, unless the `dashboard` prop is false. */
  readonly dashboard?: cloudwatch.Dashboard;
  /** The verifier's security group, when it runs in a VPC. */
  readonly verifierSecurityGroup?: ec2.SecurityGroup;
  /** The ARN pattern of the configuration Secrets (`<prefix>*`). */
  readonly secretsArnPattern: string;
  /** The `defaultCluster` prop, for the stack to publish. */
  readonly defaultCluster: string | undefined;
  /** The kinds of the notification sinks the verifier delivers to, for the stack to publish (none: `[]`). */
  readonly notificationSinks: readonly NotificationSinkKind[];
  /** Each function's execution role (no managed policies; one inline policy each). */
  readonly roles: Readonly<Record<FunctionName, iam.Role>>;

  constructor(scope: Construct, id: string, props: PipelineControllerProps = {}) {
    super(scope, id);
    const settings = validate(this, props);
    const removalPolicy = props.removalPolicy ?? DEFAULTS.removalPolicy;

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE_SCHEMA.index,
      partitionKey: { name: TABLE_SCHEMA.indexPartitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.indexSortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(DEFAULTS.verifierTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: DEFAULTS.maxReceiveCount },
    });

    this.masterKeySecret = new Secret(this, 'MasterKey', {
      description:
        'pipeline-controller master HMAC key: {"current": "…", "previous"?: "…"}; cluster keys derive from it',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'current',
        excludePunctuation: true,
        passwordLength: 48,
      },
      removalPolicy,
    });

    // Built from the pseudo parameters, not the stack's env, so the ARN (and its cdk-nag finding id) is the same
    // in every environment.
    this.defaultCluster = props.defaultCluster;
    this.secretsArnPattern = `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${settings.secretsPrefix}*`;

    // What lib/runtime/aws.ts reads; every function validates the required ones at its first invocation.
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
    this.notificationSinks = notificationSinkKinds({
      webhook: notification.webhookUrl,
      notificationController: notification.notificationControllerUrl,
      eventBus: notification.eventBus,
    });
    const verifierEnvironment: Record<string, string> = {
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

    const make = (name: FunctionName, spec: FunctionSpec, extra: Partial<nodejs.NodejsFunctionProps> = {}) =>
      this.makeFunction(name, spec, props.logRetention ?? DEFAULTS.logRetention, removalPolicy, extra);

    const receiver = make(
      'receiver',
      {
        description: 'pipeline-controller receiver: authenticates Flux events and webhooks, enqueues checks',
        memorySize: 512,
        timeout: Duration.seconds(10),
        environment: common,
      },
      { reservedConcurrentExecutions: settings.receiverReservedConcurrency },
    );
    if (props.vpc) {
      this.verifierSecurityGroup = new ec2.SecurityGroup(this, 'VerifierSecurityGroup', {
        vpc: props.vpc,
        description: 'pipeline-controller verifier: no inbound; outbound to Kubernetes API servers, AWS and Git',
        allowAllOutbound: true,
      });
    }
    const verifier = make(
      'verifier',
      {
        description: 'pipeline-controller verifier: reads leaf clusters, records status, decides and promotes',
        memorySize: 1024,
        timeout: DEFAULTS.verifierTimeout,
        environment: verifierEnvironment,
      },
      props.vpc
        ? {
            vpc: props.vpc,
            vpcSubnets: props.vpcSubnets ?? { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
            ...(this.verifierSecurityGroup && { securityGroups: [this.verifierSecurityGroup] }),
          }
        : {},
    );
    const poller = make('poller', {
      description: 'pipeline-controller poller: enqueues one poll per (cluster, app kind) in use',
      memorySize: 256,
      timeout: Duration.seconds(60),
      environment: common,
    });
    this.receiver = receiver.fn;
    this.verifier = verifier.fn;
    this.poller = poller.fn;
    this.roles = { receiver: receiver.role, verifier: verifier.role, poller: poller.role };

    // The receiver: Flux cannot sign SigV4, so the URL is open and lib/http checks the HMAC of every request.
    this.receiverUrl = this.receiver.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });

    this.verifier.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: settings.verifierMaxConcurrency,
      }),
    );

    this.pollRule = new events.Rule(this, 'PollSchedule', {
      description: 'pipeline-controller: the scheduled poll, the backstop for lost events',
      schedule: props.pollSchedule ?? events.Schedule.expression(DEFAULTS.pollSchedule),
      targets: [new targets.LambdaFunction(this.poller, { retryAttempts: 2, maxEventAge: Duration.minutes(5) })],
    });

    this.grantReceiver(this.roles.receiver);
    this.grantVerifier(this.roles.verifier, props);
    this.grantPoller(this.roles.poller);

    this.alarms = addAlarms(this, {
      deadLetterQueue: this.deadLetterQueue,
      functions: { receiver: this.receiver, verifier: this.verifier, poller: this.poller },
      topic: props.alarmTopic,
    });
    if (props.dashboard ?? true) {
      this.dashboard = addDashboard(this, {
        functions: { receiver: this.receiver, verifier: this.verifier, poller: this.poller },
        queue: this.queue,
        deadLetterQueue: this.deadLetterQueue,
      });
    }

    acknowledgeFindings({
      masterKeySecret: this.masterKeySecret,
      functions: [this.receiver, this.verifier, this.poller],
      receiverRole: this.roles.receiver,
      verifierRole: this.roles.verifier,
      secretsPrefix: settings.secretsPrefix,
      vpc: props.vpc !== undefined,
    });
  }

  /** A function with its own role and log group, so no AWS managed policy is attached (cdk-nag IAM4). */
  private makeFunction(
    name: FunctionName,
    spec: FunctionSpec,
    logRetention: logs.RetentionDays,
    removalPolicy: RemovalPolicy,
    extra: Partial<nodejs.NodejsFunctionProps>,
  ): { fn: nodejs.NodejsFunction; role: iam.Role } {
    const id = name.charAt(0).toUpperCase() + name.slice(1);
    const logGroup = new logs.LogGroup(this, `${id}LogGroup`, { retention: logRetention, removalPolicy });
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
    const s = BUNDLE_SETTINGS;
    const fn = new nodejs.NodejsFunction(this, id, {
      entry: ENTRIES[name],
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: LOCK_FILE,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      description: spec.description,
      memorySize: spec.memorySize,
      timeout: spec.timeout,
      role,
      logGroup,
      environment: { ...spec.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        target: s.target,
        format: nodejs.OutputFormat.ESM,
        minify: s.minify,
        sourceMap: s.sourceMap,
        sourcesContent: s.sourcesContent,
        mainFields: [...s.mainFields],
        banner: s.banner,
        externalModules: [...s.externalModules],
      },
      ...extra,
    });
    return { fn, role };
  }

  /** GetItem/Query/UpdateItem: getCluster, getPipeline, findTargets (the table, not the index), approve. */
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
    // A Pipeline's webhook HMAC Secret lives under the same prefix as kubeconfigs and Git tokens; only the tag
    // tells them apart, so the receiver may read a secret under the prefix only when it carries the tag.
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WebhookHmacSecrets',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.secretsArnPattern],
        conditions: {
          StringEquals: {
            [`secretsmanager:ResourceTag/${WEBHOOK_HMAC_SECRET_TAG.key}`]: WEBHOOK_HMAC_SECRET_TAG.value,
          },
        },
      }),
    );
  }

  private grantVerifier(role: iam.Role, props: PipelineControllerProps): void {
    // The whole Store (lib/verifier takes it all): statuses (BatchGetItem, Put/Update), approvals (Delete on
    // clear), promotion records, audit entries. No Scan, no BatchWriteItem, no index: nothing it calls uses them.
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
        ],
        resources: [this.table.tableArn],
      }),
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

  /** listClusterKinds is one Query of the USAGE partition; the polls go out with SendMessageBatch. */
  private grantPoller(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'Table', actions: ['dynamodb:Query'], resources: [this.table.tableArn] }),
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
  };
  if (!Token.isUnresolved(settings.secretsPrefix) && !/^[\w/+=.@-]+$/.test(settings.secretsPrefix)) {
    fail(`secretsPrefix must be a non-empty secret name prefix without wildcards, got '${settings.secretsPrefix}'`);
  }
  if (!Number.isInteger(settings.retentionDays) || settings.retentionDays < 1) {
    fail(`retentionDays must be a positive integer, got ${settings.retentionDays}`);
  }
  if (!Number.isInteger(settings.receiverReservedConcurrency) || settings.receiverReservedConcurrency < 1) {
    fail(`receiverReservedConcurrency must be a positive integer, got ${settings.receiverReservedConcurrency}`);
  }
  const maxConcurrency = settings.verifierMaxConcurrency;
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > 1000) {
    fail(`verifierMaxConcurrency must be an integer from 2 to 1000, got ${maxConcurrency}`);
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
  if (props.vpcSubnets && !props.vpc) fail('vpcSubnets needs vpc');
  const author = props.commitAuthor;
  if (author && !Token.isUnresolved(author.name) && !Token.isUnresolved(author.email)) {
    for (const problem of commitAuthorProblems(author)) fail(`commitAuthor: ${problem}`);
  }
  return settings;
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
