// The history page: the audit trail as a timeline, newest first, with the filters `pipelinectl history` has
// (pipeline, environment, type) as a plain GET form, so that a filtered view is a link that can be shared. As in
// `pipelinectl history`, the commits each ConfigSource applied are among the entries when no pipeline is chosen, with
// the objects each created, changed and pruned.
import { shortRevision } from '../operations/config-sources.js';
import {
  HISTORY_ENTRY_TYPES,
  isConfigEntry,
  type History,
  type HistoryEntry,
  type HistoryEntryType,
} from '../operations/history.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { AuditEntry, ConfigAuditEntry } from '../../store/port.js';
import { timeOf } from './format.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

export interface HistoryFilters {
  pipeline?: ObjectKey;
  env?: string;
  type?: HistoryEntryType;
}

export interface HistoryPageInput {
  history: History<HistoryEntry>;
  filters: HistoryFilters;
  /** Every stored pipeline, for the filter's choices. */
  pipelines: readonly ObjectKey[];
  limit: number;
  backend: string;
  now: Date;
}

export function historyPage({ history, filters, pipelines, limit, backend, now }: HistoryPageInput): Html {
  const selected = filters.pipeline ? objectKeyString(filters.pipeline) : '';
  const option = (value: string, label: string, chosen: boolean) =>
    html`<option value="${value}" ${chosen ? html` selected` : ''}>${label}</option>`;
  const form = html`<form class="filters" method="get" action="/history">
    <label
      >Pipeline
      <select name="pipeline">
        ${option('', 'every pipeline', selected === '')}${pipelines.map((key) =>
          option(objectKeyString(key), objectKeyString(key), objectKeyString(key) === selected),
        )}
      </select></label
    >
    <label>Environment <input name="env" value="${filters.env ?? ''}" placeholder="any" /></label>
    <label
      >Type
      <select name="type">
        ${option('', 'any type', filters.type === undefined)}${HISTORY_ENTRY_TYPES.map((type) =>
          option(type, type, type === filters.type),
        )}
      </select></label
    >
    <button type="submit">Filter</button>
  </form>`;
  const entries =
    history.entries.length === 0
      ? html`<p>No audit entries match.</p>`
      : html`<ol class="timeline" id="timeline">
          ${history.entries.map((entry) =>
            isConfigEntry(entry) ? configEntryItem(entry, now) : pipelineEntryItem(entry, now),
          )}
        </ol>`;
  const more = history.more
    ? html`<p class="muted">Only the newest ${limit} entries are shown: narrow the filters to see older ones.</p>`
    : '';
  return layout({
    title: 'History',
    section: 'history',
    backend,
    main: html`<h1>History</h1>
      ${form}${entries}${more}`,
  });
}

function pipelineEntryItem(entry: AuditEntry, now: Date): Html {
  return html`<li data-type="${entry.type}">
    <strong>${entry.type}</strong> · ${timeOf(entry.at, now)} ·
    <a href="${pathOf('pipelines', entry.pipeline.namespace, entry.pipeline.name)}"
      >${objectKeyString(entry.pipeline)}</a
    >
    ${entry.env ? html` · ${entry.env}` : ''}${entry.revision ? html` · ${entry.revision}` : ''}
    ${entry.actor ? html` · by <span class="actor">${entry.actor}</span>` : ''}
    <br /><span class="muted">${entry.message}</span>
  </li>`;
}

/** A commit a ConfigSource applied: the commit, its author as the Git host reported it, and what it changed. */
function configEntryItem(entry: ConfigAuditEntry, now: Date): Html {
  const objects = (label: string, names: readonly string[]) =>
    names.length === 0 ? '' : html`<li>${label}: ${names.join(', ')}</li>`;
  const changes = [
    objects('created', entry.created),
    objects('configured', entry.configured),
    objects('pruned', entry.pruned),
  ].filter((item) => item !== '');
  return html`<li data-type="${entry.type}" data-config-source="${objectKeyString(entry.configSource)}">
    <strong>${entry.type}</strong> · ${timeOf(entry.at, now)} · ConfigSource ${objectKeyString(entry.configSource)} ·
    <code title="${entry.revision}">${shortRevision(entry.revision)}</code>
    ${entry.author ? html` · authored by <span class="author">${entry.author}</span>` : ''}
    <br /><span class="muted">${entry.message}</span>
    ${
      changes.length === 0
        ? html`<br /><span class="muted">no object created, configured or pruned</span>`
        : html`<ul class="changes">
            ${changes}
          </ul>`
    }
  </li>`;
}
