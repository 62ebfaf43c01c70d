// What a Kustomization read from a leaf cluster says about its deployment (docs/flux-status.md, "Kustomization").
// Like readHelmReleaseStatus, an object it does not understand gives an Unreadable status, not an exception.
import * as z from 'zod/mini';
import { fluxObjectSchema, readFluxObject, revisionField } from './flux-object.js';
import { assessReadiness } from './conditions.js';
import { sameRevision } from './revision.js';
import type { Problem, TargetStatus } from './target-status.js';
import { readObjectStatus } from './target-status.js';

const GROUP = 'kustomize.toolkit.fluxcd.io';
// v1beta2 has the same status fields and rules; v1beta1 (gone since Flux 2.7) is not read.
const VERSIONS = ['v1', 'v1beta2'];
const SUCCESS_REASONS = ['ReconciliationSucceeded'];

/** The revision fields Flux leaves empty before there is one. */
const sourceRevisionOrNone = revisionField('source-revision', { emptyForNone: true });

const Kustomization = fluxObjectSchema({
  status: {
    lastAppliedRevision: z.optional(sourceRevisionOrNone),
    lastAttemptedRevision: z.optional(sourceRevisionOrNone),
  },
});

/**
 * Read a `kustomize.toolkit.fluxcd.io` v1 or v1beta2 Kustomization. Ready True already includes health checks
 * (`wait`/`healthChecks`), and KC only bumps observedGeneration when Ready is True or on a terminal error, so a new
 * spec that keeps failing stays unsettled until it succeeds or stalls.
 */
export function readKustomizationStatus(object: unknown): TargetStatus {
  return readFluxObject(
    {
      kind: 'Kustomization',
      named: 'a Kustomization',
      group: GROUP,
      versions: VERSIONS,
      schema: Kustomization,
      read: (kustomization, _version, ref) => readApply(kustomization, ref),
    },
    object,
  );
}

function readApply({ metadata, status }: z.infer<typeof Kustomization>, ref: string): TargetStatus {
  // lastAppliedRevision is only written after a successful apply and health check, so it is what runs.
  const applied = status?.lastAppliedRevision || undefined;
  const conditions = status?.conditions ?? [];
  if (!status || conditions.length === 0) {
    const noStatus: TargetStatus = {
      phase: 'Progressing',
      reason: 'NoStatus',
      message: `Kustomization ${ref} has no status yet`,
    };
    return applied ? { ...noStatus, revision: applied } : noStatus;
  }
  const readiness = assessReadiness({
    generation: metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: SUCCESS_REASONS,
  });
  let problem: Problem | undefined = readiness.problem;
  let inFlight = false;
  if (problem === undefined && applied === undefined) {
    problem = { reason: 'NoRevision', message: 'no revision applied yet' };
  } else if (problem === undefined && !sameRevision(status.lastAttemptedRevision ?? '', applied ?? '')) {
    // Ready True while the attempt is ahead: KC has started on a newer source revision.
    const message = `last attempted ${status.lastAttemptedRevision ?? '(none)'} but ${applied} is applied`;
    problem = { reason: 'AttemptPending', message };
    inFlight = true;
  }
  return readObjectStatus({
    revision: applied,
    attempted: status.lastAttemptedRevision,
    problem,
    settled: readiness.settled && !inFlight,
    ready: { reason: 'Applied', message: `applied ${applied} (ReconciliationSucceeded)` },
  });
}
