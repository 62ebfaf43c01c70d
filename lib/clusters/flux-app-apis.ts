// Where the Kubernetes API serves each Flux app kind, and the API versions the reader understands.
import { APP_KIND_GROUPS, type AppKind } from '../config/schema.js';

/**
 * The API group, the plural and the versions we can read, best first: helm-controller serves HelmRelease v2 since
 * Flux 2.3 (v2beta2 and v2beta1 before), kustomize-controller serves Kustomization v1 since Flux 2.0 (v1beta2 before).
 */
export const FLUX_APP_APIS: Readonly<Record<AppKind, { group: string; plural: string; versions: readonly string[] }>> =
  {
    HelmRelease: { group: APP_KIND_GROUPS.HelmRelease, plural: 'helmreleases', versions: ['v2', 'v2beta2', 'v2beta1'] },
    Kustomization: { group: APP_KIND_GROUPS.Kustomization, plural: 'kustomizations', versions: ['v1', 'v1beta2'] },
  };
