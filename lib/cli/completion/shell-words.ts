// The words a completion script offers, checked before they are written into one: each goes into shell code (a `case`
// pattern, compgen's word list) unquoted or single-quoted, so a character the shell would expand is refused here
// rather than left to change what the script does.
import { isPlainShellWord } from '../../util/shell-word.js';

/** A name, flag or value that can stand in shell code as it is. */
export function plainWord(word: string): string {
  if (!isPlainShellWord(word)) throw new Error(`completion: ${JSON.stringify(word)} is not a plain shell word`);
  return word;
}
