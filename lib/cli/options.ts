// The flags every command shares: where to act (the local data directory, or a deployed stack with `--aws`) and the
// default cluster. They are declared, read and checked here only, so every command takes them the same way.
import { Option, type Command } from 'commander';
import type { ObjectKey } from '../pipeline/model.js';
import type { Backend } from './backend.js';
import type { AwsBackendOptions } from './backends/aws.js';
import { DEFAULT_DATA_DIR, openBackend, type BackendOptions } from './backends/open.js';
import type { MissingStore } from './backends/local.js';
import { CliError } from './errors.js';
import { parseObjectKey } from './flags.js';

const WHERE = 'Where to act (local data directory, or a deployed stack with --aws):';

/** The AWS flags, each also read from its environment variable (a flag on the command line wins). */
const AWS_FLAGS = [
  {
    flags: '--stack <name>',
    env: 'PIPELINES_STACK',
    description: "read the table, queues and master key secret from this CloudFormation stack's outputs",
  },
  { flags: '--table <name>', env: 'PIPELINES_TABLE', description: 'the DynamoDB table (stack output TableName)' },
  { flags: '--queue-url <url>', env: 'PIPELINES_QUEUE_URL', description: 'the work queue (stack output QueueUrl)' },
  {
    flags: '--dead-letter-queue-url <url>',
    env: 'PIPELINES_DEAD_LETTER_QUEUE_URL',
    description: 'the dead-letter queue (stack output DeadLetterQueueUrl)',
  },
  {
    flags: '--master-key-secret <id>',
    env: 'PIPELINES_MASTER_KEY_SECRET',
    description: 'Secrets Manager id or ARN of the master HMAC key (stack output MasterKeySecretArn)',
  },
  {
    flags: '--secrets-prefix <prefix>',
    env: 'PIPELINES_SECRETS_PREFIX',
    description: 'prefix of the Secrets Manager secrets holding Secrets (default "pipeline-controller/")',
  },
  { flags: '--region <region>', env: undefined, description: 'AWS region (default: AWS_REGION or the profile)' },
] as const;

/** The long names of the AWS flags, e.g. `--stack`. */
const AWS_LONG_FLAGS: readonly string[] = AWS_FLAGS.map((flag) => flag.flags.split(' ')[0] ?? flag.flags);

interface BackendFlags {
  dataDir: string;
  aws?: boolean;
  stack?: string;
  table?: string;
  queueUrl?: string;
  deadLetterQueueUrl?: string;
  masterKeySecret?: string;
  secretsPrefix?: string;
  region?: string;
  defaultCluster?: string;
}

/** Adds the shared flags to a command. */
export function addBackendOptions(command: Command): Command {
  command.addOption(
    new Option('--data-dir <dir>', "the local mode's data directory").default(DEFAULT_DATA_DIR).helpGroup(WHERE),
  );
  command.addOption(new Option('--aws', 'act on a deployed stack instead of the data directory').helpGroup(WHERE));
  for (const flag of AWS_FLAGS) {
    const option = new Option(flag.flags, flag.description).helpGroup(WHERE);
    if (flag.env) option.env(flag.env);
    command.addOption(option);
  }
  command.addOption(
    new Option('--default-cluster <ns/name>', 'the GitopsCluster that targets without a clusterRef run on')
      .env('PIPELINES_DEFAULT_CLUSTER')
      .helpGroup(WHERE),
  );
  return command;
}

/** Where the command acts, from its flags; the default cluster is parsed and checked here. */
export function backendOptionsOf(command: Command): BackendOptions & { defaultCluster?: ObjectKey } {
  const flags = command.opts<BackendFlags>();
  const defaultCluster =
    flags.defaultCluster === undefined ? undefined : parseObjectKey(flags.defaultCluster, '--default-cluster');
  if (!flags.aws) {
    // An AWS flag typed on the command line without --aws is a mistake; one from the environment is only a default.
    const [typed] = typedAwsFlags(command);
    if (typed) {
      throw new CliError(
        `${typed.long} acts on a deployed stack: add --aws (without it the local data directory is used)`,
      );
    }
    return { dataDir: flags.dataDir, defaultCluster };
  }
  if (command.getOptionValueSource('dataDir') === 'cli') {
    throw new CliError('--data-dir and --aws exclude each other: choose the local data directory or a stack');
  }
  const aws: AwsBackendOptions = {
    stack: flags.stack,
    table: flags.table,
    queueUrl: flags.queueUrl,
    deadLetterQueueUrl: flags.deadLetterQueueUrl,
    masterKeySecretId: flags.masterKeySecret,
    secretsPrefix: flags.secretsPrefix,
    region: flags.region,
    defaultCluster,
  };
  return { aws, defaultCluster };
}

/**
 * The flags of this run that chose where it acts, as words another pipelinectl command takes to act on the same
 * backend (the approve command `status` prints): `--data-dir DIR` unless it is the default, or `--aws` and each AWS
 * flag typed on the command line. Flags read from the environment are left out: the same shell gives them to the
 * pasted command too, and the hint stays as short as what the user typed.
 */
export function backendFlags(command: Command): string[] {
  const flags = command.opts<BackendFlags>();
  if (!flags.aws) return flags.dataDir === DEFAULT_DATA_DIR ? [] : ['--data-dir', flags.dataDir];
  const typed = typedAwsFlags(command).flatMap(({ long, value }) => [long, value]);
  return ['--aws', ...typed];
}

/** The AWS flags typed on the command line (not those filled in from the environment), in the order of --help. */
function typedAwsFlags(command: Command): { long: string; value: string }[] {
  return command.options.flatMap((option) =>
    option.long !== undefined &&
    AWS_LONG_FLAGS.includes(option.long) &&
    command.getOptionValueSource(option.attributeName()) === 'cli'
      ? [{ long: option.long, value: String(command.getOptionValue(option.attributeName())) }]
      : [],
  );
}

/**
 * The commands run here that make a store in a data directory that holds none: `apply`, which is how a data
 * directory starts besides `serve` and `demo` (which open theirs themselves). Every other command refuses such a
 * directory (a mistyped --data-dir would otherwise become a new, empty store that answers "nothing stored"). Their
 * dry run makes nothing either: it compares with an empty store held in memory.
 */
const STORE_MAKING_COMMANDS: ReadonlySet<string> = new Set(['apply']);

/** Opens the backend the flags name, runs `action` on it and closes it, whatever happens. */
export async function withBackend<T>(
  command: Command,
  action: (backend: Backend, context: { defaultCluster?: ObjectKey }) => Promise<T>,
): Promise<T> {
  const missingStore: MissingStore = !STORE_MAKING_COMMANDS.has(command.name())
    ? 'refuse'
    : command.opts<{ dryRun?: boolean }>().dryRun
      ? 'empty-noted'
      : 'create-noted';
  const options = { ...backendOptionsOf(command), missingStore };
  const backend = await openBackend(options);
  try {
    return await action(backend, { defaultCluster: options.defaultCluster ?? backend.defaultCluster });
  } finally {
    await backend.close();
  }
}

/** `-o, --output <format>` with the given choices, the first being the default. */
export function outputOption(formats: readonly [string, ...string[]]): Option {
  return new Option('-o, --output <format>', 'output format').choices(formats).default(formats[0]);
}
