// Carrying approvals over from a Weave Pipeline's status: `apply` of a `kubectl get pipelines -o yaml` export sets
// each manual environment's approval marker to the revision Weave's status says is waiting, so a migration loses no
// pending approval (docs/weave-compatibility.md). A marker already there is never replaced (it is this controller's
// own, and newer than the export), and an export applied again carries nothing over again.
import type { Configuration, WaitingApproval } from '../config/index.js';
import { keyOf } from '../config/references.js';
import { isRecord } from '../util/is-record.js';
import { objectKeyString } from '../pipeline/model.js';
import type { ApplyPorts } from './ports.js';
import type { StoredObjects } from './stored-objects.js';

/**
 * One line per waiting approval of the configuration, after its pipelines are stored: carried over (a marker
 * requested, with an audit entry), or not and why. A dry run reads the markers and writes nothing.
 */
export async function carryOverApprovals(
  backend: Pick<ApplyPorts, 'store' | 'identity'>,
  configuration: Configuration,
  stored: StoredObjects,
  options: { dryRun: boolean; now: () => Date },
): Promise<string[]> {
  const { store } = backend;
  const lines: string[] = [];
  let actor: string | undefined;
  for (const waiting of configuration.waitingApprovals) {
    if (waitedBefore(stored, waiting)) continue;
    const { pipeline, env, revision } = waiting;
    const approval = `approval of ${revision} in ${env}`;
    const line = (outcome: string) => `pipeline ${objectKeyString(pipeline)}: ${approval} ${outcome}`;
    const current = await store.getApproval(pipeline, env);
    if (current) {
      lines.push(line(`not carried over from the Pipeline status: the marker there is for ${current.revision}`));
      continue;
    }
    if (options.dryRun) {
      lines.push(line('carried over from the Pipeline status (dry run)'));
      continue;
    }
    // The store's conditional write never replaces a newer request, should a verifier have set one meanwhile.
    const outcome = await store.requestApproval(pipeline, env, revision, options.now());
    if (outcome !== 'requested') {
      const now = await store.getApproval(pipeline, env);
      lines.push(
        line(`not carried over from the Pipeline status: the marker there is for ${now?.revision ?? revision}`),
      );
      continue;
    }
    const message = `${approval} carried over from the Pipeline status`;
    actor ??= await backend.identity();
    await store.appendAudit({
      at: options.now().toISOString(),
      pipeline,
      type: 'approval-requested',
      env,
      revision,
      message,
      actor,
    });
    lines.push(`pipeline ${objectKeyString(pipeline)}: ${message}`);
  }
  return lines;
}

/**
 * Whether the stored Pipeline's status already said the same: that approval was carried over by an earlier apply
 * (and may have been approved and cleared since), so applying the same export again must not request it again.
 */
function waitedBefore(stored: StoredObjects, waiting: WaitingApproval): boolean {
  const id = objectKeyString(waiting.pipeline);
  const before = stored.pipelines.find((p) => objectKeyString(keyOf(p.document.metadata)) === id);
  const status: unknown = before?.document.status;
  const environments = isRecord(status) ? status.environments : undefined;
  const environment = isRecord(environments) ? environments[waiting.env] : undefined;
  const approval = isRecord(environment) ? environment.waitingApproval : undefined;
  return isRecord(approval) && approval.revision === waiting.revision;
}
