// A target's HelmRelease manifest as the demo's fleet repository holds it: the chart version Flux deploys, with the
// `$promotion` marker of the environment it belongs to (none in the first environment, whose version CI writes).

export interface FleetManifestInput {
  namespace: string;
  /** The HelmRelease and chart name. Default `podinfo`. */
  name?: string;
  version: string;
  /** `ns:pipeline:env`: the marker on the version; none for the first environment (CI writes it). */
  marker?: string;
  /** A comment line at the top. */
  comment?: string;
}

/** A HelmRelease manifest as the fleet repository holds it; the chart version carries the environment's marker. */
export function fleetManifest(input: FleetManifestInput): string {
  const name = input.name ?? 'podinfo';
  const marker = input.marker === undefined ? '' : ` # {"$promotion": "${input.marker}"}`;
  return [
    ...(input.comment === undefined ? [] : [`# ${input.comment}`]),
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${input.namespace}`,
    'spec:',
    '  interval: 10m',
    `  releaseName: ${name}`,
    '  chart:',
    '    spec:',
    `      chart: ${name}`,
    `      version: '${input.version}'${marker}`,
    '      sourceRef:',
    '        kind: HelmRepository',
    `        name: ${name}`,
    '        namespace: flux-system',
    '  values:',
    '    replicaCount: 2',
    '',
  ].join('\n');
}
