// Where a promotion event goes. A sink delivers one event once per call: it does not retry (the verifier retries the
// whole promotion) and does not de-duplicate (the receiver does, by `metadata.promotionId`).
import type { PromotionEvent } from './event.js';

export interface NotificationSink {
  /**
   * Names the sink in errors and logs, e.g. `webhook hooks.example.com`. Never a secret: no URL path or query, no
   * header values.
   */
  readonly name: string;
  /** Resolves once the receiver accepted the event; rejects with a PromotionError that says whether to retry. */
  send(event: PromotionEvent): Promise<void>;
}
