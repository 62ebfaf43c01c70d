// The notification strategy (docs/notifications.md): announce the promotion and let someone else carry it out
// (a CI workflow, a person in a chat channel). The outcome has no `result`, like Weave's 204.
//
// Delivery is at-least-once per sink. Every sink gets the event on every attempt, including sinks that took it on an
// earlier attempt that failed elsewhere, and an attempt repeated after a crash sends it again. Every copy of one
// promotion carries the same `metadata.promotionId` (event.ts), so a receiver that keeps the ids it has acted on
// sees each promotion once; the contract's "one effect per (environment, revision)" holds for such a receiver.
//
// The event is Weave's, unchanged: a request's evidence is not put into it (Flux's event metadata is a flat map of
// strings that receivers match on; docs/evidence.md). A rollback is refused for good: it is a pull request only.
import { PromotionError, type Promoter, type PromotionOutcome, type PromotionRequest } from '../port.js';
import { promotionEvent } from './event.js';
import type { NotificationSink } from './sink.js';

export interface NotificationPromoterOptions {
  /** Every sink gets every event; the promotion succeeds only when all of them took it. */
  sinks: NotificationSink[];
  now?: () => Date;
  /** The events' `reportingInstance`. */
  instance?: string;
}

export class NotificationPromoter implements Promoter {
  private readonly sinks: readonly NotificationSink[];
  private readonly now: () => Date;
  private readonly instance: string | undefined;

  constructor(options: NotificationPromoterOptions) {
    if (options.sinks.length === 0) throw new Error('the notification promoter needs at least one sink');
    this.sinks = [...options.sinks];
    this.now = options.now ?? (() => new Date());
    this.instance = options.instance;
  }

  async promote(request: PromotionRequest): Promise<PromotionOutcome> {
    if (request.rollback) throw rollbackNotSupported(request);
    const event = promotionEvent(request, this.now(), { instance: this.instance });
    // An async wrapper, so a sink that throws instead of rejecting is a failed sink, not a failed promote call.
    const settled = await Promise.allSettled(
      this.sinks.map(async (sink) => {
        await sink.send(event);
      }),
    );
    const failures: { sink: NotificationSink; error: PromotionError; cause: unknown }[] = [];
    settled.forEach((outcome, index) => {
      const sink = this.sinks[index];
      if (outcome.status === 'fulfilled' || !sink) return;
      failures.push({ sink, error: asPromotionError(sink, outcome.reason), cause: outcome.reason });
    });
    // Retried only when every failed sink's fault is: the kind is that of the first a person must see to, if any.
    const decisive = failures.find((failure) => !failure.error.retryable) ?? failures[0];
    if (!decisive) return {};
    const { kind, retryable } = decisive.error;
    const delays = failures.map((failure) => failure.error.retryAfterMs).filter((ms) => ms !== undefined);
    const retryAfterMs = retryable && delays.length > 0 ? Math.max(...delays) : undefined;
    const promotion = `${event.involvedObject.namespace}/${event.involvedObject.name} ${event.metadata.environment} ${event.metadata.version}`;
    const reasons = failures.map((failure) => failure.error.message).join('; ');
    const message = `promotion event for ${promotion} not delivered to ${failures.length} of ${this.sinks.length} sinks: ${reasons}`;
    const cause = failures.length === 1 ? failures[0]?.cause : new AggregateError(failures.map((f) => f.cause));
    throw new PromotionError(kind, message, { retryAfterMs, cause });
  }
}

/** A sink that threw something other than a PromotionError counts as retryable (port.ts), named without its text. */
function asPromotionError(sink: NotificationSink, error: unknown): PromotionError {
  if (error instanceof PromotionError) return error;
  const kind = error instanceof Error ? error.name : typeof error;
  return new PromotionError('Unknown', `${sink.name}: unexpected ${kind}`);
}

/** A rollback by notification: the schema allows `rollback` only with a pull-request strategy, so a person must act. */
export function rollbackNotSupported(request: PromotionRequest): PromotionError {
  return new PromotionError(
    'Unsupported',
    `environment ${request.env.name} cannot be rolled back by notification: rollback needs the pull-request strategy`,
  );
}
