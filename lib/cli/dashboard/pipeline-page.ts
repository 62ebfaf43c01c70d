// A pipeline's page: what `status` and `explain` show, as a page. Per environment its state, reason, the
// decision's explanation and what the verifier would do next (explain's `Next` line), the targets (in short past SUMMARIZED_ABOVE_TARGETS, as the CLI does), the approval marker
// with an Approve link while it waits, and the promotion records with their pull requests.
import { nextLine } from '../actions/explain.js';
import {
  HOLDING_BACK_ROWS,
  statusJson,
  SUMMARIZED_ABOVE_TARGETS,
  summaryText,
  type EnvironmentStatusJson,
  type TargetStatusJson,
} from '../actions/status.js';
import { soakTimeLeft } from '../../decision/index.js';
import { summarizeTargets, type PipelineView } from '../../views/pipeline-view.js';
import { objectKeyString } from '../../pipeline/model.js';
import { linkIfHttp, stateBadge, timeOf } from './format.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';

/** The confirmation page of an approval: GET shows it, POST (from its form) approves. */
export function approvePath(view: Pick<PipelineView, 'key'>, env: string): string {
  return `${pathOf('pipelines', view.key.namespace, view.key.name, 'environments', env, 'approve')}`;
}

/** `note`: a fixed notice to show on top (the approval's outcome), never text from a request. */
export function pipelinePage(view: PipelineView, backend: string, now: Date, note?: string): Html {
  const json = statusJson(view);
  const source = json.source;
  const main = html`<h1>${objectKeyString(view.key)}</h1>
    ${note ? html`<p class="notice" role="status">${note}</p>` : ''}
    <p>${json.app.kind} ${json.app.name} · generation ${json.generation}, applied ${timeOf(json.appliedAt, now)}</p>
    <p id="candidate">Candidate: <strong>${json.candidate ?? 'none'}</strong></p>
    ${source ? html`<p>Source: ${source.object}: <span class="state">${source.state}</span> <span class="muted">(${source.reason})</span> ${source.message}</p>` : ''}
    <p><a href="/history?pipeline=${encodeURIComponent(objectKeyString(view.key))}">History of this pipeline</a></p>
    ${json.environments.map((env, i) => environmentSection(view, env, i, now))}`;
  return layout({ title: objectKeyString(view.key), section: 'none', backend, main });
}

function environmentSection(view: PipelineView, env: EnvironmentStatusJson, index: number, now: Date): Html {
  const traits = [env.manual ? 'manual' : '', env.strategy ?? 'no strategy'].filter((t) => t !== '').join(', ');
  return html`<section class="environment" id="env-${env.name}" aria-labelledby="env-${env.name}-title">
    <h2 id="env-${env.name}-title">${env.name}</h2>
    <p>
      State: <span data-state="${env.state}">${stateBadge(env.state, env.reason)}</span>
      <span class="muted">${traits}</span>
    </p>
    <p class="explanation">${env.message}</p>
    ${env.soakEndsAt ? html`<p class="soak">${env.state === 'soaking' ? 'soaking' : 'waiting for a soak'}: <time datetime="${env.soakEndsAt}">${soakTimeLeft(env.soakEndsAt, now) ?? env.soakEndsAt}</time></p>` : ''}
    <p class="next">${nextLine(view.decision.actions.filter((action) => action.env === env.name))}</p>
    ${approvalBlock(view, env, now)} ${targetsTable(view, index, env.targets)} ${promotionsTable(env, now)}
  </section>`;
}

function approvalBlock(view: PipelineView, env: EnvironmentStatusJson, now: Date): Html {
  const approval = env.approval;
  if (!approval) return html``;
  if (approval.waiting) {
    const href = `${approvePath(view, env.name)}?revision=${encodeURIComponent(approval.revision)}`;
    return html`<p class="notice">
      ${approval.revision} waits for approval since ${timeOf(approval.requestedAt, now)}.
      <a class="button primary" href="${href}">Approve ${approval.revision}</a>
    </p>`;
  }
  return html`<p class="approval">
    ${approval.revision} approved ${approval.approvedAt ? timeOf(approval.approvedAt, now) : ''} by
    <span class="approver">${approval.approvedBy ?? 'unknown'}</span>
  </p>`;
}

function targetsTable(view: PipelineView, index: number, targets: readonly TargetStatusJson[]): Html {
  let shown = targets;
  let note: Html | string = '';
  const environment = view.environments[index];
  if (environment && targets.length > SUMMARIZED_ABOVE_TARGETS) {
    // At fleet size, the counts and the targets holding the environment back, as `status` shows them.
    const summary = summarizeTargets(view, environment);
    const holding = new Set(summary.holdingBack.slice(0, HOLDING_BACK_ROWS));
    shown = targets.filter((_, i) => {
      const target = environment.targets[i];
      return target !== undefined && holding.has(target);
    });
    const left = summary.holdingBack.length - holding.size;
    note = html`<p>${summaryText(summary)}${shown.length > 0 ? '; holding it back:' : ''}</p>
      ${left > 0 ? html`<p class="muted">… and ${left} more (<code>pipelinectl status --all-targets</code> lists every target)</p>` : ''}`;
  }
  if (shown.length === 0) return html`${note}`;
  return html`${note}
    <table>
      <thead>
        <tr>
          <th scope="col">Cluster</th>
          <th scope="col">Namespace</th>
          <th scope="col">Revision</th>
          <th scope="col">Phase</th>
          <th scope="col">Reason</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map(
          (target) =>
            html`<tr>
              <td>${target.cluster}</td>
              <td>${target.namespace}</td>
              <td>${target.revision ?? '-'}</td>
              <td>${target.phase}</td>
              <td>${target.reason}</td>
              <td>${target.message ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function promotionsTable(env: EnvironmentStatusJson, now: Date): Html {
  if (env.promotions.length === 0) return html`<p class="muted">No promotions yet.</p>`;
  return html`<table>
    <caption class="muted">
      Promotions, newest first
    </caption>
    <thead>
      <tr>
        <th scope="col">Revision</th>
        <th scope="col">State</th>
        <th scope="col">Attempts</th>
        <th scope="col">Updated</th>
        <th scope="col">Result</th>
      </tr>
    </thead>
    <tbody>
      ${env.promotions.map(
        (record) =>
          html`<tr>
            <td>${record.revision}</td>
            <td>${record.state}</td>
            <td>${record.attempts}</td>
            <td>${timeOf(record.updatedAt, now)}</td>
            <td>
              ${record.result ? linkIfHttp(record.result) : ''}${record.error ? html`<span class="muted">${record.error}</span>` : ''}${record.retryAt ? html` (retry ${timeOf(record.retryAt, now)})` : ''}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
