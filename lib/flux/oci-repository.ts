// What an OCIRepository read from a leaf cluster says about the newest version of a pipeline's source
// (docs/flux-status.md, "OCIRepository"). Like the app readers, an object it does not understand gives an Unreadable
// status, not an exception.
import * as z from 'zod/mini';
import { fluxObjectSchema, readFluxObject, revisionField } from './flux-object.js';
import { WATCHED_KIND_GROUPS } from '../pipeline/model.js';
import { assessReadiness, findCondition } from './conditions.js';
import type { Problem, TargetStatus } from './target-status.js';
import { readObjectStatus } from './target-status.js';

const GROUP = WATCHED_KIND_GROUPS.OCIRepository;
// v1 (Flux 2.6 on) and v1beta2 have the same status fields and rules.
const VERSIONS = ['v1', 'v1beta2'];
// source-controller's summarize helper writes Ready True with `Succeeded` ("stored artifact for digest '…'").
const SUCCESS_REASONS = ['Succeeded'];

const OCIRepository = fluxObjectSchema({
  status: {
    // Empty reads as no artifact, as before any was stored.
    artifact: z.optional(z.looseObject({ revision: revisionField('oci-artifact', { emptyForNone: true }) })),
  },
});
type OCIRepository = z.infer<typeof OCIRepository>;

/**
 * Read a `source.toolkit.fluxcd.io` v1 or v1beta2 OCIRepository. Its revision is the revision of the artifact it
 * stored: `<tag>@sha256:<hex>` when its ref is a tag or a semver range, `sha256:<hex>` when it is a digest.
 */
export function readOciRepositoryStatus(object: unknown): TargetStatus {
  return readFluxObject(
    {
      kind: 'OCIRepository',
      named: 'an OCIRepository',
      group: GROUP,
      versions: VERSIONS,
      schema: OCIRepository,
      read: (repository, _version, ref) => readArtifact(repository, ref),
    },
    object,
  );
}

function readArtifact({ metadata, status }: OCIRepository, ref: string): TargetStatus {
  // The stored artifact stays in the status while a later pull fails: it is still the newest one Flux has.
  const revision = status?.artifact?.revision || undefined;
  const conditions = status?.conditions ?? [];
  if (!status || conditions.length === 0) {
    const noStatus: TargetStatus = {
      phase: 'Progressing',
      reason: 'NoStatus',
      message: `OCIRepository ${ref} has no status yet`,
    };
    return revision ? { ...noStatus, revision } : noStatus;
  }
  const readiness = assessReadiness({
    generation: metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: SUCCESS_REASONS,
  });
  let problem: Problem | undefined = readiness.problem;
  if (problem === undefined && revision === undefined) {
    problem = { reason: 'NoRevision', message: 'no artifact stored yet' };
  }
  return readObjectStatus({
    revision,
    problem,
    settled: readiness.settled,
    ready: { reason: 'Resolved', message: `stored ${revision} (${findCondition(conditions, 'Ready')?.reason})` },
  });
}
