// A pipeline's page: what `status` and `explain` show, as a page. First the environments in promotion order as a row
// of tiles, each with the revision it runs and since when, its state and reason, and its newest promotion's pull
// request, so that where the pipeline stands is seen at a glance; then the details. Per environment its state, reason,
// the decision's explanation and what the verifier would do next (explain's `Next` line, with the approve and reject
// commands when a person is what the environment waits for), the targets (in short past SUMMARIZED_ABOVE_TARGETS, as
// the CLI does), the approval marker with Approve and Reject links and the approvals so far while it waits (who
// rejected and why once rejected), and the promotion records with their pull requests; when a ConfigSource applied
// it, which one and at which commit.
import { promotionGroupOf } from '../../pipeline/promotion.js';
import { shortRevision } from '../operations/config-sources.js';
import { nextLine, nextSteps } from '../operations/explain.js';
import {
  HOLDING_BACK_ROWS,
  statusJson,
  SUMMARIZED_ABOVE_TARGETS,
  summaryText,
  type EnvironmentStatusJson,
  type TargetStatusJson,
} from '../operations/status.js';
import { requiredApprovals } from '../../approval/approve.js';
import { timeLeftUntil, type ApprovalMarker } from '../../decision/index.js';
import { summarizeTargets, type PipelineView } from '../../views/pipeline-view.js';
import { objectKeyString } from '../../pipeline/model.js';
import type { FreezeSwitch } from '../../pipeline/freeze.js';
import type { ObjectOwner } from '../../store/port.js';
import { switchText } from '../../freeze/set-freeze.js';
import { linkIfHttp, revisionSince, stateBadge, stateLegend, timeOf } from './format.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';
import { freezePath, unfreezePath } from './freeze-page.js';
import { CONFIG_SOURCES_ID } from './fleet-page.js';

/** The confirmation page of an approval: GET shows it, POST (from its form) approves. */
export function approvePath(view: Pick<PipelineView, 'key'>, env: string): string {
  return `${pathOf('pipelines', view.key.namespace, view.key.name, 'environments', env, 'approve')}`;
}

/** The confirmation page of a rejection: GET shows it, POST (from its form, with a reason) rejects. */
export function rejectPath(view: Pick<PipelineView, 'key'>, env: string): string {
  return `${pathOf('pipelines', view.key.namespace, view.key.name, 'environments', env, 'reject')}`;
}

/** `note`: a fixed notice to show on top (the approval's outcome), never text from a request. */
/** `freezes`: the stop switches in force that cover the pipeline (its own and installation-wide ones). */
/** `appliedFrom`: the ConfigSource and commit that applied the pipeline, when that source is still stored. */
export function pipelinePage(
  view: PipelineView,
  backend: string,
  now: Date,
  note?: string,
  freezes: readonly FreezeSwitch[] = [],
  appliedFrom?: ObjectOwner,
): Html {
  const json = statusJson(view);
  const source = json.source;
  const main = html`<h1>${objectKeyString(view.key)}</h1>
    ${note ? html`<p class="notice" role="status">${note}</p>` : ''} ${environmentTiles(json.environments, now)}
    <p>${json.app.kind} ${json.app.name} · generation ${json.generation}, applied ${timeOf(json.appliedAt, now)}</p>
    ${appliedFrom ? appliedFromGit(appliedFrom) : ''}
    <p id="candidate">Candidate: <strong>${json.candidate ?? 'none'}</strong></p>
    ${source ? html`<p>Source: ${source.object}: <span class="state">${source.state}</span> <span class="muted">(${source.reason})</span> ${source.message}</p>` : ''}
    <p><a href="/history?pipeline=${encodeURIComponent(objectKeyString(view.key))}">History of this pipeline</a></p>
    ${freezeSection(view, freezes, now)} ${json.environments.map((env, i) => environmentSection(view, env, i, now))}`;
  return layout({ title: objectKeyString(view.key), section: 'none', backend, main });
}

/**
 * The environments as tiles in promotion order, an arrow between each and the next: name (a link to its details),
 * the revision it runs and since when, its state and reason, and its newest promotion's result (the pull request, a
 * link only when it is an http(s) URL); a tile waiting for approval links to the Approve and Reject buttons below.
 */
