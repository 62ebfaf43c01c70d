// A ConfigSource's sync (docs/config-sources.md): read the branch head (one request); when that commit was never
// attempted for the source's current spec, take the sync (one conditional write: of many webhooks and polls for one
// commit, one syncs it), read the folder at that commit, validate it exactly as `apply` does against what is
// stored, and apply all of it or none: objects created and changed, owned by the source, what the commit no longer
// holds pruned. The outcome is the source's status, Flux's way (a `Ready` condition with a reason), an audit entry
// for an applied commit that changed something, and a notification for a commit that failed.
import { applyConfiguration, type ApplyPorts, type ApplyRefusal } from '../apply/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { redact } from '../logging/redaction.js';
import type { Logger } from '../logging/logger.js';
import type { ConfigSyncClaim, ConfigSyncReason, ConfigSyncResult, StoredConfigSource, Store } from '../store/port.js';
import type { ConfigurationSources } from '../config/index.js';
import { admissionProblems, readDocuments } from './documents.js';
import { SourceReadError, SourceRepository, type GitAccess } from './repository.js';
import { errorMessage } from '../util/error-message.js';

/** How long a sync holds its commit before another may take it over (a sync takes seconds). */
export const SYNC_LEASE_MS = 5 * 60_000;

/** Problems named in the status message; the rest are counted. */
const PROBLEMS_SHOWN = 20;

export interface SyncDeps {
  store: Store;
  git: GitAccess;
  /** Where the configuration is applied: the store, the Secrets' key names, the queue to the verifier. */
  apply: Omit<ApplyPorts, 'identity' | 'description' | 'putSecret'>;
  logger: Pick<Logger, 'info' | 'warn'>;
  now: () => Date;
  /** Told once per commit that failed (the claim of its notification is the caller's). */
  onFailure?: (failure: ConfigSyncFailure) => Promise<void>;
}

export interface ConfigSyncFailure {
  source: ObjectKey;
  revision?: string;
  reason: ConfigSyncReason;
  message: string;
}

export type SyncOutcome =
  | { outcome: 'gone' }
  /** The head was attempted already for this spec: nothing written. */
  | { outcome: 'up-to-date'; revision: string }
  /** Another sync holds the source (this commit's, or an earlier one's still under way). */
  | { outcome: 'busy'; revision: string }
  | { outcome: 'applied'; revision: string; lines: string[] }
  | { outcome: 'failed'; revision?: string; reason: ConfigSyncReason; message: string };

/** Syncs one ConfigSource with its branch head. Never throws for what the repository holds or answers. */
export async function syncConfigSource(key: ObjectKey, deps: SyncDeps): Promise<SyncOutcome> {
  const stored = await deps.store.getConfigSource(key);
  if (!stored) return { outcome: 'gone' };
  const { spec } = stored.document;

  let repository: SourceRepository;
  let head: string;
  try {
    repository = await SourceRepository.open(stored.document, deps.git, deps.logger);
    head = await repository.head(spec.branch);
  } catch (error) {
    // Nothing is known of the commit: the status says why (written only when it says something new).
    return failBeforeHead(stored, key, error, deps);
  }
  const revision = `${spec.branch}@sha1:${head}`;
  if (stored.status.lastAttemptedRevision === revision && stored.status.attemptedGeneration === stored.generation) {
    return { outcome: 'up-to-date', revision };
  }
  const claim = await deps.store.claimConfigSync(key, revision, stored.generation, deps.now(), SYNC_LEASE_MS);
  if (!claim) return { outcome: 'busy', revision };
  return applyCommit(stored, repository, claim, head, deps);
}

