// The verifier's listener that tells people: an effect becomes news (news.ts), the installation and the pipeline's
// `spec.notify` decide whether anyone wants it (settings.ts), the store's claim makes it one message however many
// verifiers see the effect, and every sink gets it at once. The ConfigSource sync's listener (a commit that failed for
// good) goes the same way: the installation's kinds, one claim per (source, commit), every sink.
//
// At most once: the claim is written before anything is sent, so a crash or a failing sink after it loses that message
// rather than repeating it. A failing sink is logged (its name, the failure, the HTTP status; never a URL or a key) and
// nothing is thrown: a Slack outage must never block or fail a promotion.
import { objectKeyString } from '../pipeline/model.js';
import type { Logger } from '../logging/logger.js';
import { redactDeep } from '../logging/redaction.js';
import type { ConfigSyncFailure } from '../config-source/sync.js';
import type { AuditLog, Notifications } from '../store/port.js';
import type { EffectListener, VerifierEffect } from '../verifier/effect-listener.js';
import { NotificationDeliveryError } from './delivery-error.js';
import { configSyncNewsOf, isConfigSourceNews, newsOf, type News, type NewsKind, type PipelineNews } from './news.js';
import { hadPassedBefore } from './regression-history.js';
import { installationSends, wantsNews } from './settings.js';
import type { NewsSink } from './sink.js';
import { errorMessage } from '../util/error-message.js';

export interface NotifierDeps {
  store: Pick<Notifications, 'claimNotification'> & Pick<AuditLog, 'listAudit'>;
  /** Every sink gets every message; none: the listener does nothing (and claims nothing). */
  sinks: readonly NewsSink[];
  /** The kinds the installation sends; default all. */
  news?: readonly NewsKind[];
  logger: Pick<Logger, 'debug' | 'info' | 'warn'>;
  now: () => Date;
  /** Where `pipelinectl approve` acts, after its arguments: e.g. `['--aws', '--stack', 'Pipelines']`. */
  approveFlags?: readonly string[];
}

export function notificationListener(deps: NotifierDeps): EffectListener {
  const settings = { news: deps.news === undefined ? undefined : [...deps.news] };
  return async (effect) => {
    if (deps.sinks.length === 0) return;
    const news = newsOf(effect, { approveFlags: deps.approveFlags });
    if (news === undefined || !wantsNews(news, settings, effect.pipeline.notify)) return;
    try {
      if (!(await isNewsStill(news, effect, deps))) return;
    } catch (error) {
      storeFailed(deps, news, error);
      return;
    }
    await tellOnce(news, deps);
  };
}

/** Told of a ConfigSource commit that failed for good (the sync's `onFailure`). */
export type ConfigSyncFailureListener = (failure: ConfigSyncFailure) => Promise<void>;

export type ConfigSyncNotifierDeps = Omit<NotifierDeps, 'store' | 'approveFlags'> & {
  store: Pick<Notifications, 'claimNotification'>;
};

/**
 * The sync's listener that tells people of a commit that failed for good, once per (source, commit) however many
 * verifiers sync it. Never throws: a notification must not fail the sync that recorded the failure.
 */
export function configSyncFailureListener(deps: ConfigSyncNotifierDeps): ConfigSyncFailureListener {
  return async (failure) => {
    if (deps.sinks.length === 0 || !installationSends('config-sync-failed', deps)) return;
    const news = configSyncNewsOf(failure, deps.now());
    if (news === undefined) return;
    await tellOnce(news, deps);
  };
}

/**
 * The environment a ConfigSource's claim is made for: none. No environment of a pipeline is empty, and the kind keeps
 * a source's claims apart from those of a pipeline of the same name.
 */
export const CONFIG_SOURCE_CLAIM_ENV = '';

/** Claims the news (at most once, however many verifiers ask) and, when this caller won, tells every sink. */
async function tellOnce(
  news: News,
  deps: Pick<NotifierDeps, 'sinks' | 'logger' | 'now'> & { store: Pick<Notifications, 'claimNotification'> },
): Promise<void> {
  const about = attributesOf(news);
  try {
    const claimed = isConfigSourceNews(news)
      ? await deps.store.claimNotification(
          news.configSource,
          CONFIG_SOURCE_CLAIM_ENV,
          news.revision,
          news.kind,
          deps.now(),
        )
      : await deps.store.claimNotification(news.pipeline, news.env, claimRevision(news), news.kind, deps.now());
    if (!claimed) {
      deps.logger.debug('notification already sent by another verifier', about);
      return;
    }
  } catch (error) {
    storeFailed(deps, news, error);
    return;
  }
  await deliverToAll(news, deps, about);
}

function storeFailed(deps: Pick<NotifierDeps, 'logger'>, news: News, error: unknown): void {
  deps.logger.warn('notification not sent: the store could not be read or written', {
    ...attributesOf(news),
    error: errorMessage(error),
  });
}

/** A regression is news only when the environment had passed before (regression-history.ts). */
async function isNewsStill(news: PipelineNews, effect: VerifierEffect, deps: NotifierDeps): Promise<boolean> {
  if (news.kind !== 'environment-regressed') return true;
  if (await hadPassedBefore(deps.store, effect.entry)) return true;
  deps.logger.debug('regression of an environment that never passed: no notification', attributesOf(news));
  return false;
}

/**
 * The revision the claim is for. A regression whose failed targets run different revisions has none: its spell's
 * start stands in, the same for every verifier that records it.
 */
function claimRevision(news: PipelineNews): string {
  return news.revision ?? `unknown@${news.at}`;
}

async function deliverToAll(
  news: News,
  deps: Pick<NotifierDeps, 'sinks' | 'logger'>,
  about: Record<string, unknown>,
): Promise<void> {
  // Every sink is sent the same redacted news: its messages repeat what Git hosts and clusters answered.
  const sent = redactDeep(news);
  // An async wrapper, so a sink that throws instead of rejecting is a failed sink, not a failed listener.
  const outcomes = await Promise.allSettled(deps.sinks.map(async (sink) => sink.deliver(sent)));
  outcomes.forEach((outcome, index) => {
    const sink = deps.sinks[index]?.name ?? 'unknown sink';
    if (outcome.status === 'fulfilled') {
      deps.logger.info('notification sent', { ...about, sink });
      return;
    }
    deps.logger.warn('notification not delivered', { ...about, sink, ...failureOf(outcome.reason) });
  });
}

function attributesOf(news: News): Record<string, unknown> {
  if (isConfigSourceNews(news)) {
    return { kind: news.kind, configSource: objectKeyString(news.configSource), revision: news.revision };
  }
  return {
    kind: news.kind,
    pipeline: objectKeyString(news.pipeline),
    env: news.env,
    ...(news.revision === undefined ? {} : { revision: news.revision }),
  };
}

/** What a log line may say of a failure: a NotificationDeliveryError's fields; of anything else, its name only. */
function failureOf(error: unknown): Record<string, unknown> {
  if (error instanceof NotificationDeliveryError) {
    return {
      failure: error.failure,
      ...(error.detail.status === undefined ? {} : { status: error.detail.status }),
      ...(error.detail.code === undefined ? {} : { code: error.detail.code }),
    };
  }
  // An unexpected error's text may quote what the sink was given (a fetch TypeError quotes the URL).
  return { failure: 'unexpected', error: error instanceof Error ? error.name : typeof error };
}
