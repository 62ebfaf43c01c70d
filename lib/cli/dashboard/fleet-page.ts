// The fleet page: every pipeline on one screen, one row each, with the revision each environment runs (and since
// when) and its state in words, the pipelines that wait for a person first, and how many approvals wait, so that a
// person sees at once where they are needed; above it, any installation-wide stop switch and a legend of the states;
// below it, the ConfigSources the pipelines are reconciled from and whether each is Ready, as `status` shows them.
import { shortRevision, type ConfigSourceStatusSummaryJson } from '../operations/config-sources.js';
import type { PipelineStatusJson } from '../operations/status.js';
import type { FreezeSwitch } from '../../pipeline/freeze.js';
import { switchText } from '../../freeze/set-freeze.js';
import { NEEDS_A_PERSON } from '../../views/state-words.js';
import { linkIfHttp, readyBadge, revisionSince, stateBadge, stateLegend } from './format.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

/** Environments whose approval marker waits for someone. */
export function waitingApprovals(pipeline: PipelineStatusJson): number {
  return pipeline.environments.filter((env) => env.approval?.waiting === true).length;
}

/** Whether some environment of the pipeline waits for a person: an approval, a failure, a rejection, a rollback. */
export function needsAPerson(pipeline: PipelineStatusJson): boolean {
  return pipeline.environments.some((env) => NEEDS_A_PERSON[env.state]);
}

/** The fleet's rows: the pipelines that need a person first, then the others, each group in the order given. */
export function fleetOrder(pipelines: readonly PipelineStatusJson[]): PipelineStatusJson[] {
  return [...pipelines.filter(needsAPerson), ...pipelines.filter((pipeline) => !needsAPerson(pipeline))];
}

/**
 * `installationFreezes`: the installation-wide stop switches in force, shown as a banner above the fleet;
 * `configSources`: every stored ConfigSource, shown under it when there is one.
 */
export function fleetPage(
  pipelines: readonly PipelineStatusJson[],
  backend: string,
  now: Date,
  installationFreezes: readonly FreezeSwitch[] = [],
  configSources: readonly ConfigSourceStatusSummaryJson[] = [],
  /** The world is simulated (a demo): repository URLs name nothing real, so they are marked and not linked. */
  simulated = false,
): Html {
  const waiting = pipelines.reduce((sum, pipeline) => sum + waitingApprovals(pipeline), 0);
  const rows = fleetOrder(pipelines).map((pipeline) => {
    const count = waitingApprovals(pipeline);
    const needed = needsAPerson(pipeline);
    return html`<tr data-pipeline="${pipeline.namespace}/${pipeline.name}" data-needs-person="${needed ? 'yes' : 'no'}">
      <th scope="row">
        <a href="${pathOf('pipelines', pipeline.namespace, pipeline.name)}">${pipeline.namespace}/${pipeline.name}</a>
      </th>
      <td>${pipeline.app.kind} ${pipeline.app.name}</td>
      <td>${pipeline.candidate ?? html`<span class="muted">none</span>`}</td>
      <td>
        <ol class="environments">
          ${pipeline.environments.map(
            (env) =>
              html`<li data-env="${env.name}">
                <span class="env-name">${env.name}</span>
                <span class="env-revision">${revisionSince(env.targets, now)}</span>
                <span class="env-state">${stateBadge(env)}</span>
              </li>`,
          )}
        </ol>
      </td>
      <td data-waiting="${count}">${count}</td>
    </tr>`;
  });
  const summary = html`<p id="fleet-summary">
    ${plural(pipelines.length, 'pipeline')}, ${plural(waiting, 'approval')} waiting
  </p>`;
  const body =
    pipelines.length === 0
      ? html`<p>No pipelines are stored yet: apply one with <code>pipelinectl apply -f</code>.</p>`
      : html`<table>
          <caption class="muted">
            Each environment, in promotion order: the revision it runs and since when, its state and reason, as
            <code>pipelinectl status</code>
            shows them; the pipelines that wait for a person first
          </caption>
          <thead>
            <tr>
              <th scope="col">Pipeline</th>
              <th scope="col">App</th>
              <th scope="col">Candidate</th>
              <th scope="col">Environments</th>
              <th scope="col">Waiting approvals</th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>`;
  return layout({
    title: 'Fleet',
    section: 'fleet',
    backend,
    main: html`<h1>Fleet</h1>
      ${installationFreezeBanner(installationFreezes)}${summary}${pipelines.length > 0 ? stateLegend('state-legend') : ''}
      ${body}${configSourcesSection(configSources, simulated)}`,
  });
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Promotions stopped everywhere are news on every screen: one line per installation-wide switch, who set it and why. */
function installationFreezeBanner(freezes: readonly FreezeSwitch[]): Html {
  if (freezes.length === 0) return html``;
  return html`<div class="notice problem" id="installation-freeze" role="status">
    <p><strong>Promotions are frozen installation-wide.</strong></p>
    <ul>
      ${freezes.map((freeze) => html`<li>${switchText(freeze)}: ${freeze.reason} <span class="muted">(set by ${freeze.by})</span></li>`)}
    </ul>
    <p class="muted">Lift it with <code>pipelinectl unfreeze --all</code>.</p>
  </div>`;
}

/** The id of the fleet page's ConfigSources section, which a pipeline applied from Git links to. */
export const CONFIG_SOURCES_ID = 'config-sources';

/**
 * The ConfigSources with what `pipelinectl get configsources` shows of each: the repository (a link only when it is
 * an https URL), branch, folder, the commit in force and the Ready condition. Its message names files and fields of
 * the repository, and comes from the Git host: text, escaped as everything is.
 */
function configSourcesSection(sources: readonly ConfigSourceStatusSummaryJson[], simulated: boolean): Html {
  if (sources.length === 0) return html``;
  const rows = sources.map(
    (source) =>
      html`<tr data-config-source="${source.namespace}/${source.name}">
        <th scope="row">${source.namespace}/${source.name}</th>
        <td>
          ${simulated ? html`${source.url} <span class="muted simulated">(simulated)</span>` : linkIfHttp(source.url, { httpsOnly: true })}
        </td>
        <td>${source.branch}</td>
        <td>${source.path ?? '.'}</td>
        <td>
          ${
            source.lastAppliedRevision === null
              ? html`<span class="muted">none yet</span>`
              : html`<code title="${source.lastAppliedRevision}">${shortRevision(source.lastAppliedRevision)}</code>`
          }
        </td>
        <td>${readyBadge(source.ready, source.reason)}</td>
        <td class="message">${source.message}</td>
      </tr>`,
  );
  return html`<section id="${CONFIG_SOURCES_ID}" aria-labelledby="${CONFIG_SOURCES_ID}-title">
    <h2 id="${CONFIG_SOURCES_ID}-title">Config sources</h2>
    <table>
      <caption class="muted">
        Pipelines and clusters reconciled from Git, as
        <code>pipelinectl get configsources</code>
        shows them
      </caption>
      <thead>
        <tr>
          <th scope="col">Source</th>
          <th scope="col">Repository</th>
          <th scope="col">Branch</th>
          <th scope="col">Path</th>
          <th scope="col">Applied revision</th>
          <th scope="col">Ready</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}
