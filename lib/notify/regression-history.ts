// Whether an `environment-regressed` effect is news: only when the environment had passed before. The verifier records
// a regression whenever an environment's newest fact within a few hours is not already one
// (lib/verifier/environment-facts.ts), which includes an environment that never passed at all (a first rollout that
// fails, a pipeline just applied onto a broken target) and one that kept failing past that horizon. So the audit
// trail decides: the newest fact of that environment before the regression must be an `environment-passed`.
//
// One page of the trail is read (newest first). When the page ends before any fact of the environment shows, the
// trail is longer than what was read and it cannot tell: the regression is reported, since a missed regression costs
// more than a redundant message. Only a trail read to its end without a pass means "never passed".
import type { AuditEntry, AuditLog } from '../store/port.js';

/** Audit entries read to find the environment's previous fact. */
export const REGRESSION_HISTORY_PAGE = 100;

export async function hadPassedBefore(store: Pick<AuditLog, 'listAudit'>, regression: AuditEntry): Promise<boolean> {
  const page = await store.listAudit(regression.pipeline, { limit: REGRESSION_HISTORY_PAGE });
  for (const entry of page.items) {
    // Strictly before: another verifier may have recorded the same regression, at the same time, alongside.
    if (entry.env !== regression.env || entry.at >= regression.at) continue;
    if (entry.type === 'environment-passed') return true;
    if (entry.type === 'environment-regressed') return false;
  }
  return page.cursor !== undefined;
}
