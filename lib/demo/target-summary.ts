// How the demo shows one simulated target: where it is, what it runs, and its health as the controller reads it.
// The one place the demo interprets a target's status.
import type { SimulatedTargetState } from './flux-simulator.js';

/** e.g. `dev/apps 6.9.1 healthy`, `staging/apps 6.9.0 → 6.9.1 (upgrading)`. */
export function targetSummary(target: SimulatedTargetState): string {
  const where = `${target.cluster.name}/${target.namespace}`;
  const runs = target.status?.revision ?? 'nothing';
  if (target.upgradingTo !== undefined) return `${where} ${runs} → ${target.upgradingTo} (upgrading)`;
  if (!target.status) return `${where} no HelmRelease`;
  return `${where} ${runs} ${target.status.phase === 'Ready' ? 'healthy' : `(${target.status.message})`}`;
}
