// What became of a request to the events route (`POST /v1/events/…`), as a named outcome: the receiver tells
// `ReceiverDeps.onEvent` of each one, and the receiver Lambda counts them as CloudWatch metrics (lib/observability).
// They are the outcomes event-route.ts and receiver.ts write in the request's log line.
/** Why an event was refused: the request's `outcome` in its log line, and the `Reason` dimension of its metric. */
export const EVENT_REJECTIONS = [
  /** 401: no signature, or none that a current or previous cluster key makes. */
  'bad-signature',
  /** 401: signed by a key of a cluster that is not registered (or whose name is not a Kubernetes name). */
  'unknown-cluster',
  /** 400: the body is not a Flux event. */
  'not-an-event',
  /** 413: the body is over the receiver's cap. */
  'body-too-large',
  /** 405: not a POST. */
  'method-not-allowed',
] as const;
export type EventRejection = (typeof EVENT_REJECTIONS)[number];

export type EventOutcome =
  /** A `check-app` was enqueued. */
  | 'enqueued'
  /** Authentic, about a kind the controller does not read: 202, nothing enqueued. */
  | 'not-watched'
  /** Authentic, about an object no pipeline lists: 202, nothing enqueued. */
  | 'not-indexed'
  | EventRejection
  /** The receiver answered 500: a dependency failed (Flux sends the event again). */
  | 'failed';

const LOGGED_OUTCOMES: ReadonlySet<string> = new Set<EventOutcome>([
  'enqueued',
  'not-watched',
  'not-indexed',
  ...EVENT_REJECTIONS,
]);

/**
 * The outcome of an events request from the `outcome` of its log line and whether it failed. An outcome this list does
 * not know would be a receiver bug; it is counted as `failed`, so that it shows on the dashboard rather than nowhere.
 */
export function eventOutcomeOf(logged: string | undefined, failure: unknown): EventOutcome {
  if (failure !== undefined || logged === undefined || !LOGGED_OUTCOMES.has(logged)) return 'failed';
  return logged as EventOutcome;
}
