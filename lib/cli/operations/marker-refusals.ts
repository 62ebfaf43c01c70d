// The refusals `approve` and `reject` share, worded once: the environment is not the pipeline's, or the revision
// named is not the one waiting (with the one that is, and how to act on it).
import type { ObjectKey, Pipeline } from '../../pipeline/model.js';
import { objectKeyString } from '../../pipeline/model.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

export function unknownEnvironment(pipeline: Pipeline, env: string): CliError {
  const environments = pipeline.environments.map((e) => e.name);
  return new CliError(
    `pipeline ${objectKeyString(pipeline)} has no environment "${env}" (it has ${environments.join(', ')})`,
  );
}

/** `revision` is not what `env` waits for: says what does, read again (the marker may have moved on meanwhile). */
export async function notWaiting(
  backend: Backend,
  key: ObjectKey,
  env: string,
  revision: string,
  verb: 'approve' | 'reject',
): Promise<CliError> {
  const current = await backend.store.getApproval(key, env);
  const waiting =
    current && current.approvedAt === undefined && current.rejectedAt === undefined
      ? `${current.revision} is waiting (${verb} it with --revision ${current.revision})`
      : 'nothing waits for approval there';
  return new CliError(`${revision} is not waiting for approval in ${objectKeyString(key)} ${env}: ${waiting}`);
}
