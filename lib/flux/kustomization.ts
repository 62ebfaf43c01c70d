// What a Kustomization read from a leaf cluster says about its deployment (flux-formats §4.3, DESIGN §5).
// Like readHelmReleaseStatus, an object it does not understand gives an `unreadableTarget`, not an exception.
import { z } from 'zod';
import { assessReadiness, ConditionListSchema, describeIssue, typeMeta } from './conditions.js';
import { sameRevision } from './revision.js';
import type { TargetStatus } from './target-status.js';
import { unreadableTarget } from './target-status.js';

const GROUP = 'kustomize.toolkit.fluxcd.io';
// v1beta2 has the same status fields and rules; v1beta1 (gone since Flux 2.7) is not read.
const VERSIONS = ['v1', 'v1beta2'];
const SUCCESS_REASONS = ['ReconciliationSucceeded'];

const Kustomization = z.looseObject({
  metadata: z.looseObject({ generation: z.number().int() }),
  status: z
    .looseObject({
      observedGeneration: z.number().int().optional(),
      conditions: ConditionListSchema.optional(),
      lastAppliedRevision: z.string().optional(),
      lastAttemptedRevision: z.string().optional(),
    })
    .optional(),
});

/**
 * Read a `kustomize.toolkit.fluxcd.io` v1 or v1beta2 Kustomization. Ready True already includes health checks
 * (`wait`/`healthChecks`), and KC only bumps observedGeneration when Ready is True or on a terminal error, so a new
 * spec that keeps failing stays unsettled until it succeeds or stalls.
 */
export function readKustomizationStatus(object: unknown): TargetStatus {
  const { kind, apiVersion, ref } = typeMeta(object);
  if (kind !== 'Kustomization') return unreadableTarget(`expected a Kustomization, got kind ${kind ?? '(none)'}`);
  if (!VERSIONS.some((v) => apiVersion === `${GROUP}/${v}`)) {
    return unreadableTarget(
      `Kustomization ${ref}: apiVersion ${apiVersion ?? '(none)'} is not supported (${GROUP}/v1 or v1beta2)`,
    );
  }
  const parsed = Kustomization.safeParse(object);
  if (!parsed.success) return unreadableTarget(`Kustomization ${ref}: ${describeIssue(parsed.error, object)}`);
  const { metadata, status } = parsed.data;
  // lastAppliedRevision is only written after a successful apply and health check, so it is what runs.
  const applied = status?.lastAppliedRevision || undefined;
  const withRevision = (result: TargetStatus): TargetStatus => (applied ? { revision: applied, ...result } : result);
  const conditions = status?.conditions ?? [];
  if (!status || conditions.length === 0) {
    return withRevision({ healthy: false, settled: false, reason: `Kustomization ${ref} has no status yet` });
  }
  const readiness = assessReadiness({
    generation: metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: SUCCESS_REASONS,
  });
  let problem = readiness.problem;
  let inFlight = false;
  if (problem === undefined && applied === undefined) problem = 'no revision applied yet';
  else if (problem === undefined && !sameRevision(status.lastAttemptedRevision ?? '', applied ?? '')) {
    // Ready True while the attempt is ahead: KC has started on a newer source revision.
    problem = `last attempted ${status.lastAttemptedRevision ?? '(none)'} but ${applied} is applied`;
    inFlight = true;
  }
  return withRevision({
    healthy: problem === undefined,
    settled: readiness.settled && !inFlight,
    reason: problem ?? `applied ${applied} (ReconciliationSucceeded)`,
  });
}
