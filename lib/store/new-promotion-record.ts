// The record a `createPromotion` writes, in one place for the table and the in-memory store: `pending`, or, with a
// claim, exactly what `claimPromotion` would leave the pending record at the same `now` (the port promises the same
// record either way, so a finish's version condition reads it alike).
import type { ObjectKey } from '../pipeline/model.js';
import type { PromotionClaim, VersionedPromotionRecord } from './port.js';

export function newPromotionRecord(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  now: Date,
  claim?: PromotionClaim,
): VersionedPromotionRecord {
  const at = now.toISOString();
  const pending: VersionedPromotionRecord = {
    pipeline,
    env,
    revision,
    state: 'pending',
    attempts: 0,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  if (!claim) return pending;
  return {
    ...pending,
    state: 'in-progress',
    attempts: pending.attempts + 1,
    version: pending.version + 1,
    owner: claim.owner,
    leaseExpiresAt: new Date(now.getTime() + claim.leaseMs).toISOString(),
  };
}
