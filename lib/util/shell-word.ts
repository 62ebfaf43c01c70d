// Commands printed for a person to paste into a POSIX shell (the approve command in a notification or in `status`, the
// command an error suggests): each word must reach pipelinectl as it was, whatever it holds (a data directory with a
// space, a revision with a `+`), so a word with any character the shell would read is single-quoted.

/** Words a shell reads as they are. */
const PLAIN_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;

/** Whether the shell reads the word as it is, unquoted. */
export function isPlainShellWord(word: string): boolean {
  return PLAIN_WORD.test(word);
}

/** Any text as one single-quoted shell word (`'` as `'\''`). */
export function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** One word as the shell must be given it: as it is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return isPlainShellWord(word) ? word : singleQuoted(word);
}

/** The words as one command line. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
