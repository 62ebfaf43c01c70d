// Reading a pipeline's audit trail newest first, page by page, for as long as the reader wants: what the verifier's
// environment facts, the lead time it publishes and `pipelinectl metrics` each do, over `AuditLog.listAudit`.
import type { ObjectKey } from '../pipeline/model.js';
import type { AuditEntry, AuditLog } from './port.js';

/** What the reader says after each entry. */
export type TrailStep = 'continue' | 'stop';

/** How the walk ended: the reader stopped it, the trail ended, or the page budget was spent first. */
export type TrailWalkEnd = 'stopped' | 'ended' | 'budget-spent';

export interface TrailWalkOptions {
  pageSize: number;
  /** Pages read at most; default no limit. */
  maxPages?: number;
}

/** Hands `visit` each entry of the pipeline's trail, newest first, until it says stop or the trail or budget ends. */
export async function walkAuditTrail(
  audit: Pick<AuditLog, 'listAudit'>,
  pipeline: ObjectKey,
  options: TrailWalkOptions,
  visit: (entry: AuditEntry) => TrailStep,
): Promise<TrailWalkEnd> {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const { items, cursor: next } = await audit.listAudit(pipeline, { limit: options.pageSize, cursor });
    for (const entry of items) if (visit(entry) === 'stop') return 'stopped';
    if (next === undefined) return 'ended';
    cursor = next;
  }
  return 'budget-spent';
}
