// CDK context → the stack's props (infra/README.md, "The app: context keys"). Values come from `-c key=value`
// (strings) or from cdk.json (any JSON), so every key's schema accepts both forms. The context is the app's external
// input: a key it does not know fails the synth with the closest known key (a mistyped `eksClusterArn` must not
// silently deploy a verifier without EKS access), and so does a value it cannot use, naming the key.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as z from 'zod';
import { NEWS_KINDS, type NewsKind } from '../lib/pipeline/model.js';
import { commitAuthorOf } from '../lib/promotion/pull-request/commit-author.js';
import { isHttpUrl } from '../lib/util/http-url.js';
import { schemaMessage } from '../lib/util/zod-issue.js';
import { closestName } from '../lib/util/closest-name.js';
import { allowedLogRetentions, INFINITE_RETENTION, isLogRetention } from './log-retention.js';
import { MAX_CONCURRENCY_RANGE, MEMORY_SIZE_RANGE } from './pipeline-controller.js';
import type { PipelineControllerStackProps } from './stack.js';

export const DEFAULT_STACK_NAME = 'PipelineControllerStack';

export interface AppSettings {
  stackName: string;
  props: PipelineControllerStackProps;
  /** Things the person running the CLI should know (printed to stderr by infra/app.ts). */
  warnings: string[];
}

