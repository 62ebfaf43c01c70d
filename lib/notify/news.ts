// The news a person is told of: which of the verifier's effects are worth a message, and what the message says. Only
// six are: an approval starts waiting (someone must act), a promotion opened (its pull request to review), a
// promotion or rollback failed for good (someone must act), an environment that had passed regressed, a rollback
// pull request opened (someone must review and merge it), and an environment's verification checks failed. Everything else the
// verifier does is in the audit trail and on the dashboard, not in people's chat. One more is not about a pipeline:
// a commit of a ConfigSource's branch that failed for good (the configuration in Git is broken; someone must fix it).
import type { ConfigSyncFailure } from '../config-source/sync.js';
import { oneLine } from '../decision/text.js';
import { NEWS_KINDS, type NewsKind, type ObjectKey, type PipelineNewsKind } from '../pipeline/model.js';
import type { PromotionFailureKind } from '../promotion/failure-kind.js';
import type { AuditEntry, ConfigSyncReason } from '../store/port.js';
import type { VerifierEffect } from '../verifier/effect-listener.js';
import { approveCommand } from './approve-command.js';

export { NEWS_KINDS, type NewsKind };

export type News = PipelineNews | ConfigSourceNews;

/** News about one environment of a pipeline. */
export interface PipelineNews {
  kind: PipelineNewsKind;
  pipeline: ObjectKey;
  env: string;
  /** Absent only for `environment-regressed` when its failed targets run different revisions. */
  revision?: string;
  /** One line for a person: what happened and, where it says, why. */
  reason: string;
  /** `promotion-opened`, `rollback-opened`: what the strategy gave, e.g. the pull request's URL. */
  link?: string;
  /** `approval-waiting`: the exact command that approves this revision. */
  approveCommand?: string;
  /** `promotion-failed`: why, as a name to count (docs/promotion-strategies.md, "When a promotion fails"). */
  failureKind?: PromotionFailureKind;
  /** ISO 8601: when it happened (the audit entry's time). */
  at: string;
}

/** `config-sync-failed`: a commit of a ConfigSource's branch was not applied, and is not retried until the branch moves. */
export interface ConfigSourceNews {
  kind: 'config-sync-failed';
  configSource: ObjectKey;
  /** The commit, Flux's way: `main@sha1:<40 hex>`. */
  revision: string;
  /** The source's Ready condition reason: `ValidationFailed`, `Conflict`, `NotFound`. */
  syncReason: ConfigSyncReason;
  /** One line: the problems, each naming its file and field (the status message without the commit). */
  reason: string;
  /** ISO 8601: when the sync gave up on the commit. */
  at: string;
}

export function isConfigSourceNews(news: News): news is ConfigSourceNews {
  return news.kind === 'config-sync-failed';
}

export interface NewsOptions {
  /**
   * Where `pipelinectl` acts, put after the approve command's arguments, e.g. `['--aws', '--stack', 'Pipelines']`;
   * default none (the local data directory).
   */
  approveFlags?: readonly string[];
}

/** The longest reason kept: an error message can be long, a chat line should not be. */
export const MAX_REASON_LENGTH = 500;

/** The news an effect makes, if any. Pure: the same effect always makes the same news. */
export function newsOf(effect: VerifierEffect, options: NewsOptions = {}): PipelineNews | undefined {
  const { entry } = effect;
  if (entry.env === undefined) return undefined;
  const base = {
    pipeline: { namespace: entry.pipeline.namespace, name: entry.pipeline.name },
    env: entry.env,
    at: entry.at,
  };
  const revision = entry.revision;
  switch (entry.type) {
    case 'approval-requested':
      if (revision === undefined) return undefined;
      return {
        kind: 'approval-waiting',
        ...base,
        revision,
        reason: reasonText(`${revision} waits for approval to be promoted to ${entry.env}`),
        approveCommand: approveCommand(entry.pipeline, entry.env, revision, options.approveFlags),
      };
    case 'promotion-succeeded':
      if (revision === undefined) return undefined;
      return {
        kind: 'promotion-opened',
        ...base,
        revision,
        reason: reasonText(
          effect.result === undefined
            ? `the promotion of ${revision} to ${entry.env} was handed over`
            : `the promotion of ${revision} to ${entry.env} is open for review`,
        ),
        ...(effect.result === undefined ? {} : { link: effect.result }),
      };
    case 'promotion-failed':
      // A failure that is retried is not news yet: it may well succeed on the next attempt.
      if (revision === undefined || effect.retryAt !== undefined) return undefined;
      return {
        kind: 'promotion-failed',
        ...base,
        revision,
        reason: reasonText(
          `the promotion of ${revision} to ${entry.env} failed and is not retried: ${effect.error ?? entry.message}`,
        ),
        ...failureKindOf(entry),
      };
    case 'rollback-succeeded':
      // The entry's revision is the failed one, the revision rolled back from.
      if (revision === undefined) return undefined;
      return {
        kind: 'rollback-opened',
        ...base,
        revision,
        reason: reasonText(`${entry.env} fails on ${revision}: ${entry.message}; review and merge to roll back`),
        ...(effect.result === undefined ? {} : { link: effect.result }),
      };
    case 'rollback-failed':
      if (revision === undefined || effect.retryAt !== undefined) return undefined;
      return {
        kind: 'promotion-failed',
        ...base,
        revision,
        reason: reasonText(
          `the rollback of ${entry.env} from ${revision} failed and is not retried: ${effect.error ?? entry.message}`,
        ),
        ...failureKindOf(entry),
      };
    case 'verification-failed':
      if (revision === undefined) return undefined;
      return { kind: 'verification-failed', ...base, revision, reason: reasonText(entry.message) };
    case 'environment-regressed':
      return {
        kind: 'environment-regressed',
        ...base,
        ...(revision === undefined ? {} : { revision }),
        reason: reasonText(entry.message),
      };
    default:
      return undefined;
  }
}

function failureKindOf(entry: AuditEntry): Pick<PipelineNews, 'failureKind'> {
  return entry.failureKind === undefined ? {} : { failureKind: entry.failureKind };
}

/**
 * The news of a ConfigSource's commit that failed for good, or undefined for a failure of no commit (the branch could
 * not be read: nothing to tell once per commit). The status message names the commit first; the news has it apart.
 */
export function configSyncNewsOf(failure: ConfigSyncFailure, at: Date): ConfigSourceNews | undefined {
  const { revision } = failure;
  if (revision === undefined || revision === '') return undefined;
  const prefix = `${revision}: `;
  const problems = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
  return {
    kind: 'config-sync-failed',
    configSource: { namespace: failure.source.namespace, name: failure.source.name },
    revision,
    syncReason: failure.reason,
    reason: reasonText(problems),
    at: at.toISOString(),
  };
}

function reasonText(text: string): string {
  const line = oneLine(text);
  return line.length <= MAX_REASON_LENGTH ? line : `${line.slice(0, MAX_REASON_LENGTH - 1)}…`;
}
