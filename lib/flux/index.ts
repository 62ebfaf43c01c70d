// The public API of lib/flux: reading Flux events and the status of the app objects they are about.
import { typeMeta } from './conditions.js';
import { readHelmReleaseStatus } from './helmrelease.js';
import { readKustomizationStatus } from './kustomization.js';
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
export { appKindOfEvent, parseFluxEvent } from './event.js';
export { readHelmReleaseStatus } from './helmrelease.js';
export { readKustomizationStatus } from './kustomization.js';
export { isNewerRevision, revisionDigest, sameRevision } from './revision.js';
export type { TargetPhase, TargetReason, TargetStatus } from './target-status.js';
export { isSettled, TARGET_PHASES, unreadableTarget, wasRead } from './target-status.js';

/** The status of a HelmRelease or Kustomization as read from its cluster; any other object is unreadable. */
export function readTargetStatus(object: unknown): TargetStatus {
  const { kind } = typeMeta(object);
  if (kind === 'HelmRelease') return readHelmReleaseStatus(object);
  if (kind === 'Kustomization') return readKustomizationStatus(object);
  return unreadableTarget(
    'UnsupportedKind',
    `unsupported object kind ${kind ?? '(none)'}: expected HelmRelease or Kustomization`,
  );
}
