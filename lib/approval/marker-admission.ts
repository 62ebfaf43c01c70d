// What approving and rejecting both do before they write (approve.ts, reject.ts): find the environment, the
// revision its marker waits for (unless one is named), who acts, and whether the environment's policy lets them
// act (whoever may approve may reject). The caller's identity is read only once the environment and the revision
// are known, so a caller whose identity cannot be read still hears about a wrong environment first.
import type { ApprovalMarker } from '../decision/types.js';
import { pipelineKeyOf, type ObjectKey, type Pipeline, type PipelineEnvironment } from '../pipeline/model.js';
import type { Store } from '../store/port.js';
import { approverAllowed, type ApproverRefusal } from './approver-policy.js';

export interface MarkerRequest {
  pipeline: Pipeline;
  env: string;
  /** Exactly this revision; undefined: the one the environment's marker names. */
  revision?: string;
  /** Who acts; a function is called only once the environment and the revision are known. */
  identity: string | (() => Promise<string>);
}

export type MarkerAdmission =
  | { outcome: 'unknown-environment' }
  | { outcome: 'nothing-waiting' }
  | { outcome: 'not-allowed'; revision: string; identity: string; refusal: ApproverRefusal; reason: string }
  | { outcome: 'admitted'; key: ObjectKey; environment: PipelineEnvironment; revision: string; identity: string };

export async function admitToMarker(
  store: Pick<Store, 'getApproval'>,
  request: MarkerRequest,
): Promise<MarkerAdmission> {
  const { pipeline, env } = request;
  const environment = pipeline.environments.find((candidate) => candidate.name === env);
  if (!environment) return { outcome: 'unknown-environment' };
  const key = pipelineKeyOf(pipeline);
  const revision = request.revision ?? (await store.getApproval(key, env))?.revision;
  if (revision === undefined) return { outcome: 'nothing-waiting' };
  const identity = typeof request.identity === 'string' ? request.identity : await request.identity();
  // Before anything is read or written for the revision: a caller the policy refuses learns nothing of it.
  const verdict = approverAllowed(environment.approval, identity, pipeline.namespace);
  if (!verdict.allowed) {
    return { outcome: 'not-allowed', revision, identity, refusal: verdict.refusal, reason: verdict.reason };
  }
  return { outcome: 'admitted', key, environment, revision, identity };
}

/** The environment's marker, if it is still for `revision`. */
export async function markerFor(
  store: Pick<Store, 'getApproval'>,
  key: ObjectKey,
  env: string,
  revision: string,
): Promise<ApprovalMarker | undefined> {
  const marker = await store.getApproval(key, env);
  return marker?.revision === revision ? marker : undefined;
}

/** Who rejected the marker's revision, when and why, as far as the marker says. */
export function rejectionOf(marker: ApprovalMarker | undefined): {
  rejectedBy?: string;
  rejectedAt?: string;
  rejectionReason?: string;
} {
  return {
    ...(marker?.rejectedBy !== undefined && { rejectedBy: marker.rejectedBy }),
    ...(marker?.rejectedAt !== undefined && { rejectedAt: marker.rejectedAt }),
    ...(marker?.rejectionReason !== undefined && { rejectionReason: marker.rejectionReason }),
  };
}
