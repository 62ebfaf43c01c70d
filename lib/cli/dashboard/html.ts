// HTML built by tagged templates: every interpolated value is escaped unless it is already `Html` (made by `html`
// itself). Values on the pages come from the store, the leaf clusters and Git hosts (a target's message, a pull
// request URL, a pipeline's name), so escaping is the default and cannot be forgotten at one call site.

/** Markup known to be safe: only `html` and `joinHtml` make it. */
export class Html {
  readonly #markup: string;
  private constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
  /** Internal: the tag's way to make one. */
  static trusted(markup: string): Html {
    return new Html(markup);
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** `text` as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

/** What may be interpolated: text (escaped), numbers, markup, lists of those; null, undefined and false show nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === null || value === undefined || value === false || value === true) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let markup = strings[0] ?? '';
  values.forEach((value, i) => {
    markup += render(value) + (strings[i + 1] ?? '');
  });
  return Html.trusted(markup);
}

/** `href` for a path made of segments, each percent-encoded (names are DNS labels, but a path is never trusted). */
export function pathOf(...segments: readonly string[]): string {
  return `/${segments.map(encodeURIComponent).join('/')}`;
}