function environmentTiles(environments: readonly EnvironmentStatusJson[], now: Date): Html {
  const tile = (env: EnvironmentStatusJson) => {
    const newest = env.promotions[0];
    const waiting = env.approval?.waiting === true ? env.approval.revision : undefined;
    return html`<li>
      <article class="tile" data-env="${env.name}" aria-labelledby="tile-${env.name}-title">
        <h3 id="tile-${env.name}-title"><a href="#env-${env.name}">${env.name}</a></h3>
        <p class="tile-revision">${revisionSince(env.targets, now)}</p>
        <p class="tile-state">${stateBadge(env)}</p>
        ${
          newest?.result
            ? html`<p class="tile-promotion">
                <span class="muted">${newest.kind} of ${newest.revision}:</span> ${linkIfHttp(newest.result)}
              </p>`
            : ''
        }
        ${
          waiting === undefined
            ? ''
            : html`<p><a class="tile-approval" href="#env-${env.name}">Approve or reject ${waiting} below</a></p>`
        }
      </article>
    </li>`;
  };
  return html`<section id="environments" aria-labelledby="environments-title">
    <h2 id="environments-title">Environments</h2>
    <ol class="tiles">
      ${environments.map(tile)}
    </ol>
    ${stateLegend('state-legend')}
  </section>`;
}

function environmentSection(view: PipelineView, env: EnvironmentStatusJson, index: number, now: Date): Html {
  const group = promotionGroupOf(view.stored.pipeline.environments[index]?.promotion);
  const train = group ? `group ${group.name}${group.waitForAll ? ' (waits for all)' : ''}` : '';
  const traits = [env.manual ? 'manual' : '', env.strategy ?? 'no strategy', train].filter((t) => t !== '').join(', ');
  return html`<section class="environment" id="env-${env.name}" aria-labelledby="env-${env.name}-title">
    <h2 id="env-${env.name}-title">${env.name}</h2>
    <p>
      State: <span data-state="${env.state}">${stateBadge(env)}</span>
      <span class="muted">${traits}</span>
      ${env.pullRequest ? html`<span class="pull-request">· pull request ${env.pullRequest.state}: ${linkIfHttp(env.pullRequest.url)}</span>` : ''}
    </p>
    <p class="explanation">${env.message}</p>
    ${env.soakEndsAt ? html`<p class="soak">${env.state === 'soaking' ? 'soaking' : 'waiting for a soak'}: <time datetime="${env.soakEndsAt}">${timeLeftUntil(env.soakEndsAt, now) ?? env.soakEndsAt}</time></p>` : ''}
    ${env.state === 'frozen' ? html`<p class="soak">frozen: ${env.frozenUntil ? html`<time datetime="${env.frozenUntil}">${timeLeftUntil(env.frozenUntil, now) ?? env.frozenUntil}</time>` : 'until unfrozen'}</p>` : ''}
    ${env.rollbackAt ? html`<p class="soak">rollback due: <time datetime="${env.rollbackAt}">${timeLeftUntil(env.rollbackAt, now) ?? env.rollbackAt}</time></p>` : ''}
    ${env.verificationEndsAt ? html`<p class="soak">verified once the checks hold: <time datetime="${env.verificationEndsAt}">${timeLeftUntil(env.verificationEndsAt, now) ?? env.verificationEndsAt}</time></p>` : ''}
    ${verificationTable(env, now)} ${nextBlock(view, env.name)}
    ${approvalBlock(view, env.name, view.environments[index]?.approval, now)} ${targetsTable(view, index, env.targets)}
    ${promotionsTable(env, now)}
  </section>`;
}

/**
 * What the environment's verification checks last found (docs/verification.md): each check's verdict in words (the
 * colour repeats it), the value it saw and when, for the revision they were evaluated on.
 */
