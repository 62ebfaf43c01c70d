// The one rule for text that reaches a log line or the demo's screen: characters a terminal acts on instead of
// showing, and characters that make a line read differently from what it holds, are written as `\u{…}` escapes.
// Names, paths and event fields come from unauthenticated requests: printed raw, `%1B[2J` clears an operator's
// terminal and U+202E shows `exe.gnp` as `png.exe`. No dependencies, so that every logger and view can use it.

/**
 * Unicode's `Cc`: the C0 controls (ESC, BEL, CR, LF, TAB, …), DEL and the C1 controls (U+009B is an 8-bit CSI).
 * The bidi controls: ALM, LRM, RLM, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069. The line
 * and paragraph separators (line breaks to some viewers), and lone surrogates (no character at all).
 */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\p{Cs}/gu;

/** `text` with every unprintable character as `\u{hex}`: still recognisable, never acted on. */
export function printable(text: string): string {
  return escapeUnprintable(text, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`);
}

/** `text` with every unprintable character replaced by what `escape` makes of it (a format's own escape). */
export function escapeUnprintable(text: string, escape: (character: string) => string): string {
  return text.replace(UNPRINTABLE, escape);
}

/** Whether `text` holds nothing that `printable` would escape. */
export function isPrintable(text: string): boolean {
  return text.search(UNPRINTABLE) === -1;
}