async function applyCommit(
  stored: StoredConfigSource,
  repository: SourceRepository,
  claim: ConfigSyncClaim,
  commit: string,
  deps: SyncDeps,
): Promise<SyncOutcome> {
  const { spec } = stored.document;
  const { source: key, revision } = claim;
  const actor = actorOf(key);
  let read: ConfigurationSources;
  try {
    read = readDocuments(await repository.files(commit));
  } catch (error) {
    const failure = readFailure(error);
    return finishFailed(claim, failure.reason, `${revision}: ${failure.message}`, !failure.retry, deps);
  }
  const result = await applyConfiguration(
    {
      ...deps.apply,
      description: `ConfigSource ${objectKeyString(key)}`,
      identity: () => Promise.resolve(actor),
      putSecret,
    },
    {
      source: { sources: read },
      documents: 'config-source',
      owner: { configSource: key, revision },
      prune: spec.prune ?? true,
      admit: (configuration) => admissionProblems(configuration, spec.namespaces),
      now: deps.now,
    },
  );
  if (!result.ok) {
    return finishFailed(claim, reasonOf(result.refusal), problemsMessage(revision, result.problems), true, deps);
  }
  const { changes } = result;
  const applied = result.objects;
  const changed = changes.created.length + changes.configured.length + changes.pruned.length;
  const summary =
    `applied ${revision}: ${applied} object${applied === 1 ? '' : 's'} (${changes.created.length} created, ` +
    `${changes.configured.length} configured, ${changes.pruned.length} pruned), ${result.skipped} ` +
    `document${result.skipped === 1 ? '' : 's'} of other kinds skipped`;
  if (changed > 0) {
    const author = await repository.author(commit);
    await deps.store.appendConfigAudit({
      at: deps.now().toISOString(),
      configSource: key,
      type: 'config-applied',
      revision,
      ...(author === undefined ? {} : { author }),
      message: summary,
      created: changes.created,
      configured: changes.configured,
      pruned: changes.pruned,
      actor,
    });
  }
  await deps.store.finishConfigSync(
    claim,
    {
      attempted: true,
      appliedRevision: revision,
      applied,
      skipped: result.skipped,
      ready: { status: 'True', reason: 'Succeeded', message: summary },
    },
    deps.now(),
  );
  deps.logger.info('config source applied', { configSource: objectKeyString(key), revision, changed });
  return { outcome: 'applied', revision, lines: result.lines };
}

/** Records a failed sync of a commit and tells people once per commit; `attempted` false retries it next time. */
async function finishFailed(
  claim: ConfigSyncClaim,
  reason: ConfigSyncReason,
  message: string,
  attempted: boolean,
  deps: SyncDeps,
): Promise<SyncOutcome> {
  const text = redact(message);
  const result: ConfigSyncResult = { attempted, ready: { status: 'False', reason, message: text } };
  await deps.store.finishConfigSync(claim, result, deps.now());
  deps.logger.warn('config source not applied', {
    configSource: objectKeyString(claim.source),
    revision: claim.revision,
    reason,
  });
  if (attempted) await deps.onFailure?.({ source: claim.source, revision: claim.revision, reason, message: text });
  return { outcome: 'failed', revision: claim.revision, reason, message: text };
}

async function failBeforeHead(
  stored: StoredConfigSource,
  key: ObjectKey,
  error: unknown,
  deps: SyncDeps,
): Promise<SyncOutcome> {
  const { reason, message } = readFailure(error);
  const text = redact(message);
  const ready = stored.status.conditions.find((condition) => condition.type === 'Ready');
  const unchanged = ready?.status === 'False' && ready.reason === reason && ready.message === text;
  if (!unchanged) {
    // A claim of no commit: it keeps concurrent syncs from writing over each other, and attempts nothing.
    const claim = await deps.store.claimConfigSync(key, '', stored.generation, deps.now(), SYNC_LEASE_MS);
    if (claim) {
      await deps.store.finishConfigSync(
        claim,
        { attempted: false, ready: { status: 'False', reason, message: text } },
        deps.now(),
      );
    }
    deps.logger.warn('config source not read', { configSource: objectKeyString(key), reason });
  }
  return { outcome: 'failed', reason, message: text };
}

function readFailure(error: unknown): { reason: ConfigSyncReason; message: string; retry: boolean } {
  if (error instanceof SourceReadError) return { reason: error.reason, message: error.message, retry: error.retry };
  return { reason: 'GitUnavailable', message: errorMessage(error), retry: true };
}

function reasonOf(refusal: ApplyRefusal): ConfigSyncReason {
  return refusal === 'conflict' ? 'Conflict' : 'ValidationFailed';
}

/** `<revision>: 3 problems: pipelines/a.yaml:4:3: Pipeline …: spec…: …; …` */
function problemsMessage(revision: string, problems: readonly string[]): string {
  const shown = problems.slice(0, PROBLEMS_SHOWN).join('; ');
  const more = problems.length > PROBLEMS_SHOWN ? `; and ${problems.length - PROBLEMS_SHOWN} more` : '';
  return `${revision}: ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${shown}${more}`;
}

/** Who a source's writes are recorded as. */
function actorOf(key: ObjectKey): string {
  return `configsource:${objectKeyString(key)}`;
}

/** A source applies no Secret (they are refused before this point). */
function putSecret(): Promise<void> {
  return Promise.reject(new Error('a ConfigSource applies no Secret'));
}
