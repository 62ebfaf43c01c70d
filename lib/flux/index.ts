// The public API of lib/flux: reading Flux events and the status of the objects they are about (the apps a pipeline
// promotes and the source objects that name its newest version).
import { typeMeta } from './conditions.js';
import { readHelmReleaseStatus } from './helmrelease.js';
import { readImagePolicyStatus } from './image-policy.js';
import { readKustomizationStatus } from './kustomization.js';
import { readOciRepositoryStatus } from './oci-repository.js';
import type { TargetStatus } from './target-status.js';
import { unreadableTarget } from './target-status.js';

export type { Condition, Conditions, Readiness, ReadinessInput } from './conditions.js';
export {
  assessReadiness,
  ConditionListSchema,
  ConditionSchema,
  describeCondition,
  findCondition,
  firstLine,
  isFalse,
  isTrue,
  isUnknown,
} from './conditions.js';
export type { FluxAppKind, FluxEvent, ParseFluxEventResult } from './event.js';
export { parseFluxEvent, watchedKindOfEvent } from './event.js';
export { readHelmReleaseStatus } from './helmrelease.js';
export { readImagePolicyStatus } from './image-policy.js';
export { readKustomizationStatus } from './kustomization.js';
export { readOciRepositoryStatus } from './oci-repository.js';
export { isNewerRevision, revisionDigest, runsSourceRevision, sameRevision, sourceVersion } from './revision.js';
export type { TargetPhase, TargetReason, TargetStatus } from './target-status.js';
export { isSettled, TARGET_PHASES, unreadableTarget, wasRead } from './target-status.js';

/** The status of a HelmRelease, Kustomization, ImagePolicy or OCIRepository as read from its cluster. */
export function readTargetStatus(object: unknown): TargetStatus {
  const { kind } = typeMeta(object);
  if (kind === 'HelmRelease') return readHelmReleaseStatus(object);
  if (kind === 'Kustomization') return readKustomizationStatus(object);
  if (kind === 'ImagePolicy') return readImagePolicyStatus(object);
  if (kind === 'OCIRepository') return readOciRepositoryStatus(object);
  return unreadableTarget(
    'UnsupportedKind',
    `unsupported object kind ${kind ?? '(none)'}: expected HelmRelease, Kustomization, ImagePolicy or OCIRepository`,
  );
}
