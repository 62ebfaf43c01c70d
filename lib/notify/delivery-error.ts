// Why a message did not reach a sink, as a named failure a log line can carry. The message names the sink by what it
// is (`slack`, `webhook <host>`, `EventBridge bus <name>`) and never by its URL: a Slack incoming-webhook URL is the
// credential itself, and a generic webhook's path or query often is. No cause is attached either, since a fetch
// failure's text can repeat the URL.

export type DeliveryFailure =
  /** The endpoint answered with a status outside 2xx. */
  | 'http-status'
  /** No answer within the sink's timeout. */
  | 'timeout'
  /** No answer at all: refused, reset, a name that does not resolve. */
  | 'network'
  /** The service took the request and refused the entry (EventBridge's FailedEntryCount). */
  | 'rejected';

export class NotificationDeliveryError extends Error {
  override name = 'NotificationDeliveryError';

  constructor(
    /** The sink, as it names itself (never a URL). */
    readonly sink: string,
    readonly failure: DeliveryFailure,
    /** What the failure says beyond its kind: the HTTP status, a network error code, the service's error code. */
    readonly detail: { status?: number; code?: string } = {},
  ) {
    super(`${sink}: ${describe(failure, detail)}`);
  }

  /** The HTTP status, when the endpoint answered. */
  get status(): number | undefined {
    return this.detail.status;
  }
}

function describe(failure: DeliveryFailure, detail: { status?: number; code?: string }): string {
  switch (failure) {
    case 'http-status':
      return `HTTP ${detail.status ?? 'status unknown'}${detail.code === undefined ? '' : ` (${detail.code})`}`;
    case 'timeout':
      return 'no response in time';
    case 'network':
      return `request failed (${detail.code ?? 'network error'})`;
    case 'rejected':
      return `the entry was rejected (${detail.code ?? 'unknown error'})`;
  }
}
