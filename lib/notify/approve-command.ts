// The commands a person pastes to approve or reject a waiting revision: `pipelinectl approve NS/NAME ENV --revision
// REV` and `pipelinectl reject NS/NAME ENV --revision REV --reason '…'`, with exactly the revision that waits
// (lib/cli/commands/approve.ts and reject.ts refuse any other), quoted for a POSIX shell where a character in it
// would mean something to the shell.
import type { ObjectKey } from '../pipeline/model.js';
import { shellCommand } from '../util/shell-word.js';

/** What stands for the reason in a printed reject command: the person replaces it with why. */
const REASON_PLACEHOLDER = '…';

export function approveCommand(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  flags: readonly string[] = [],
): string {
  return shellCommand([...decisionWords('approve', pipeline, env, revision), ...flags]);
}

/** The reject command, its reason a placeholder (`'…'`). */
export function rejectCommand(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  flags: readonly string[] = [],
): string {
  return shellCommand([...decisionWords('reject', pipeline, env, revision), '--reason', REASON_PLACEHOLDER, ...flags]);
}

function decisionWords(verb: 'approve' | 'reject', pipeline: ObjectKey, env: string, revision: string): string[] {
  return ['pipelinectl', verb, `${pipeline.namespace}/${pipeline.name}`, env, '--revision', revision];
}
