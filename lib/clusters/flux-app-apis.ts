// Where the Kubernetes API serves each Flux kind the controller reads, and the API versions the reader understands.
import { WATCHED_KIND_GROUPS, type WatchedKind } from '../pipeline/model.js';

/**
 * The API group, the plural and the versions we can read, best first: helm-controller serves HelmRelease v2 since
 * Flux 2.3 (v2beta2 and v2beta1 before), kustomize-controller serves Kustomization v1 since Flux 2.0 (v1beta2 before),
 * image-reflector-controller serves ImagePolicy v1 since Flux 2.7 (v1beta2 before), source-controller serves
 * OCIRepository v1 since Flux 2.6 (v1beta2 before).
 */
export const FLUX_APP_APIS: Readonly<
  Record<
    WatchedKind,
    {
      group: string;
      plural: string;
      versions: readonly string[];
      /**
       * The group served a version before this kind joined it, so discovery (which lists a group's versions, not each
       * kind's) cannot tell which of the served versions has the kind: the reader tries them in turn.
       */
      joinedLater?: true;
    }
  >
> = {
  HelmRelease: {
    group: WATCHED_KIND_GROUPS.HelmRelease,
    plural: 'helmreleases',
    versions: ['v2', 'v2beta2', 'v2beta1'],
  },
  Kustomization: { group: WATCHED_KIND_GROUPS.Kustomization, plural: 'kustomizations', versions: ['v1', 'v1beta2'] },
  ImagePolicy: { group: WATCHED_KIND_GROUPS.ImagePolicy, plural: 'imagepolicies', versions: ['v1', 'v1beta2'] },
  // source.toolkit.fluxcd.io/v1 has served GitRepository since Flux 2.0, OCIRepository only since 2.6.
  OCIRepository: {
    group: WATCHED_KIND_GROUPS.OCIRepository,
    plural: 'ocirepositories',
    versions: ['v1', 'v1beta2'],
    joinedLater: true,
  },
};
