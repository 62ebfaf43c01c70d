// Where the Kubernetes API serves each kind the controller reads from a leaf cluster (Flux's apps and sources, Flagger's
// Canaries), and the API versions the reader understands.
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

/** Every kind the reader reads: Flux's, and Flagger's Canaries (the `flaggerCanary` verification check). */
export type LeafKind = WatchedKind | 'Canary';

export interface LeafApi {
  group: string;
  plural: string;
  /** The versions the reader understands, best first. */
  versions: readonly string[];
  /** See FLUX_APP_APIS. */
  joinedLater?: true;
  /** What installs the API on a cluster, for the message of a cluster that does not serve it. */
  installedBy: 'Flux' | 'Flagger';
}

/** Flagger has served Canaries as flagger.app/v1beta1 since Flagger 1.0. */
export const FLAGGER_CANARY_API: LeafApi = {
  group: 'flagger.app',
  plural: 'canaries',
  versions: ['v1beta1'],
  installedBy: 'Flagger',
};

/** Where each kind the reader reads is served. */
export function leafApi(kind: LeafKind): LeafApi {
  return kind === 'Canary' ? FLAGGER_CANARY_API : { ...FLUX_APP_APIS[kind], installedBy: 'Flux' };
}
