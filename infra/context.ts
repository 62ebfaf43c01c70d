// CDK context → the stack's props (infra/README.md, "Context keys"). Values come from `-c key=value` (strings) or
// from cdk.json (any JSON), so every reader accepts both forms.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { parseNewsKinds } from '../lib/notify/settings.js';
import { commitAuthorOf } from '../lib/promotion/pull-request/commit-author.js';
import type { PipelineControllerStackProps } from './stack.js';

export const DEFAULT_STACK_NAME = 'PipelineControllerStack';

export interface AppSettings {
  stackName: string;
  props: PipelineControllerStackProps;
  /** Things the person running the CLI should know (printed to stderr by infra/app.ts). */
  warnings: string[];
}

export function settingsFromContext(
  read: (key: string) => unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
): AppSettings {
  const text = (key: string): string | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    return typeof value === 'string' ? value.trim() : JSON.stringify(value);
  };
  const number = (key: string): number | undefined => {
    const value = text(key);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new Error(`context ${key} must be a number, got '${value}'`);
    return parsed;
  };
  /** A JSON array (cdk.json, or `-c 'key=["a","b"]'`) or a comma-separated list (`-c key=a,b`). */
  const list = (key: string): string[] | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    let items: unknown = value;
    if (typeof value === 'string') items = value.trim().startsWith('[') ? JSON.parse(value) : value.split(',');
    if (!Array.isArray(items) || !items.every((item): item is string => typeof item === 'string')) {
      throw new Error(`context ${key} must be a list of strings`);
    }
    return items.map((item) => item.trim()).filter((item) => item !== '');
  };

  const warnings: string[] = [];
  // The env is explicit. Pitfall: with no region in the AWS config, the CDK CLI sets CDK_DEFAULT_REGION to
  // us-east-1 without a word; `-c region=…` (or AWS_REGION) makes the choice visible.
  const region = text('region') ?? env.CDK_DEFAULT_REGION;
  const account = text('account') ?? env.CDK_DEFAULT_ACCOUNT;
  if (text('region') === undefined && !env.AWS_REGION && !env.AWS_DEFAULT_REGION) {
    warnings.push(
      `region ${region ?? '(none)'} was not chosen explicitly: it comes from the AWS profile, or it is the CDK ` +
        `CLI's us-east-1 fallback. Pass -c region=<region> to choose.`,
    );
  }

  const removal = text('removalPolicy');
  if (removal !== undefined && removal !== 'retain' && removal !== 'destroy') {
    throw new Error(`context removalPolicy must be retain or destroy, got '${removal}'`);
  }
  const schedule = text('pollSchedule');
  const logRetentionDays = number('logRetentionDays');
  const commitAuthorName = text('commitAuthorName');
  const commitAuthorEmail = text('commitAuthorEmail');
  const notifyNews = list('notifyNews');

  return {
    stackName: text('stackName') ?? DEFAULT_STACK_NAME,
    warnings,
    props: {
      env: { account, region },
      description: 'pipeline-controller: serverless promotion controller for Flux fleets',
      controller: {
        pollSchedule: schedule === undefined ? undefined : events.Schedule.expression(schedule),
        defaultCluster: text('defaultCluster'),
        removalPolicy:
          removal === undefined ? undefined : removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
        receiverReservedConcurrency: number('receiverReservedConcurrency'),
        verifierMaxConcurrency: number('verifierMaxConcurrency'),
        // RetentionDays' values are the numbers of days; CloudFormation rejects a number it does not list.
        logRetention: logRetentionDays as logs.RetentionDays | undefined,
        eksClusterArns: list('eksClusterArns'),
        assumeRoleArns: list('assumeRoleArns'),
        secretsPrefix: text('secretsPrefix'),
        retentionDays: number('retentionDays'),
        githubApiUrl: text('githubApiUrl'),
        gitlabApiUrl: text('gitlabApiUrl'),
        bitbucketServerApiUrl: text('bitbucketServerApiUrl'),
        azureDevOpsApiUrl: text('azureDevOpsApiUrl'),
        commitAuthor:
          commitAuthorName === undefined && commitAuthorEmail === undefined
            ? undefined
            : commitAuthorOf({ name: commitAuthorName, email: commitAuthorEmail }),
      },
      alarmTopicArn: text('alarmTopicArn'),
      notificationWebhookUrl: text('notificationWebhookUrl'),
      notificationWebhookSecretArn: text('notificationWebhookSecretArn'),
      notificationEventBusArn: text('notificationEventBusArn'),
      notificationControllerUrl: text('notificationControllerUrl'),
      notifySlackSecretArn: text('notifySlackSecretArn'),
      notifyWebhookSecretArn: text('notifyWebhookSecretArn'),
      notifyEventBusArn: text('notifyEventBusArn'),
      notifyNews: notifyNews === undefined ? undefined : parseNewsKinds(notifyNews.join(','), 'context notifyNews'),
    },
  };
}
