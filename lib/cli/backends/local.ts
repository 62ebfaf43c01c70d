// The local data directory as a Backend. While `serve` runs, the store is its dynalite (over HTTP, signed with the
// access key serve.json holds) and messages go to it through its loopback-only message route; otherwise the CLI
// opens the data directory itself, which checks the store first (lib/local/store-check.ts). Its Secrets are the data
// directory's (as serve reads them), and the Git API URLs those the running serve promotes through; it has no AWS
// identity, so no EKS access, as serve has none. A directory that holds no store is refused before anything is
// written to it, unless the command is one that makes a store, or compares with an empty one (MissingStore).
import { userInfo } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localUserIdentity } from '../../pipeline/approver-identity.js';
import { signatureHeader } from '../../signing/hmac.js';
import {
  dataDirHolding,
  LOCAL_TABLE_NAME,
  loadOrCreateMasterKeys,
  readSecrets,
  unreachableWorldReason,
  isDemoDataDir,
  readServeInfo,
  writeSecrets,
  type DataDirHolding,
} from '../../local/data-dir.js';
import { localDynamoClient, startEmptyDynamo, startLocalDynamo, type LocalDynamo } from '../../local/dynamo.js';
import { dynaliteEntry } from '../../local/dynalite-module.js';
import { LOCAL_MESSAGES_PATH } from '../../local/messages-route.js';
import { shellCommand } from '../../util/shell-word.js';
import { CliError } from '../errors.js';
import { DEFAULT_DATA_DIR } from '../../local/data-dir.js';
import { DataDirSecretSource } from '../../local/secrets.js';
import { objectKeyString } from '../../pipeline/model.js';
import { encodeMessage } from '../../queue/messages.js';
import { createDynamoStore } from '../../store/index.js';
import type { Backend, NotificationSinksInfo } from '../backend.js';
import { purposeTagValue } from '../../secrets/uses.js';
import type { Logger } from '../../logging/logger.js';
import { printStderr } from '../output.js';

// The route a running `serve` takes queue messages on (loopback only, signed with the master key); defined next to
// the handler in lib/local.
export { LOCAL_MESSAGES_PATH };

/** What opening the data directory has to say (permissions tightened, an unclean last stop): one line on stderr. */
export const STDERR_WARNINGS: Logger = {
  debug() {},
  info() {},
  warn: (message) => printStderr(`warning: ${message}`),
  error: (message, attributes) => printStderr(`error: ${message}${attributes ? ` ${JSON.stringify(attributes)}` : ''}`),
};

/**
 * What opening does with a data directory that holds no store (absent, empty, or only other files in it): `create`
 * one, as serve does (the default); `create-noted`, the same with a note on stderr (`apply`, so that a mistyped
 * --data-dir is seen at once); `empty-noted`, an empty store in memory instead, with a note on stderr, and nothing
 * made there (`apply --dry-run`: it compares with "nothing stored" and writes nothing); or `refuse` it, naming the
 * directory and what to do, before anything is written there (every command that reads or acts on what is stored: a
 * new empty store would only answer "nothing stored").
 */
export type MissingStore = 'create' | 'create-noted' | 'empty-noted' | 'refuse';

export interface LocalBackendOptions {
  /** Default `create`. */
  missingStore?: MissingStore;
}

