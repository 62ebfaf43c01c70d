// Promotions a stopped serve left in the middle. A promotion attempt holds its record under a lease (5 minutes), so
// that on AWS a second worker does not start the same attempt while the first may still be running. In the local
// mode there is no second worker: a data directory is used by one serve at a time (dynalite's LevelDB lock), and a
// serve that stops cleanly lets its in-flight work finish. So, when serve starts, an attempt still held by any
// other worker was cut off (SIGKILL, a crash, a power cut) and nobody is running it: waiting out the lease would only
// delay the promotion. Each such record is ended as failed, due for a retry now, and the first poll resumes it; the
// strategy's idempotence (the same branch, the same pull request) makes the resumed attempt safe.
import { promotionStage } from '../decision/index.js';
import { objectKeyString, pipelineKeyOf } from '../pipeline/model.js';
import type { Logger } from '../logging/logger.js';
import type { Store, VersionedPromotionRecord } from '../store/port.js';
import { VERIFIER_ACTOR } from '../verifier/index.js';

export const INTERRUPTED_ERROR = 'interrupted: serve stopped during the attempt';

export interface InterruptedPromotionsDeps {
  store: Pick<Store, 'listPipelines' | 'listPromotions' | 'failPromotion' | 'appendAudit'>;
  /** This serve's worker id: records it holds are left alone. */
  workerId: string;
  logger: Pick<Logger, 'warn'>;
  now: () => Date;
}

/** Ends every attempt another worker left held, due for a retry now. Returns the records it ended. */
export async function releaseInterruptedPromotions(
  deps: InterruptedPromotionsDeps,
): Promise<VersionedPromotionRecord[]> {
  const released: VersionedPromotionRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.store.listPipelines({ cursor });
    cursor = page.cursor;
    for (const { pipeline } of page.items) {
      const key = pipelineKeyOf(pipeline);
      for (const record of await deps.store.listPromotions(key)) {
        const now = deps.now();
        if (!heldByAnother(record, deps.workerId, now)) continue;
        // Conditional on the record's version: a record that moved meanwhile is left as it now is.
        if (!(await deps.store.failPromotion(record, INTERRUPTED_ERROR, now, now))) continue;
        released.push(record);
        const attributes = {
          pipeline: objectKeyString(key),
          env: record.env,
          revision: record.revision,
          attempt: record.attempts,
          owner: record.owner,
        };
        deps.logger.warn('promotion interrupted by a stop; retrying it now', attributes);
        await deps.store.appendAudit({
          at: now.toISOString(),
          pipeline: key,
          type: 'promotion-interrupted',
          env: record.env,
          revision: record.revision,
          message: `attempt ${record.attempts} of ${record.revision} to ${record.env} was cut off when serve stopped; retrying`,
          actor: VERIFIER_ACTOR,
        });
      }
    }
  } while (cursor !== undefined);
  return released;
}

/**
 * An attempt in the hands of a worker other than this one, under a lease that may or may not have run out. (A
 * `pending` record nobody claimed is claimable already; a `failed` one waits for its retry time, which is not a
 * lease.)
 */
function heldByAnother(record: VersionedPromotionRecord, workerId: string, now: Date): boolean {
  const stage = promotionStage(record, now);
  return (stage === 'leased' || stage === 'lease-expired') && record.owner !== workerId;
}
