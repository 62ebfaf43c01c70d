// Small pieces of the pages that show the same thing the same way everywhere: a state, a time.
import { ago } from '../output.js';
import type { EnvironmentReason, EnvironmentState } from '../../decision/index.js';
import { html, type Html } from './html.js';
import { httpUrl } from '../../util/http-url.js';

/** An environment's state and reason, coloured by the state (the text says it too: colour is never the only cue). */
export function stateBadge(state: EnvironmentState, reason: EnvironmentReason): Html {
  return html`<span class="state state-${state}">${state}</span> <span class="muted">(${reason})</span>`;
}

/** A time as a <time> element: the ISO value for machines, `… ago` for people (the same rule as the CLI). */
export function timeOf(iso: string, now: Date): Html {
  return html`<time datetime="${iso}" title="${iso}">${ago(iso, now)}</time>`;
}

/** Only http(s) URLs become links: a promotion's result comes from a Git host and could be `javascript:` anything. */
export function linkIfHttp(text: string): Html {
  const url = httpUrl(text);
  if (url) {
    return html`<a href="${url.href}" rel="noreferrer noopener">${text}</a>`;
  }
  return html`${text}`;
}
