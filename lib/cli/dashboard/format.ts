// Small pieces of the pages that show the same thing the same way everywhere: a state, a time.
import { ago } from '../output.js';
import type { EnvironmentReason, EnvironmentState } from '../../decision/index.js';
import { html, type Html } from './html.js';
import { httpUrl, type HttpUrlOptions } from '../../util/http-url.js';
import type { ReadyCondition } from '../../store/port.js';
import { runningRevision, runningRevisionText, type TargetRevision } from '../../views/running-revision.js';
import { ENVIRONMENT_STATE_MEANINGS, ENVIRONMENT_STATE_WORDS, environmentStateText } from '../../views/state-words.js';

/**
 * An environment's state in words and its reason, coloured by the state (the words say it too: colour is never the
 * only cue); the state's name, as `-o json` has it, is the badge's title.
 */
export function stateBadge(env: { state: EnvironmentState; reason: EnvironmentReason; stateText: string }): Html {
  return html`<span class="state state-${env.state}" title="${env.state}">${env.stateText}</span>
    <span class="muted">(${env.reason})</span>`;
}

/**
 * The revision an environment runs and since when: `6.9.2 since 2h ago`, `6.9.2 (2 of 3) since 5m ago` when its
 * targets are mixed, `-` when none reports a revision (runningRevision).
 */
export function revisionSince(targets: readonly TargetRevision[], now: Date): Html {
  const running = runningRevision(targets);
  const since = running?.since;
  return html`<span class="revision">${runningRevisionText(running)}</span>${
      since === undefined ? '' : html` <span class="since muted">since ${timeOf(since, now)}</span>`
    }`;
}

/**
 * Every state as its badge says it, with what it means: the words and meanings of state-words.ts, so that a state
 * added there is explained here too. Collapsed under its summary; `id` keeps it open across live updates.
 */
export function stateLegend(id: string): Html {
  const states = Object.keys(ENVIRONMENT_STATE_WORDS) as EnvironmentState[];
  return html`<details class="legend" id="${id}">
    <summary>What the states mean</summary>
    <dl>
      ${states.map(
        (state) =>
          html`<div data-state="${state}">
            <dt>
              <span class="state state-${state}" title="${state}"
                >${environmentStateText({ state, waitsFor: '…' })}</span
              >
            </dt>
            <dd>${ENVIRONMENT_STATE_MEANINGS[state]}</dd>
          </div>`,
      )}
    </dl>
  </details>`;
}

/** A time as a <time> element: the ISO value for machines, `… ago` for people (the same rule as the CLI). */
export function timeOf(iso: string, now: Date): Html {
  return html`<time datetime="${iso}" title="${iso}">${ago(iso, now)}</time>`;
}

/**
 * Only http(s) URLs become links (only https ones with `httpsOnly`): a promotion's result comes from a Git host and a
 * repository's URL from a document, and either could be `javascript:` anything.
 */
export function linkIfHttp(text: string, options: HttpUrlOptions = {}): Html {
  const url = httpUrl(text, options);
  if (url) {
    return html`<a href="${url.href}" rel="noreferrer noopener">${text}</a>`;
  }
  return html`${text}`;
}

/** What a ConfigSource's Ready status means, in words: the colour only repeats it. */
const READY_WORDS: Readonly<Record<ReadyCondition['status'], string>> = {
  True: 'Ready',
  False: 'Not ready',
  Unknown: 'Unknown',
};

/** A ConfigSource's Ready condition as a word coloured by its status, and its reason. */
export function readyBadge(status: ReadyCondition['status'], reason: string): Html {
  return html`<span class="state ready-${status.toLowerCase()}" data-ready="${status}">${READY_WORDS[status]}</span>
    <span class="muted">(${reason})</span>`;
}
