// A commit's author as a Git host reports it, as one line for an audit entry or a screen: `Name <email>`. Whoever
// pushed the commit chose both parts, so they are cleaned the way git cleans an identity (no `<`, `>` or control
// characters, no runs of blanks) and cut short: a name of megabytes or one that clears a terminal must not reach
// the audit trail. Every adapter's `commitAuthor` (host.ts) answers through this one function.
import { escapeUnprintable } from '../../logging/printable.js';

/** The longest author line: the name and the e-mail are each cut to their share of it. */
export const MAX_AUTHOR_LENGTH = 200;
const MAX_NAME_LENGTH = 100;
/** What is left of the line for the e-mail and its ` <…>`. */
const MAX_EMAIL_LENGTH = MAX_AUTHOR_LENGTH - MAX_NAME_LENGTH - ' <>'.length;

/**
 * `Name <email>`, the name alone when the host gives no e-mail, `<email>` when it gives no name, and undefined when
 * it gives neither.
 */
export function reportedAuthor(name: string | null | undefined, email: string | null | undefined): string | undefined {
  const who = cleaned(name, MAX_NAME_LENGTH);
  const address = cleaned(email, MAX_EMAIL_LENGTH);
  if (who === '') return address === '' ? undefined : `<${address}>`;
  return address === '' ? who : `${who} <${address}>`;
}

function cleaned(text: string | null | undefined, maxLength: number): string {
  // A control character becomes a blank, so that `Ada\nLovelace` stays two words.
  const clean = escapeUnprintable(text ?? '', () => ' ')
    .replace(/[<>]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const characters = Array.from(clean);
  return characters.length <= maxLength
    ? clean
    : `${characters
        .slice(0, maxLength - 1)
        .join('')
        .trimEnd()}…`;
}
