// Warnings about GitopsClusters the deployment applied to cannot read: an EKS cluster (`spec.eks`) is reached with a
// token signed by an AWS identity, which the local mode does not assume (docs/local-mode.md), so its targets would
// never be read there. `apply` and `serve` say so, naming the cluster and what would work; the configuration is
// applied all the same (the same files may be deployed to AWS later).
import type { Configuration, ConfigurationWarning } from '../config/index.js';
import { objectKeyString } from '../pipeline/model.js';
import type { ApplyPorts } from './ports.js';

/**
 * One warning per EKS GitopsCluster, located at its `spec.eks`, when the deployment reads no EKS cluster; none
 * otherwise. `apply` prints each as `warning: …`, `serve` logs them at start.
 */
export function clusterAccessWarnings(
  backend: Pick<ApplyPorts, 'description' | 'readsEks'>,
  configuration: Pick<Configuration, 'clusters'>,
): ConfigurationWarning[] {
  if (backend.readsEks !== false) return [];
  return configuration.clusters.flatMap((located) => {
    const { eks } = located.document.spec;
    if (!eks) return [];
    const name = objectKeyString(located.key);
    const message =
      `${backend.description} cannot read EKS cluster ${eks.clusterName} (${eks.region}): the local mode has no ` +
      `AWS identity to sign its token with, so the targets on GitopsCluster ${name} are never read; give the ` +
      `cluster a kubeconfig Secret instead (spec.secretRef: a Secret with a "kubeconfig" key), or deploy to AWS`;
    const at = located.problemAt(['spec', 'eks'], message);
    return [
      {
        file: at.file ?? located.origin,
        line: at.line,
        column: at.column,
        document: at.document ?? `GitopsCluster ${name}`,
        path: at.path ?? '',
        message,
      },
    ];
  });
}
