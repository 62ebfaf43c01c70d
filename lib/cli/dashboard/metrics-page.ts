// The metrics page: per pipeline, the DORA metrics `pipelinectl metrics` shows (deployment frequency per environment,
// lead time p50/p90, change failure rate, time to restore), each with a small chart and the same figures in a table,
// over a window of 7, 30 or 90 days chosen with a plain GET form (so a view is a link that can be shared).
import {
  failureRate,
  leadTimeText,
  restoreCell,
  span,
  type MetricsReport,
  type PipelineMetricsView,
} from '../operations/metrics.js';
import { DAY_MS, windowStart, type EnvironmentMetrics } from '../../metrics/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { barRows, columnChart, dotChart } from './charts.js';
import { html, pathOf, type Html } from './html.js';
import { layout } from './layout.js';
import { metricsSeries, type MetricsSeries } from './metrics-series.js';

/** The windows the page offers, by the name its URL takes. */
export const METRICS_WINDOWS = { '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, '90d': 90 * DAY_MS } as const;
export type MetricsWindowName = keyof typeof METRICS_WINDOWS;
export const METRICS_WINDOW_NAMES = Object.keys(METRICS_WINDOWS) as [MetricsWindowName, ...MetricsWindowName[]];
export const DEFAULT_METRICS_WINDOW: MetricsWindowName = '30d';

export interface MetricsPageInput {
  report: MetricsReport;
  /** The pipeline asked for; undefined: every pipeline. */
  pipeline?: ObjectKey;
  window: MetricsWindowName;
  /** Every stored pipeline, for the form's choices. */
  pipelines: readonly ObjectKey[];
  backend: string;
}

export function metricsPage(input: MetricsPageInput): Html {
  const { report } = input;
  const sections =
    report.pipelines.length === 0
      ? html`<p>No pipelines are stored yet: apply one with <code>pipelinectl apply -f</code>.</p>`
      : report.pipelines.map((view, i) => pipelineSection(view, report, `m${i}`));
  return layout({
    title: 'Metrics',
    section: 'metrics',
    backend: input.backend,
    main: html`<h1>Metrics</h1>
      ${form(input)}
      <p class="muted">
        From the audit trail, as <code>pipelinectl metrics</code> computes them: a deployment is an environment first
        seen with every target Ready on a revision it did not run before; a deployment failed when, within
        ${span(report.failureWindowMs)}, a target failed or another revision followed.
      </p>
      ${sections}`,
  });
}

function form({ pipeline, window, pipelines }: MetricsPageInput): Html {
  const selected = pipeline ? objectKeyString(pipeline) : '';
  const option = (value: string, label: string, chosen: boolean) =>
    html`<option value="${value}" ${chosen ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="/metrics">
    <label
      >Pipeline
      <select name="pipeline">
        ${option('', 'every pipeline', selected === '')}${pipelines.map((key) =>
          option(objectKeyString(key), objectKeyString(key), objectKeyString(key) === selected),
        )}
      </select></label
    >
    <label
      >Window
      <select name="window">
        ${METRICS_WINDOW_NAMES.map((name) => option(name, `last ${name}`, name === window))}
      </select></label
    >
    <button type="submit">Show</button>
  </form>`;
}

function pipelineSection(view: PipelineMetricsView, report: MetricsReport, id: string): Html {
  const name = objectKeyString(view.pipeline);
  const { leadTime } = view.metrics;
  const environments = view.metrics.environments;
  const series = metricsSeries(view.environments, view.trail, report.window);
  return html`<section class="metrics" id="metrics-${name}" aria-labelledby="${id}-title">
    <h2 id="${id}-title">
      <a href="${pathOf('pipelines', view.pipeline.namespace, view.pipeline.name)}">${name}</a>
      <span class="muted">last ${span(report.window.lengthMs)}</span>
    </h2>
    <div class="charts">
      ${frequencyFigure(series, report, id)} ${leadTimeFigure(view, series, id)}
      ${failureFigure(environments, id)}${restoreFigure(environments, report, id)}
    </div>
    <table class="figures">
      <caption class="muted">
        Per environment, in promotion order; lead time ${leadTimeText(leadTime)}
      </caption>
      <thead>
        <tr>
          <th scope="col">Environment</th>
          <th scope="col">Deployments</th>
          <th scope="col">Per day</th>
          <th scope="col">Promotions</th>
          <th scope="col">Change failure rate</th>
          <th scope="col">Restores</th>
          <th scope="col">Time to restore</th>
        </tr>
      </thead>
      <tbody>
        ${environments.map(
          (env) =>
            html`<tr data-env="${env.env}">
              <th scope="row">${env.env}</th>
              <td>${env.frequency.deployments}</td>
              <td>${env.frequency.perDay.toFixed(2)}</td>
              <td>${env.frequency.promotions}</td>
              <td>${failureRate(env.changeFailureRate)}</td>
              <td>${env.timeToRestore.restores}</td>
              <td>${restoreCell(env.timeToRestore, report.window.end)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function frequencyFigure(series: MetricsSeries, report: MetricsReport, id: string): Html {
  // The window ends now, not at midnight: each column is the 24 hours up to the time it names.
  const start = windowStart(report.window);
  const dayEnd = (i: number) => utcMinute(start + (i + 1) * DAY_MS);
  const charts = series.deployments.map((env, i) => {
    const total = env.perDay.reduce((sum, count) => sum + count, 0);
    return html`<p class="chart-label">${env.env}</p>
      ${columnChart({
        id: `${id}-frequency-${i}`,
        title: `Deployments per day to ${env.env}`,
        description:
          `${total} deployment${total === 1 ? '' : 's'} to ${env.env} in the last ${span(report.window.lengthMs)}, ` +
          'one column per 24 hours, oldest first',
        values: env.perDay,
        columnTitles: env.perDay.map(
          (count, d) => `${count} deployment${count === 1 ? '' : 's'} in the 24 hours to ${dayEnd(d)}`,
        ),
        startLabel: utcMinute(start).slice(0, 10),
        endLabel: 'now',
      })}`;
  });
  return html`<figure>
    <figcaption>Deployment frequency <span class="muted">(deployments per day)</span></figcaption>
    ${charts}
  </figure>`;
}

/** `2026-11-24 18:53 UTC`. */
function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function leadTimeFigure(view: PipelineMetricsView, { leadTimes }: MetricsSeries, id: string): Html {
  const { leadTime } = view.metrics;
  const first = view.environments[0] ?? '';
  const last = view.environments.at(-1) ?? '';
  const guides = [
    ...(leadTime.medianMs === null ? [] : [{ value: leadTime.medianMs, label: `p50 ${span(leadTime.medianMs)}` }]),
    ...(leadTime.p90Ms === null ? [] : [{ value: leadTime.p90Ms, label: `p90 ${span(leadTime.p90Ms)}` }]),
  ];
  const chart =
    leadTimes.length === 0
      ? html`<p class="muted">No revision reached ${last} in the window.</p>`
      : dotChart({
          id: `${id}-lead-time`,
          title: `Lead time per revision, ${first} to ${last}`,
          description:
            `${leadTimes.length} revisions, oldest first: ` +
            leadTimes.map((sample) => `${sample.revision} ${span(sample.leadTimeMs)}`).join(', '),
          points: leadTimes.map((sample) => ({
            value: sample.leadTimeMs,
            title: `${sample.revision}: ${span(sample.leadTimeMs)}`,
          })),
          guides,
          format: span,
        });
  const table =
    leadTimes.length === 0
      ? ''
      : html`<details>
          <summary>Lead time of each revision</summary>
          <table class="lead-times">
            <thead>
              <tr>
                <th scope="col">Revision</th>
                <th scope="col">Reached ${last}</th>
                <th scope="col">Lead time</th>
              </tr>
            </thead>
            <tbody>
              ${leadTimes.map(
                (sample) =>
                  html`<tr>
                    <td>${sample.revision}</td>
                    <td>
                      <time datetime="${new Date(sample.arrivedAt).toISOString()}">${utcMinute(sample.arrivedAt)}</time>
                    </td>
                    <td>${span(sample.leadTimeMs)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </details>`;
  return html`<figure>
    <figcaption>
      Lead time
      <span class="muted"
        >(${first} to ${last}:
        ${
          leadTime.revisions === 0
            ? 'n/a'
            : `p50 ${span(leadTime.medianMs)}, p90 ${span(leadTime.p90Ms)}, ${leadTime.revisions} revisions`
        })</span
      >
    </figcaption>
    ${chart}${table}
  </figure>`;
}

function failureFigure(environments: readonly EnvironmentMetrics[], id: string): Html {
  return html`<figure>
    <figcaption>Change failure rate <span class="muted">(of each environment's deployments)</span></figcaption>
    ${barRows({
      id: `${id}-failure-rate`,
      title: 'Change failure rate per environment',
      description: environments.map((env) => `${env.env}: ${failureRate(env.changeFailureRate)}`).join('; '),
      max: 1,
      rows: environments.map(({ env, changeFailureRate: rate }) => {
        const share = (count: number) => (rate.deployments === 0 ? 0 : count / rate.deployments);
        const succeeded = rate.deployments - rate.failed - rate.pending;
        return {
          label: env,
          text: rate.rate === null ? 'n/a' : `${Math.round(rate.rate * 100)}%`,
          segments: [
            { value: share(rate.failed), kind: 'failed', title: `${env}: ${rate.failed} failed` },
            { value: share(succeeded), kind: 'succeeded', title: `${env}: ${succeeded} did not fail` },
            { value: share(rate.pending), kind: 'pending', title: `${env}: ${rate.pending} pending` },
          ],
        };
      }),
    })}
    <p class="legend muted">
      <span class="key failed"></span> failed <span class="key succeeded"></span> did not fail
      <span class="key pending"></span> pending
    </p>
  </figure>`;
}

function restoreFigure(environments: readonly EnvironmentMetrics[], report: MetricsReport, id: string): Html {
  const max = Math.max(0, ...environments.map((env) => env.timeToRestore.medianMs ?? 0));
  return html`<figure>
    <figcaption>Time to restore <span class="muted">(median, regression to passing again)</span></figcaption>
    ${barRows({
      id: `${id}-time-to-restore`,
      title: 'Median time to restore per environment',
      description: environments
        .map((env) => `${env.env}: ${restoreCell(env.timeToRestore, report.window.end)}`)
        .join('; '),
      max,
      rows: environments.map(({ env, timeToRestore }) => ({
        label: env,
        text: span(timeToRestore.medianMs) + (timeToRestore.unhealthySince === null ? '' : ' · unhealthy now'),
        segments: [
          {
            value: timeToRestore.medianMs ?? 0,
            kind: 'duration',
            title: `${env}: ${restoreCell(timeToRestore, report.window.end)}`,
          },
        ],
      })),
    })}
  </figure>`;
}