function verificationTable(env: EnvironmentStatusJson, now: Date): Html {
  const { verification } = env;
  if (!verification) return html``;
  const outcome = verification.outcome ?? 'not decided yet';
  return html`<table class="verification">
    <caption class="muted">
      Verification of ${verification.revision}: ${outcome}
    </caption>
    <thead>
      <tr>
        <th scope="col">Check</th>
        <th scope="col">Kind</th>
        <th scope="col">Verdict</th>
        <th scope="col">Value</th>
        <th scope="col">Checked</th>
      </tr>
    </thead>
    <tbody>
      ${verification.checks.map(
        (check) =>
          html`<tr data-check="${check.name}">
            <th scope="row">${check.name}</th>
            <td>${check.kind}</td>
            <td>
              <span class="verdict verdict-${check.verdict}">${check.verdict}</span>
              <span class="muted">(${check.reason})</span>
            </td>
            <td title="${check.message}">${check.value}</td>
            <td>${timeOf(check.checkedAt, now)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** explain's `Next` line for one environment; when it waits for a person, the commands that approve or reject. */
function nextBlock(view: PipelineView, env: string): Html {
  const next = nextSteps(view, env);
  const commands = next.waitingForApproval.flatMap((waiting) => [waiting.approveCommand, waiting.rejectCommand]);
  return html`<p class="next">${nextLine(next)}</p>
    ${
      commands.length > 0
        ? html`<ul class="commands">
            ${commands.map((command) => html`<li><code>${command}</code></li>`)}
          </ul>`
        : ''
    }`;
}

function approvalBlock(view: PipelineView, env: string, marker: ApprovalMarker | undefined, now: Date): Html {
  if (!marker) return html``;
  const need = requiredApprovals(view.stored.pipeline, env);
  const approvals = marker.approvals ?? [];
  // The count only where the policy asks for more than one approver: `1 of 2 approvals (local:alice)`.
  const count =
    need > 1
      ? html`<span class="approvals"
          >${approvals.length} of ${need}
          approvals${approvals.length > 0 ? ` (${approvals.map((a) => a.by).join(', ')})` : ''}</span
        >`
      : '';
  if (marker.rejectedAt !== undefined) {
    return html`<p class="rejection notice problem">
      ${marker.revision} rejected ${timeOf(marker.rejectedAt, now)} by
      <span class="rejecter">${marker.rejectedBy ?? 'unknown'}</span>:
      <q class="rejection-reason">${marker.rejectionReason ?? ''}</q> It is not promoted here until a newer revision
      asks for approval.
    </p>`;
  }
  if (marker.approvedAt === undefined) {
    const query = `?revision=${encodeURIComponent(marker.revision)}`;
    return html`<p class="notice">
      ${marker.revision} waits for approval since ${timeOf(marker.requestedAt, now)}. ${count}
      <a class="button primary" href="${approvePath(view, env)}${query}">Approve ${marker.revision}</a>
      <a class="button" href="${rejectPath(view, env)}${query}">Reject ${marker.revision}</a>
    </p>`;
  }
  return html`<p class="approval">
    ${marker.revision} approved ${timeOf(marker.approvedAt, now)} by
    <span class="approver">${marker.approvedBy ?? 'unknown'}</span>
    ${count}
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

/**
 * The stop switches that hold the pipeline, each with who set it and why; an Unfreeze link on its own ones (an
 * installation-wide switch is lifted with `pipelinectl unfreeze --all`), and a Freeze link.
 */
function freezeSection(view: PipelineView, freezes: readonly FreezeSwitch[], now: Date): Html {
  const item = (freeze: FreezeSwitch) => {
    const own = 'pipeline' in freeze.scope;
    const lift = own
      ? html`<a class="button" href="${unfreezePath(view.key, freeze.env)}"
          >Unfreeze${freeze.env ? ` ${freeze.env}` : ''}</a
        >`
      : html`<span class="muted"
          >lift it with <code>pipelinectl unfreeze --all${freeze.env ? ` --env ${freeze.env}` : ''}</code></span
        >`;
    return html`<li data-freeze-scope="${own ? 'pipeline' : 'installation'}">
      <strong>${switchText(freeze)}</strong>: ${freeze.reason}
      <span class="muted">(set by ${freeze.by} ${timeOf(freeze.at, now)})</span> ${lift}
    </li>`;
  };
  return html`<section class="freeze" id="stop-switch" aria-labelledby="stop-switch-title">
    <h2 id="stop-switch-title">Stop switch</h2>
    ${
      freezes.length === 0
        ? html`<p class="muted">No stop switch holds this pipeline.</p>`
        : html`<ul class="notice">
            ${freezes.map(item)}
          </ul>`
    }
    <p><a class="button" href="${freezePath(view.key)}">Freeze…</a></p>
  </section>`;
}

/**
 * Where a pipeline a ConfigSource applied is changed: in Git (`pipelinectl apply` and `delete` refuse it), so the page
 * names the source and the commit it was applied at.
 */
function appliedFromGit(owner: ObjectOwner): Html {
  return html`<p class="notice" id="applied-from-git">
    Applied from Git by ConfigSource
    <a href="/#${CONFIG_SOURCES_ID}">${objectKeyString(owner.configSource)}</a> at
    <code title="${owner.revision}">${shortRevision(owner.revision)}</code>.
    <span class="muted"
      >Change it in the repository: <code>pipelinectl apply</code> and <code>delete</code> refuse it.</span
    >
  </p>`;
}