/** A context value that fails its key's schema; the message names the key (and never repeats a URL). */
export class ContextError extends Error {
  override name = 'ContextError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid CDK context (infra/README.md lists the keys):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

// ---------------------------------------------------------------- value forms

/** A string; a number in cdk.json (an account id) is taken as its digits. */
const text = z
  .union([z.string(), z.number()], { error: 'must be a string' })
  .transform((value) => String(value).trim());
const matching = (pattern: RegExp, what: string) => text.pipe(z.string().regex(pattern, { error: `must be ${what}` }));
const httpUrl = text.refine((value) => isHttpUrl(value), { error: 'must be an http(s) URL' });
const wholeNumber = (min: number, max: number) =>
  z
    .union(
      [
        z.number(),
        z
          .string()
          .trim()
          .regex(/^-?\d+(\.\d+)?$/)
          .transform(Number),
      ],
      { error: 'must be a number' },
    )
    .pipe(
      z
        .number()
        .int({ error: 'must be a whole number' })
        .min(min, { error: `must be from ${min}${max === Infinity ? '' : ` to ${max}`}` })
        .max(max, { error: `must be from ${min} to ${max}` }),
    );
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')], {
  error: 'must be true or false',
});
/** A JSON array (cdk.json, or `-c 'key=["a","b"]'`) or a comma-separated list (`-c key=a,b`). */
const list = z
  .unknown()
  .transform((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (!value.trim().startsWith('[')) return value.split(',');
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a list of strings (JSON array or comma-separated)' });
      return z.NEVER;
    }
  })
  .pipe(z.array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' }))
  .transform((items) => items.map((item) => item.trim()).filter((item) => item !== ''));
const oneOf = <T extends string>(values: readonly [T, ...T[]]) =>
  text.pipe(z.enum(values, { error: `must be ${values.join(' or ')}` }));

const arnOf = (service: string, resource: string, what: string) =>
  matching(new RegExp(`^arn:[\\w-]+:${service}:[\\w-]+:\\d{12}:${resource}$`), what);
/** A secret's complete ARN ends in `-` and 6 characters: Secret.fromSecretCompleteArn needs it for the IAM grant. */
const completeSecretArn = arnOf('secretsmanager', 'secret:.+-[A-Za-z0-9]{6}', 'the complete secret ARN (…-AbCdEf)');
const eventBusArn = arnOf('events', 'event-bus/.+', 'an EventBridge bus ARN');

const logRetentionDays = z
  .union([z.literal(INFINITE_RETENTION), wholeNumber(1, Infinity)], {
    error: `must be a retention CloudWatch Logs accepts: ${allowedLogRetentions()}`,
  })
  .refine((value) => value === INFINITE_RETENTION || isLogRetention(value), {
    error: `must be a retention CloudWatch Logs accepts: ${allowedLogRetentions()}`,
  })
  .transform((value) => (value === INFINITE_RETENTION ? logs.RetentionDays.INFINITE : (value as logs.RetentionDays)));

const memorySize = wholeNumber(MEMORY_SIZE_RANGE.min, MEMORY_SIZE_RANGE.max);

// ---------------------------------------------------------------- the keys

/** Every key the app reads. Their meaning: infra/README.md, "The app: context keys". */
const CONTEXT_SCHEMAS = {
  account: matching(/^\d{12}$/, 'a 12-digit AWS account id'),
  region: matching(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region such as eu-west-1'),
  stackName: matching(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'a CloudFormation stack name (letters, digits, hyphens)'),
  defaultCluster: text,
  secretsPrefix: text,
  retentionDays: wholeNumber(1, Infinity),
  githubApiUrl: httpUrl,
  gitlabApiUrl: httpUrl,
  bitbucketServerApiUrl: httpUrl,
  azureDevOpsApiUrl: httpUrl,
  pollSchedule: matching(/^(rate|cron)\(.+\)$/, 'a schedule expression such as rate(10 minutes) or cron(0 * * * ? *)'),
  removalPolicy: oneOf(['retain', 'destroy']),
  receiverReservedConcurrency: wholeNumber(1, Infinity),
  verifierMaxConcurrency: wholeNumber(MAX_CONCURRENCY_RANGE.min, MAX_CONCURRENCY_RANGE.max),
  receiverMemorySize: memorySize,
  verifierMemorySize: memorySize,
  pollerMemorySize: memorySize,
  architecture: oneOf(['arm64', 'x86_64']),
  tracing: flag,
  dashboard: flag,
  logRetentionDays,
  eksClusterArns: list,
  assumeRoleArns: list,
  cloudwatchAlarmArns: list,
  prometheusWorkspaceArns: list,
  encryptionKeyArn: arnOf('kms', 'key/.+', 'a KMS key ARN (arn:…:kms:<region>:<account>:key/<id>)'),
  alarmTopicArn: arnOf('sns', '[\\w-]+', 'an SNS topic ARN'),
  notificationWebhookUrl: httpUrl,
  notificationWebhookSecretArn: completeSecretArn,
  notificationEventBusArn: eventBusArn,
  notificationControllerUrl: httpUrl,
  notifySlackSecretArn: completeSecretArn,
  notifyWebhookSecretArn: completeSecretArn,
  notifyEventBusArn: eventBusArn,
  notifyNews: list.transform((kinds, ctx) => {
    const unknown = kinds.filter((kind) => !(NEWS_KINDS as readonly string[]).includes(kind));
    if (unknown.length === 0) return [...new Set(kinds as NewsKind[])];
    const names = unknown.map((kind) => JSON.stringify(kind)).join(', ');
    ctx.addIssue({ code: 'custom', message: `unknown ${names} (known: ${NEWS_KINDS.join(', ')})` });
    return z.NEVER;
  }),
  commitAuthorName: text,
  commitAuthorEmail: text,
} as const;

type ContextKey = keyof typeof CONTEXT_SCHEMAS;
type ContextValues = { [K in ContextKey]?: z.output<(typeof CONTEXT_SCHEMAS)[K]> };

export const CONTEXT_KEYS = Object.keys(CONTEXT_SCHEMAS) as ContextKey[];

/** Keys whose value is not repeated in an error: a URL may carry a token. */
const QUIET_KEYS: ReadonlySet<string> = new Set<ContextKey>([
  'githubApiUrl',
  'gitlabApiUrl',
  'bitbucketServerApiUrl',
  'azureDevOpsApiUrl',
  'notificationWebhookUrl',
  'notificationControllerUrl',
]);

/**
 * Keys that CDK and its CLI put into every app's context, or that a CDK app reads for itself: feature flags
 * (`@aws-cdk/…`, `@aws-cdk-containers/…`), the CLI's `aws:cdk:…` settings, cached lookups (`availability-zones:…`,
 * `vpc-provider:…`), and `cdk-…` keys. None of them is the app's to judge.
 */
export function isCdkContextKey(key: string): boolean {
  return key.startsWith('@') || key.startsWith('cdk-') || key.includes(':');
}

export function settingsFromContext(
  context: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): AppSettings {
  const values = parseContext(context);

  const warnings: string[] = [];
  // The env is explicit. Pitfall: with no region in the AWS config, the CDK CLI sets CDK_DEFAULT_REGION to
  // us-east-1 without a word; `-c region=…` (or AWS_REGION) makes the choice visible.
  const region = values.region ?? env.CDK_DEFAULT_REGION;
  const account = values.account ?? env.CDK_DEFAULT_ACCOUNT;
  if (values.region === undefined && !env.AWS_REGION && !env.AWS_DEFAULT_REGION) {
    warnings.push(
      `region ${region ?? '(none)'} was not chosen explicitly: it comes from the AWS profile, or it is the CDK ` +
        `CLI's us-east-1 fallback. Pass -c region=<region> to choose.`,
    );
  }

  const memory = {
    receiver: values.receiverMemorySize,
    verifier: values.verifierMemorySize,
    poller: values.pollerMemorySize,
  };
  const removal = values.removalPolicy;
  return {
    stackName: values.stackName ?? DEFAULT_STACK_NAME,
    warnings,
    props: {
      env: { account, region },
      description: 'pipeline-controller: serverless promotion controller for Flux fleets',
      controller: {
        pollSchedule: values.pollSchedule === undefined ? undefined : events.Schedule.expression(values.pollSchedule),
        defaultCluster: values.defaultCluster,
        removalPolicy:
          removal === undefined ? undefined : removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
        receiverReservedConcurrency: values.receiverReservedConcurrency,
        verifierMaxConcurrency: values.verifierMaxConcurrency,
        memorySize: Object.values(memory).some((size) => size !== undefined) ? memory : undefined,
        architecture:
          values.architecture === undefined
            ? undefined
            : values.architecture === 'x86_64'
              ? lambda.Architecture.X86_64
              : lambda.Architecture.ARM_64,
        tracing: values.tracing,
        dashboard: values.dashboard,
        logRetention: values.logRetentionDays,
        eksClusterArns: values.eksClusterArns,
        assumeRoleArns: values.assumeRoleArns,
        verification:
          values.cloudwatchAlarmArns === undefined && values.prometheusWorkspaceArns === undefined
            ? undefined
            : {
                cloudwatchAlarmArns: values.cloudwatchAlarmArns,
                prometheusWorkspaceArns: values.prometheusWorkspaceArns,
              },
        secretsPrefix: values.secretsPrefix,
        retentionDays: values.retentionDays,
        githubApiUrl: values.githubApiUrl,
        gitlabApiUrl: values.gitlabApiUrl,
        bitbucketServerApiUrl: values.bitbucketServerApiUrl,
        azureDevOpsApiUrl: values.azureDevOpsApiUrl,
        commitAuthor:
          values.commitAuthorName === undefined && values.commitAuthorEmail === undefined
            ? undefined
            : commitAuthorOf({ name: values.commitAuthorName, email: values.commitAuthorEmail }),
      },
      encryptionKeyArn: values.encryptionKeyArn,
      alarmTopicArn: values.alarmTopicArn,
      notificationWebhookUrl: values.notificationWebhookUrl,
      notificationWebhookSecretArn: values.notificationWebhookSecretArn,
      notificationEventBusArn: values.notificationEventBusArn,
      notificationControllerUrl: values.notificationControllerUrl,
      notifySlackSecretArn: values.notifySlackSecretArn,
      notifyWebhookSecretArn: values.notifyWebhookSecretArn,
      notifyEventBusArn: values.notifyEventBusArn,
      notifyNews: values.notifyNews,
    },
  };
}

/** Every key checked, every problem reported at once: one synth shows all that is wrong. */
function parseContext(context: Readonly<Record<string, unknown>>): ContextValues {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (isCdkContextKey(key)) continue;
    if (!(key in CONTEXT_SCHEMAS)) {
      const closest = closestName(key, CONTEXT_KEYS);
      problems.push(
        `unknown context key '${key}': ` +
          (closest ? `did you mean ${closest}?` : `the keys are ${CONTEXT_KEYS.join(', ')}`),
      );
      continue;
    }
    // An empty value is an unset key: `-c key=` clears what cdk.json says.
    if (value === undefined || value === null || value === '') continue;
    const result = CONTEXT_SCHEMAS[key as ContextKey].safeParse(value);
    if (result.success) {
      values[key] = result.data;
      continue;
    }
    const message = schemaMessage(result.error);
    const shown = QUIET_KEYS.has(key) ? '' : `, got ${JSON.stringify(value)}`;
    problems.push(`context ${key}: ${message}${shown}`);
  }
  if (problems.length > 0) throw new ContextError(problems);
  return values;
}
