// The command a person pastes to approve a waiting revision: `pipelinectl approve NS/NAME ENV --revision REV`, with
// exactly the revision that waits (lib/cli/commands/approve.ts refuses any other), quoted for a POSIX shell where a
// character in it would mean something to the shell.
import type { ObjectKey } from '../pipeline/model.js';

/** Words a shell reads as they are: anything else is single-quoted. */
const PLAIN_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;

export function approveCommand(
  pipeline: ObjectKey,
  env: string,
  revision: string,
  flags: readonly string[] = [],
): string {
  const words = ['pipelinectl', 'approve', `${pipeline.namespace}/${pipeline.name}`, env, '--revision', revision];
  return [...words, ...flags].map(shellWord).join(' ');
}

function shellWord(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
