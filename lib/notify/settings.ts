// The installation's notification settings (configured once: `serve` flags, the Lambda's environment and secrets, the
// construct's props) and the narrowing a pipeline may add with `spec.notify`. Validated with zod; a problem names the
// field and never quotes its value, since the URLs and the key are secrets.
import * as z from 'zod/mini';
import { NEWS_KINDS, type NewsKind, type NotifyNarrowing } from '../pipeline/model.js';
import { holdsUserInfo, USER_INFO_PROBLEM } from '../util/url-user-info.js';
import { issueLines } from '../util/zod-issue.js';
import type { PipelineNews } from './news.js';

const secretUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .check(z.refine((value) => !holdsUserInfo(value), { message: USER_INFO_PROBLEM }));
const newsKind = z.enum(NEWS_KINDS, { error: `must be one of ${NEWS_KINDS.join(', ')}` });
const nonEmpty = z.string().check(z.minLength(1, 'must not be empty'));

export const NotificationSettings = z.strictObject({
  /** A Slack incoming webhook. */
  slack: z.optional(z.strictObject({ webhookUrl: secretUrl })),
  /** A generic JSON webhook; `hmacKey` signs it like Flux's generic-hmac. */
  webhook: z.optional(z.strictObject({ url: secretUrl, hmacKey: z.optional(nonEmpty) })),
  /** An EventBridge bus, by name or ARN (AWS only). */
  eventBus: z.optional(z.strictObject({ name: nonEmpty })),
  /** The kinds of news sent; default all of them. */
  news: z.optional(z.array(newsKind)),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export class NotificationSettingsError extends Error {
  override name = 'NotificationSettingsError';
}

/** The settings, or a NotificationSettingsError listing every problem by field (`slack.webhookUrl: must be …`). */
export function parseNotificationSettings(value: unknown): NotificationSettings {
  const result = NotificationSettings.safeParse(value);
  if (result.success) return result.data;
  throw new NotificationSettingsError(`notification settings: ${issueLines(result.error).join('; ')}`);
}

/** A comma-separated list of kinds (a flag's or an environment variable's value); an empty text is none. */
export function parseNewsKinds(text: string, what = 'news kinds'): NewsKind[] {
  const kinds = text
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  const unknown = kinds.filter((kind) => !(NEWS_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) {
    throw new NotificationSettingsError(
      `${what}: unknown ${unknown.map((kind) => JSON.stringify(kind)).join(', ')} (known: ${NEWS_KINDS.join(', ')})`,
    );
  }
  return [...new Set(kinds as NewsKind[])];
}

/** True when at least one sink is configured: without one, there is nothing to claim or send. */
export function hasNewsSinks(settings: NotificationSettings): boolean {
  return settings.slack !== undefined || settings.webhook !== undefined || settings.eventBus !== undefined;
}

/** Whether the installation sends this kind of news at all (its `news` setting; absent: every kind). */
export function installationSends(kind: NewsKind, settings: { news?: readonly NewsKind[] | undefined }): boolean {
  return settings.news === undefined || settings.news.includes(kind);
}

/**
 * Whether people are told of this news about a pipeline: its kind is one the installation sends, and the pipeline's
 * `spec.notify` (absent fields narrow nothing) keeps its kind and environment.
 */
export function wantsNews(
  news: Pick<PipelineNews, 'kind' | 'env'>,
  settings: Pick<NotificationSettings, 'news'>,
  narrowing: NotifyNarrowing | undefined,
): boolean {
  if (!installationSends(news.kind, settings)) return false;
  if (narrowing?.news !== undefined && !narrowing.news.includes(news.kind)) return false;
  if (narrowing?.environments !== undefined && !narrowing.environments.includes(news.env)) return false;
  return true;
}
