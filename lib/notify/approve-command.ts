// The command a person pastes to approve a waiting revision: `pipelinectl approve NS/NAME ENV --revision REV`, with
// exactly the revision that waits (lib/cli/commands/approve.ts refuses any other), quoted for a POSIX shell where a
// character in it would mean something to the shell.
import type { ObjectKey } from '../pipeline/model.js';
import { shellCommand } from '../util/shell-word.js';

export function approveCommand(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  flags: readonly string[] = [],
): string {
  const words = ['pipelinectl', 'approve', `${pipeline.namespace}/${pipeline.name}`, env, '--revision', revision];
  return shellCommand([...words, ...flags]);
}
