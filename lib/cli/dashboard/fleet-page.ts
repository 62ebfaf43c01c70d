// The fleet page: every pipeline on one screen, each environment's state and reason at a glance, and how many
// approvals wait, so that a person sees at once where they are needed.
import type { PipelineStatusJson } from '../actions/status.js';
import { stateBadge } from './format.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

/** Environments whose approval marker waits for someone. */
export function waitingApprovals(pipeline: PipelineStatusJson): number {
  return pipeline.environments.filter((env) => env.approval?.waiting === true).length;
}

export function fleetPage(pipelines: readonly PipelineStatusJson[], backend: string): Html {
  const waiting = pipelines.reduce((sum, pipeline) => sum + waitingApprovals(pipeline), 0);
  const rows = pipelines.map((pipeline) => {
    const count = waitingApprovals(pipeline);
    return html`<tr>
      <th scope="row">
        <a href="${pathOf('pipelines', pipeline.namespace, pipeline.name)}">${pipeline.namespace}/${pipeline.name}</a>
      </th>
      <td>${pipeline.app.kind} ${pipeline.app.name}</td>
      <td>${pipeline.candidate ?? html`<span class="muted">none</span>`}</td>
      <td>
        <ul>
          ${pipeline.environments.map((env) => html`<li>${env.name}: ${stateBadge(env.state, env.reason)}</li>`)}
        </ul>
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
            Each environment's state and reason, as
            <code>pipelinectl status</code>
            shows them
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
      ${summary}${body}`,
  });
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
