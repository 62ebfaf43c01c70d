// The news as JSON for machines: the body of the generic webhook and the `detail` of the EventBridge event, one shape
// for both so a consumer can move from one to the other. `id` is stable per (pipeline, environment, revision, kind),
// the same unit the store claims, so a consumer that keeps ids can drop a copy however it got one. News about a
// ConfigSource names the source where pipeline news names the pipeline and environment: a consumer switches on `kind`.
import { createHash } from 'node:crypto';
import type { PromotionFailureKind } from '../promotion/failure-kind.js';
import type { ConfigSyncReason } from '../store/port.js';
import type { ObjectKey, PipelineNewsKind } from '../pipeline/model.js';
import { isConfigSourceNews, type ConfigSourceNews, type News, type PipelineNews } from './news.js';

/** The version of this shape; a change that breaks a consumer gets a new one. */
export const NEWS_DOCUMENT_VERSION = 'pipeline-news/v1';

export type NewsDocument = PipelineNewsDocument | ConfigSourceNewsDocument;

export interface PipelineNewsDocument {
  version: typeof NEWS_DOCUMENT_VERSION;
  /** 32 hex characters: SHA-256 of `{ns}/{name}/{env}/{revision}/{kind}`, the revision empty when unknown. */
  id: string;
  kind: PipelineNewsKind;
  pipeline: { namespace: string; name: string };
  environment: string;
  revision?: string;
  reason: string;
  link?: string;
  approveCommand?: string;
  /** `promotion-failed`: why, e.g. `NoMarkers` (docs/promotion-strategies.md, "When a promotion fails"). */
  failureKind?: PromotionFailureKind;
  /** ISO 8601. */
  at: string;
}

/** `config-sync-failed`. */
export interface ConfigSourceNewsDocument {
  version: typeof NEWS_DOCUMENT_VERSION;
  /** 32 hex characters: SHA-256 of `{ns}/{name}//{revision}/config-sync-failed` (no environment). */
  id: string;
  kind: ConfigSourceNews['kind'];
  configSource: { namespace: string; name: string };
  /** `<branch>@sha1:<40 hex>`. */
  revision: string;
  /** The source's Ready condition reason, e.g. `ValidationFailed` (docs/config-sources.md). */
  syncReason: ConfigSyncReason;
  reason: string;
  /** ISO 8601. */
  at: string;
}

export function newsDocument(news: News): NewsDocument {
  if (isConfigSourceNews(news)) {
    return {
      version: NEWS_DOCUMENT_VERSION,
      id: newsId(news),
      kind: news.kind,
      configSource: { namespace: news.configSource.namespace, name: news.configSource.name },
      revision: news.revision,
      syncReason: news.syncReason,
      reason: news.reason,
      at: news.at,
    };
  }
  return {
    version: NEWS_DOCUMENT_VERSION,
    id: newsId(news),
    kind: news.kind,
    pipeline: { namespace: news.pipeline.namespace, name: news.pipeline.name },
    environment: news.env,
    ...(news.revision === undefined ? {} : { revision: news.revision }),
    reason: news.reason,
    ...(news.link === undefined ? {} : { link: news.link }),
    ...(news.approveCommand === undefined ? {} : { approveCommand: news.approveCommand }),
    ...(news.failureKind === undefined ? {} : { failureKind: news.failureKind }),
    at: news.at,
  };
}

export function newsId(
  news:
    | Pick<PipelineNews, 'pipeline' | 'env' | 'revision' | 'kind'>
    | Pick<ConfigSourceNews, 'configSource' | 'revision' | 'kind'>,
): string {
  const [key, env]: [ObjectKey, string] = 'configSource' in news ? [news.configSource, ''] : [news.pipeline, news.env];
  const { revision = '', kind } = news;
  // None of namespace, name and environment may contain `/`, and kind never does, so the joined text is unambiguous.
  return createHash('sha256')
    .update(`${key.namespace}/${key.name}/${env}/${revision}/${kind}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}
