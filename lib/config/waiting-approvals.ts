// The approvals a Pipeline's `status` says are waiting, as Weave's controller wrote them
// (`status.environments.<env>.waitingApproval.revision`, reset to "" once approved), so that `apply` of a
// `kubectl get pipelines -o yaml` export carries them over as approval markers (docs/weave-compatibility.md). The
// rest of the status is Weave's own bookkeeping and is ignored.
import * as z from 'zod';
import { isPrintable, printable } from '../logging/printable.js';
import { pipelineKeyOf, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import { isRecord } from '../util/is-record.js';
import type { DocumentAt } from './validate.js';
import { warningAt, type ConfigurationWarning } from './warnings.js';

export interface WaitingApproval {
  pipeline: ObjectKey;
  env: string;
  revision: string;
  /** `file:line` of the revision in the status, for messages. */
  origin: string;
}

/** Longer than any revision Flux reports (a chart version with its digest, a branch with a commit hash). */
const MAX_REVISION_LENGTH = 1024;

// Lenient: a status is what Weave wrote, not what a person typed, so whatever is not this shape is left alone.
const EnvironmentStatus = z.looseObject({
  waitingApproval: z.looseObject({ revision: z.string() }),
});

/**
 * The waiting approvals of a manual environment of the pipeline, in the status' order; a warning for each one that
 * names an environment that is not manual or not there (such a request could never be approved here).
 */
export function waitingApprovalsOf(
  at: DocumentAt,
  pipeline: Pipeline,
  status: unknown,
): { approvals: WaitingApproval[]; warnings: ConfigurationWarning[] } {
  const approvals: WaitingApproval[] = [];
  const warnings: ConfigurationWarning[] = [];
  if (!isRecord(status) || !isRecord(status.environments)) return { approvals, warnings };

  for (const [env, value] of Object.entries(status.environments)) {
    const parsed = EnvironmentStatus.safeParse(value);
    if (!parsed.success) continue;
    const { revision } = parsed.data.waitingApproval;
    if (revision === '') continue;
    const path = ['status', 'environments', env, 'waitingApproval', 'revision'];
    const notCarried = (why: string) =>
      warningAt(at, path, `the approval of ${shown(revision)} is not carried over: ${why}`);
    const environment = pipeline.environments.find((candidate) => candidate.name === env);
    if (!environment) warnings.push(notCarried(`the Pipeline has no environment ${shown(env)}`));
    else if (environment.promotion?.manual !== true) warnings.push(notCarried(`environment ${env} is not manual`));
    else if (revision.length > MAX_REVISION_LENGTH || !isPrintable(revision)) {
      warnings.push(notCarried(`it is not a revision (over ${MAX_REVISION_LENGTH} characters, or unprintable)`));
    } else {
      const where = at.source.locate([...at.path, ...path]);
      const origin = where ? `${at.source.file}:${where.line}` : at.source.file;
      approvals.push({ pipeline: pipelineKeyOf(pipeline), env, revision, origin });
    }
  }
  return { approvals, warnings };
}

/** Text from the status as it may be shown in a warning: short and printable. */
function shown(text: string): string {
  return printable(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
