// What the HTTP sinks (Slack, the generic webhook) share around the POST itself: a configured URL checked without
// ever quoting it, and an answer turned into success or a NotificationDeliveryError.
import { NotificationDeliveryError } from './delivery-error.js';
import type { PostOutcome } from '../signing/signed-post.js';
import { holdsUserInfo } from '../util/url-user-info.js';
import { httpUrl } from '../util/http-url.js';

/** The URL, or an error that names the sink and not the value. */
export function sinkUrl(value: string, sink: string): URL {
  if (!URL.canParse(value)) throw new Error(`${sink}: the URL is not valid`);
  const url = httpUrl(value);
  if (!url) throw new Error(`${sink}: the URL must be http or https`);
  if (holdsUserInfo(value)) throw new Error(`${sink}: the URL must not hold a user or password`);
  return url;
}

/** Resolves on a 2xx answer; throws the NotificationDeliveryError that says what else happened. */
export function throwUnlessAccepted(sink: string, answer: PostOutcome): void {
  switch (answer.outcome) {
    case 'answered':
      if (answer.status >= 200 && answer.status < 300) return;
      throw new NotificationDeliveryError(sink, 'http-status', { status: answer.status });
    case 'timeout':
      throw new NotificationDeliveryError(sink, 'timeout');
    case 'network-error':
      throw new NotificationDeliveryError(sink, 'network', { code: answer.code });
  }
}
