// The audit entry of an effect the verifier made: written after the effect's own conditional write succeeded, so a
// redundant message, which changes nothing, leaves no entry (docs/architecture.md, "Retries").
import type { ObjectKey } from '../pipeline/model.js';
import type { AuditEntry } from '../store/port.js';
import type { VerifierDeps } from './deps.js';

export interface Effect {
  type: AuditEntry['type'];
  env: string;
  revision: string;
  /** One line for a person. */
  message: string;
}

/** Appends the entry under this worker's id, at the current time. */
export function auditEffect(
  deps: Pick<VerifierDeps, 'store' | 'now' | 'workerId'>,
  pipeline: ObjectKey,
  effect: Effect,
): Promise<void> {
  return deps.store.appendAudit({ at: deps.now().toISOString(), pipeline, ...effect, actor: deps.workerId });
}