export async function openLocalBackend(
  dataDir: string,
  logger: Logger = STDERR_WARNINGS,
  options: LocalBackendOptions = {},
): Promise<Backend> {
  const missingStore = options.missingStore ?? 'create';
  dynaliteEntry(); // the local store's dynalite, before anything is said or done about the data directory
  if (missingStore === 'refuse') await requireStore(dataDir);
  const holding = missingStore === 'refuse' ? 'store' : await dataDirHolding(dataDir);
  const noStore = holding === 'absent' || holding === 'no-store';
  if (noStore && missingStore === 'create-noted') {
    printStderr(`note: ${dataDir} holds no store yet: a new one is made there`);
  }
  if (noStore && missingStore === 'empty-noted') {
    printStderr(`note: ${dataDir} holds no store yet: compared with an empty one, and none is made (dry run)`);
    return emptyBackend(dataDir, await startEmptyDynamo({ logger }));
  }
  const serve = await readServeInfo(dataDir);
  let close: () => Promise<void>;
  let client: DynamoDBClient;
  if (serve) {
    // The running serve's store takes only requests signed with its access key, which serve.json holds.
    client = localDynamoClient(serve.dynamoEndpoint, serve.dynamoAccessKey);
    close = () => Promise.resolve(client.destroy());
  } else {
    const dynamo = await startLocalDynamo(dataDir, { logger });
    client = dynamo.client;
    close = () => dynamo.stop();
  }
  const masterKeys = () => loadOrCreateMasterKeys(dataDir);
  return {
    description: serve
      ? `local data directory ${dataDir} (serve running at ${serve.receiverUrl})`
      : `local data directory ${dataDir}`,
    store: createDynamoStore({ client, tableName: LOCAL_TABLE_NAME }),
    putSecret: async (key, values, purposes) => {
      const secrets = await readSecrets(dataDir);
      secrets[objectKeyString(key)] = { values: { ...values }, purposes: [...purposes] };
      await writeSecrets(dataDir, secrets);
    },
    secretKeys: async (key) => {
      const secret = (await readSecrets(dataDir))[objectKeyString(key)];
      return secret && Object.keys(secret.values);
    },
    setSecretPurposes: async (key, purposes) => {
      const secrets = await readSecrets(dataDir);
      const secret = secrets[objectKeyString(key)];
      if (!secret) return 'missing';
      if (purposeTagValue(purposes) === purposeTagValue(secret.purposes)) return 'unchanged';
      secret.purposes = [...new Set(purposes)].sort();
      await writeSecrets(dataDir, secrets);
      return 'changed';
    },
    enqueue: async (message) => {
      if (!serve) return false;
      const body = encodeMessage(message);
      const response = await fetch(`${serve.receiverUrl}${LOCAL_MESSAGES_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-signature': signatureHeader(body, (await masterKeys()).current),
        },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 202) throw new Error(`the running serve refused the message (HTTP ${response.status})`);
      return true;
    },
    masterKeys,
    identity: () => Promise.resolve(localUserIdentity(userInfo().username)),
    notificationSinks: () => Promise.resolve(localNotificationSinks(serve?.notificationSinks, serve !== undefined)),
    readsEks: false,
    secrets: new DataDirSecretSource(dataDir),
    gitApiUrls: () => Promise.resolve({ ...serve?.gitApiUrls }),
    unreachableReason: () => unreachableWorldReason(dataDir),
    simulated: () => isDemoDataDir(dataDir),
    close,
  };
}

/**
 * The data directory as nothing stored, for a run that writes nothing: its store is an empty one in memory, it holds
 * no Secrets, and every write to the directory (a Secret, a master key) is refused, so none can make it by mistake.
 */
function emptyBackend(dataDir: string, dynamo: Pick<LocalDynamo, 'client' | 'stop'>): Backend {
  const refuse = (what: string) => () =>
    Promise.reject(new Error(`${dataDir} holds no store and this run makes none: ${what} is not written`));
  return {
    description: `local data directory ${dataDir} (no store yet)`,
    store: createDynamoStore({ client: dynamo.client, tableName: LOCAL_TABLE_NAME }),
    putSecret: refuse('a Secret'),
    secretKeys: () => Promise.resolve(undefined),
    setSecretPurposes: () => Promise.resolve('missing'),
    enqueue: () => Promise.resolve(false),
    masterKeys: refuse('a master key'),
    identity: () => Promise.resolve(localUserIdentity(userInfo().username)),
    notificationSinks: () => Promise.resolve(localNotificationSinks(undefined, false)),
    readsEks: false,
    secrets: new DataDirSecretSource(dataDir),
    gitApiUrls: () => Promise.resolve({}),
    close: () => dynamo.stop(),
  };
}

const SERVE_SINK_FLAGS = '--notification-webhook-url, --notification-controller-url or --notification-event-bus';

/** What the running serve recorded in serve.json; without a running serve, nothing can be told. */
function localNotificationSinks(kinds: readonly string[] | undefined, running: boolean): NotificationSinksInfo {
  const remedy = `pipelinectl serve must be started with ${SERVE_SINK_FLAGS}`;
  if (kinds) return { known: true, kinds, remedy };
  return {
    known: false,
    reason: running ? 'the running serve does not record its sinks: restart it' : 'pipelinectl serve is not running',
    remedy,
  };
}

/**
 * Refuses a data directory that holds no store, before anything is written to it: what was found there, and the ways
 * on (the right --data-dir, or a store made there first), as commands to paste.
 */
export async function requireStore(dataDir: string): Promise<void> {
  const holding = await dataDirHolding(dataDir);
  if (holding !== 'store') throw noStore(dataDir, holding);
}

function noStore(dataDir: string, holding: Exclude<DataDirHolding, 'store'>): CliError {
  const named = dataDir === DEFAULT_DATA_DIR ? `${dataDir} (the default --data-dir)` : dataDir;
  const found: Record<typeof holding, string> = {
    absent: `the data directory ${named} does not exist`,
    'no-store':
      `the data directory ${named} holds no pipeline-controller store ` +
      '(no dynamodb/, master-key.json or secrets.json)',
    'not-a-directory': `the data directory ${named} is not a directory`,
  };
  const flags = dataDir === DEFAULT_DATA_DIR ? [] : ['--data-dir', dataDir];
  const serve = shellCommand(['pipelinectl', 'serve', '--config', 'DIR', ...flags]);
  const apply = shellCommand(['pipelinectl', 'apply', '-f', 'PATH', ...flags]);
  const elsewhere = 'pass the --data-dir that pipelinectl serve uses (or --aws for a deployed stack)';
  if (holding === 'not-a-directory') return new CliError(`${found[holding]}: ${elsewhere}`);
  return new CliError(`${found[holding]}: ${elsewhere}, or make a store there first with ${serve} or ${apply}`);
}
