// What an ImagePolicy read from a leaf cluster says about the newest version of a pipeline's source
// (docs/flux-status.md, "ImagePolicy"). Like the app readers, an object it does not understand gives an Unreadable
// status, not an exception.
import * as z from 'zod/mini';
import { fluxObjectSchema, readFluxObject, revisionField } from './flux-object.js';
import { WATCHED_KIND_GROUPS } from '../pipeline/model.js';
import { assessReadiness, findCondition } from './conditions.js';
import type { Problem, TargetStatus } from './target-status.js';
import { readObjectStatus } from './target-status.js';

const GROUP = WATCHED_KIND_GROUPS.ImagePolicy;
// v1 (Flux 2.7 on) and v1beta2 (Flux 2.0 to 2.8) share the status rules; v1 dropped the deprecated `latestImage`.
const VERSIONS = ['v1', 'v1beta2'];
// image-reflector-controller's result finalizer (fluxcd/pkg runtime/reconcile) writes Ready True with `Succeeded`.
const SUCCESS_REASONS = ['Succeeded'];

// An empty tag reads as none (the deprecated latestImage is read then), as before any tag was selected.
const ImageRef = z.looseObject({
  name: z.optional(z.string()),
  tag: revisionField('oci-tag', { emptyForNone: true }),
  digest: z.optional(z.string()),
});

const ImagePolicy = fluxObjectSchema({
  status: { latestRef: z.optional(ImageRef), latestImage: z.optional(revisionField('oci-tag', { of: tagOfImage })) },
});
type ImagePolicy = z.infer<typeof ImagePolicy>;

/**
 * Read an `image.toolkit.fluxcd.io` v1 or v1beta2 ImagePolicy. Its revision is the tag it selected: `latestRef.tag`
 * (Flux 2.6 on), else the tag of the older `latestImage` (`repo:tag`).
 */
export function readImagePolicyStatus(object: unknown): TargetStatus {
  return readFluxObject(
    {
      kind: 'ImagePolicy',
      named: 'an ImagePolicy',
      group: GROUP,
      versions: VERSIONS,
      schema: ImagePolicy,
      read: (policy, _version, ref) => readSelection(policy, ref),
    },
    object,
  );
}

function readSelection({ metadata, status }: ImagePolicy, ref: string): TargetStatus {
  // The selected tag stays in the status while a later attempt fails, as an applied revision does.
  const tag = status?.latestRef?.tag || tagOfImage(status?.latestImage ?? '');
  const conditions = status?.conditions ?? [];
  if (!status || conditions.length === 0) {
    const noStatus: TargetStatus = {
      phase: 'Progressing',
      reason: 'NoStatus',
      message: `ImagePolicy ${ref} has no status yet`,
    };
    return tag ? { ...noStatus, revision: tag } : noStatus;
  }
  const readiness = assessReadiness({
    generation: metadata.generation,
    observedGeneration: status.observedGeneration,
    conditions,
    successReasons: SUCCESS_REASONS,
  });
  let problem: Problem | undefined = readiness.problem;
  if (problem === undefined && tag === undefined) {
    problem = { reason: 'NoRevision', message: 'no image tag selected yet' };
  }
  return readObjectStatus({
    revision: tag,
    problem,
    settled: readiness.settled,
    ready: { reason: 'Resolved', message: `selected tag ${tag} (${findCondition(conditions, 'Ready')?.reason})` },
  });
}

/**
 * The tag of an image reference: `ghcr.io/org/app:6.5.0` → `6.5.0`; a registry port is not a tag
 * (`registry:5000/app:6.5.0` → `6.5.0`, `registry:5000/app` → none), and a digest after `@` is not part of it.
 */
function tagOfImage(image: string): string | undefined {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  if (colon < 0 || colon < name.lastIndexOf('/')) return undefined;
  return name.slice(colon + 1) || undefined;
}
