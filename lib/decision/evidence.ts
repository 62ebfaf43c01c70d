// What a promotion is based on (docs/evidence.md): the environment the candidate comes from as the verifier last
// observed it, written into the pull request so that a reviewer sees why it was opened without asking the fleet.
import type { TargetStatus } from '../flux/target-status.js';
import type { PromotionEvidence } from './types.js';

export interface EvidenceTarget {
  name: string;
  status: TargetStatus | undefined;
  /** ISO 8601: since when the status is what it is. */
  since?: string;
}

/** The evidence of an environment's targets; `soak` is the soak it served, when it has one. */
export function environmentEvidence(
  env: string,
  targets: readonly EvidenceTarget[],
  soak: string | undefined,
): PromotionEvidence {
  return {
    from: env,
    targets: targets.map(({ name, status, since }) => ({
      name,
      phase: status?.phase ?? 'Unknown',
      ...(status?.revision === undefined ? {} : { revision: status.revision }),
      ...(status?.phase === 'Ready' && since !== undefined ? { healthySince: since } : {}),
    })),
    ...(soak === undefined ? {} : { soak }),
  };
}

/** The evidence of a promotion from a source object: it names the version, there are no targets to show. */
export function sourceEvidence(object: string): PromotionEvidence {
  return { from: object, targets: [] };
}
