// What a promotion is based on (docs/evidence.md): the environment the candidate comes from as the verifier last
// observed it, written into the pull request so that a reviewer sees why it was opened without asking the fleet.
import type { ObservedTarget, PromotionEvidence, VerificationRecord } from './types.js';

/**
 * The evidence of an environment's targets; `soak` is the soak it served, when it has one, and `verification` what
 * its checks found for the candidate, when it has checks.
 */
export function environmentEvidence(
  env: string,
  targets: readonly ObservedTarget[],
  soak: string | undefined,
  verification?: VerificationRecord,
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
    ...(verification === undefined
      ? {}
      : {
          checks: verification.results.map(({ name, kind, verdict, value, checkedAt }) => ({
            name,
            kind,
            verdict,
            value,
            checkedAt,
          })),
        }),
  };
}

/** The evidence of a promotion from a source object: it names the version, there are no targets to show. */
export function sourceEvidence(object: string): PromotionEvidence {
  return { from: object, targets: [] };
}
