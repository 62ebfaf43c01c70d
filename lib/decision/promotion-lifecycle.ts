// Where a promotion record is in its life at a given time: the one rule that the decision, the store's claim, the
// CLI's retry and the local mode's interrupted-attempt release all read, so they can never disagree.
import type { PromotionRecord } from './types.js';

export type PromotionStage =
  /** Created; no attempt has started yet. */
  | 'pending'
  /** A worker holds an attempt under a lease that has not expired. */
  | 'leased'
  /**
   * An attempt was started and its worker vanished: the lease expired, or is absent or unreadable (a lease nobody
   * can read never expires, so holding to it would block the promotion for good).
   */
  | 'lease-expired'
  /** The last attempt failed and its retry time has come. */
  | 'retry-due'
  /** The last attempt failed and is tried again at `retryAt`. */
  | 'retry-scheduled'
  /** The last attempt failed with no (readable) retry time: a person must act. */
  | 'failed-for-good'
  /** The effect was made. */
  | 'succeeded';

export type PromotionLifecycleFields = Pick<PromotionRecord, 'state' | 'leaseExpiresAt' | 'retryAt'>;

export function promotionStage(record: PromotionLifecycleFields, now: Date): PromotionStage {
  switch (record.state) {
    case 'pending':
    case 'in-progress': {
      // A record is created without a lease; whoever holds a lease on it, in either state, owns it until then.
      if (record.state === 'pending' && record.leaseExpiresAt === undefined) return 'pending';
      const lease = instant(record.leaseExpiresAt);
      return lease !== undefined && lease > now.getTime() ? 'leased' : 'lease-expired';
    }
    case 'failed': {
      const retry = instant(record.retryAt);
      if (retry === undefined) return 'failed-for-good';
      return retry <= now.getTime() ? 'retry-due' : 'retry-scheduled';
    }
    case 'succeeded':
      return 'succeeded';
  }
}

/** Whether an attempt may start now: what the decision resumes and the store lets exactly one worker claim. */
export function isClaimable(stage: PromotionStage): boolean {
  return stage === 'pending' || stage === 'lease-expired' || stage === 'retry-due';
}

/** Milliseconds since the epoch of an ISO 8601 time, or undefined when it is absent or unreadable. */
function instant(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? undefined : time;
}
