// The AWS side of the ports, built once per warm Lambda container from the function's environment variables
// (set by the CDK construct): the three functions read their configuration here and nowhere else. The table is
// only named here, not opened: each function opens as much of the Store as it uses (aws-dependencies.ts for the
// verifier and the poller, `createReceiverStore` for the receiver), so the receiver's bundle holds none of the
// Store's other entity modules.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
// zod/mini, not zod's classic API: the receiver reads its environment here, and the classic API would add about 65 KiB
// to the receiver's bundle and to what each of its cold starts compiles. One classic import anywhere in the
// receiver's import graph brings all of it back (test/infra/zod-mini.test.ts).
import * as z from 'zod/mini';
import { commitAuthorProblems, DEFAULT_COMMIT_AUTHOR } from '../promotion/pull-request/commit-author.js';
import { SqsDeadLetters, SqsQueue } from '../queue/index.js';
import { SecretsManagerSecretSource } from '../secrets/secrets-manager.js';
import { masterKeysFromValues, type MasterKeys } from '../secrets/master-keys.js';
import { DEFAULT_SECRETS_PREFIX } from '../secrets/prefix.js';
// Not through lib/store/index.ts: its graph holds the whole Store, which the receiver does not load.
import type { DynamoTableOptions } from '../store/index.js';
import { DEFAULT_RETENTION_DAYS } from '../store/retention.js';
import { issueFields } from '../util/zod-issue.js';
import { perContainer } from './per-container.js';

const Environment = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  QUEUE_URL: z.string().check(z.url()),
  DEAD_LETTER_QUEUE_URL: z.string().check(z.url()),
  /** Secrets Manager id of the master HMAC key: a JSON object `{ "current": "…", "previous": "…" }`. */
  MASTER_KEY_SECRET_ID: z.string().check(z.minLength(1)),
  /** Prefix of the Secrets Manager secrets that hold configuration Secrets (`<prefix><ns>/<name>`). */
  SECRETS_PREFIX: z._default(z.string(), DEFAULT_SECRETS_PREFIX),
  /** Days audit entries and finished promotion records are kept. */
  RETENTION_DAYS: z._default(z.coerce.number().check(z.int(), z.positive()), DEFAULT_RETENTION_DAYS),
  /** GitHub API base for every pull-request promotion (GitHub Enterprise); default derived from each repo URL. */
  GITHUB_API_URL: z.optional(z.string().check(z.url())),
  /** GitLab API base (`https://host/api/v4`) for every GitLab repository; default derived from each repo URL. */
  GITLAB_API_URL: z.optional(z.string().check(z.url())),
  /** Bitbucket Server base URL (`https://host[/context]`); default derived from each repo URL. */
  BITBUCKET_SERVER_API_URL: z.optional(z.string().check(z.url())),
  /** Azure DevOps collection URL (`https://dev.azure.com/org`); default derived from each repo URL. */
  AZURE_DEVOPS_API_URL: z.optional(z.string().check(z.url())),
  /** Where the notification strategy POSTs its Flux-format event (optional). */
  NOTIFICATION_WEBHOOK_URL: z.optional(z.string().check(z.url())),
  /** Secrets Manager id of a JSON object whose `token` signs the webhook like Flux's generic-hmac (optional). */
  NOTIFICATION_WEBHOOK_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** EventBridge bus (name or ARN) the notification strategy puts its event on (optional). */
  NOTIFICATION_EVENT_BUS: z.optional(z.string().check(z.minLength(1))),
  /** A Flux notification-controller's event receiver the notification strategy POSTs to, as Weave did (optional). */
  NOTIFICATION_CONTROLLER_URL: z.optional(z.string().check(z.url())),
  /** Secrets Manager id of a JSON object whose `url` is a Slack incoming webhook: notifications to people (optional). */
  NOTIFY_SLACK_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** Secrets Manager id of a JSON object with `url` and an optional `token` (HMAC key) for the news webhook. */
  NOTIFY_WEBHOOK_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** EventBridge bus (name or ARN) the news are put on (optional). */
  NOTIFY_EVENT_BUS: z.optional(z.string().check(z.minLength(1))),
  /** The kinds of news sent, comma-separated; default all. */
  NOTIFY_NEWS: z.optional(z.string()),
  /** What a pasted approve command needs after its arguments to reach this stack, e.g. `--aws --stack Pipelines`. */
  NOTIFY_APPROVE_FLAGS: z.optional(z.string()),
  /** The pull request commit's author; default Weave's `Promotion Server`. */
  COMMIT_AUTHOR_NAME: z.optional(
    z
      .string()
      .check(z.refine((name) => commitAuthorProblems({ name, email: DEFAULT_COMMIT_AUTHOR.email }).length === 0)),
  ),
  /** Its e-mail; default `promotion-server@pipeline-controller.invalid`. */
  COMMIT_AUTHOR_EMAIL: z.optional(
    z
      .string()
      .check(z.refine((email) => commitAuthorProblems({ name: DEFAULT_COMMIT_AUTHOR.name, email }).length === 0)),
  ),
});

/** The variables the functions read (the CDK construct sets them; docs/deploying.md, "Lambda environment"). */
export const AWS_ENVIRONMENT_VARIABLES = Object.keys(Environment.shape) as (keyof typeof Environment.shape)[];
export type AwsEnvironment = z.infer<typeof Environment>;

/** The function's configuration; a missing or malformed variable is named in the error (values are not shown). */
export function readAwsEnvironment(env: NodeJS.ProcessEnv = process.env): AwsEnvironment {
  const result = Environment.safeParse(env);
  if (result.success) return result.data;
  throw new Error(`missing or invalid environment variables: ${issueFields(result.error).join(', ')}`);
}

export interface AwsClients {
  environment: AwsEnvironment;
  /** The DynamoDB client and the table's name and retention: the Store and the GitHub marker scan open it. */
  dynamo: DynamoTableOptions;
  queue: SqsQueue;
  deadLetters: SqsDeadLetters;
  secrets: SecretsManagerSecretSource;
  masterKeys(): Promise<MasterKeys>;
}

/** Built on first use and reused by later invocations of the same warm container. */
export const awsClients: () => AwsClients = perContainer(() => buildAwsClients(process.env));

function buildAwsClients(env: NodeJS.ProcessEnv): AwsClients {
  const environment = readAwsEnvironment(env);
  const sqs = new SQSClient({});
  const secrets = new SecretsManagerSecretSource({
    client: new SecretsManagerClient({}),
    prefix: environment.SECRETS_PREFIX,
  });
  return {
    environment,
    dynamo: {
      client: new DynamoDBClient({}),
      tableName: environment.TABLE_NAME,
      retentionDays: environment.RETENTION_DAYS,
    },
    queue: new SqsQueue({ client: sqs, queueUrl: environment.QUEUE_URL }),
    deadLetters: new SqsDeadLetters({ client: sqs, queueUrl: environment.DEAD_LETTER_QUEUE_URL }),
    secrets,
    // The master key is not a configuration Secret: it has its own id, outside the prefix.
    masterKeys: async () =>
      masterKeysFromValues(await secrets.getById(environment.MASTER_KEY_SECRET_ID), 'the master key secret'),
  };
}
