// The metrics page and the pipeline page's `Next` lines over HTTP, on a local data directory whose audit trail holds
// podinfo's past (world.ts METRICS_TRAIL): the figures are those `pipelinectl metrics -o json` computes from the same
// trail, each metric has its chart with a text alternative, and the charts count what the figures count.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metricsJson, readMetrics, type EnvironmentMetricsJson } from '../../lib/cli/operations/metrics.js';
import { DAY_MS, DEFAULT_FAILURE_WINDOW_MS } from '../../lib/metrics/index.js';
import { PIPELINE } from '../cli/fixtures.js';
import { recordMetricsTrail, startDashboardWorld, type DashboardWorld } from './world.js';

/** The text of an element's content, tags dropped and white space collapsed. */
const text = (markup: string) =>
  markup
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Each `<tr data-env="…">` of the figures table: the environment and its cells' text. */
function figureRows(page: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const [, env = '', row = ''] of page.matchAll(/<tr data-env="([^"]+)">([\s\S]*?)<\/tr>/g)) {
    rows.set(
      env,
      [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, cell = '']) => text(cell)),
    );
  }
  return rows;
}

/** The <svg> with this id, whole. */
function chart(page: string, id: string): string {
  const found = new RegExp(`<svg[^>]*\\bid="${id}"[\\s\\S]*?</svg>`).exec(page)?.[0];
  assert.ok(found, `a chart ${id}`);
  return found;
}

/** The tooltips of a chart's marks (each mark's <title>), not the chart's own title. */
const markTitles = (svg: string) =>
  [...svg.matchAll(/<(?:rect|circle)[^>]*class="mark[^"]*"[^>]*>\s*<title>([^<]*)<\/title>/g)].map(([, t = '']) => t);

describe('the metrics page', { concurrency: false }, () => {
  let world: DashboardWorld;
  const get = async (path: string) => {
    const response = await fetch(new URL(path, world.dashboard.url), { headers: { cookie: world.ownerCookie } });
    return { status: response.status, body: await response.text() };
  };

  before(async () => {
    world = await startDashboardWorld();
    await recordMetricsTrail(world.backend.store);
  });
  after(() => world.close());

  it('shows per environment the figures `pipelinectl metrics` computes, over the window chosen', async () => {
    const page = await get('/metrics?pipeline=flux-system/podinfo&window=7d');
    assert.equal(page.status, 200);
    const report = await readMetrics(world.backend, {
      pipeline: PIPELINE,
      windowMs: 7 * DAY_MS,
      failureWindowMs: DEFAULT_FAILURE_WINDOW_MS,
      now: new Date(),
    });
    const [expected] = metricsJson(report).pipelines;
    assert.ok(expected);
    const rows = figureRows(page.body);
    assert.deepEqual([...rows.keys()], ['dev', 'staging', 'prod']);
    const prod = expected.environments.find((env) => env.name === 'prod') as EnvironmentMetricsJson;
    // 6.9.1 regressed in prod within the hour; prod restored two hours later with 6.9.2.
    assert.equal(prod.changeFailureRate.failed, 1);
    for (const env of expected.environments) {
      const [deployments, perDay, promotions, , restores] = rows.get(env.name) ?? [];
      assert.equal(deployments, String(env.deployments), env.name);
      assert.equal(perDay, env.deploymentsPerDay.toFixed(2), env.name);
      assert.equal(promotions, String(env.promotions), env.name);
      assert.equal(restores, String(env.timeToRestore.restores), env.name);
    }
    assert.match(rows.get('prod')?.[3] ?? '', /^50% \(1\/2\)/);
    assert.equal(rows.get('prod')?.[5], 'median 2h');
    assert.match(text(page.body), /lead time median 2h15m, p90 4h over 2 revisions/);
    assert.match(page.body, /<option value="7d"\s+selected>last 7d<\/option>/);
  });

  it('draws each metric as an image with a title and a description, counting what the figures count', async () => {
    const page = (await get('/metrics?pipeline=flux-system/podinfo&window=7d')).body;
    const rows = figureRows(page);
    ['dev', 'staging', 'prod'].forEach((env, i) => {
      const svg = chart(page, `m0-frequency-${i}`);
      assert.match(svg, /role="img"/);
      assert.match(svg, new RegExp(`<title id="m0-frequency-${i}-title">Deployments per day to ${env}</title>`));
      const columns = markTitles(svg);
      assert.equal(columns.length, 7, 'a column per day of the window');
      const counted = columns.reduce((sum, title) => sum + Number(/^(\d+) deployments?/.exec(title)?.[1]), 0);
      assert.equal(String(counted), rows.get(env)?.[0], `${env}: the columns add up to the deployments`);
    });
    const leadTime = chart(page, 'm0-lead-time');
    assert.deepEqual(markTitles(leadTime), ['6.9.1: 4h', '6.9.2: 30m'], 'a dot per revision, oldest first');
    assert.match(leadTime, /<desc id="m0-lead-time-desc">2 revisions, oldest first: 6\.9\.1 4h, 6\.9\.2 30m<\/desc>/);
    assert.match(leadTime, />p50 2h15m</);
    assert.match(leadTime, />p90 4h</);
    assert.ok(markTitles(chart(page, 'm0-failure-rate')).includes('prod: 1 failed'));
    assert.deepEqual(markTitles(chart(page, 'm0-time-to-restore')), ['prod: median 2h']);
    // Colours come from the style sheet by class, text from currentColor: no inline style (the CSP forbids it).
    assert.doesNotMatch(page, /style=/);
    assert.match(page, /<a href="\/metrics"\s+aria-current="page">Metrics<\/a>/);
  });

  it('without a pipeline shows every pipeline; a window other than 7d, 30d, 90d or an unknown pipeline is refused', async () => {
    const every = await get('/metrics');
    assert.equal(every.status, 200);
    assert.match(every.body, /<option value="30d"\s+selected>/, 'the default window');
    assert.match(every.body, /<section class="metrics" id="metrics-flux-system\/podinfo"/);
    assert.equal(markTitles(chart(every.body, 'm0-frequency-0')).length, 30);

    const window = await get('/metrics?window=1y');
    assert.equal(window.status, 400);
    assert.match(window.body, /The window must be one of 7d, 30d, 90d\./);
    const unknown = await get('/metrics?pipeline=flux-system/nothing');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /pipeline flux-system\/nothing not found/);
  });
});

describe('the pipeline page', () => {
  let world: DashboardWorld;
  before(async () => {
    world = await startDashboardWorld();
  });
  after(() => world.close());

  it("says per environment what the verifier would do next, as `explain`'s Next line does", async () => {
    const nextOf = async (env: string) => {
      const body = await (
        await fetch(new URL('/pipelines/flux-system/podinfo', world.dashboard.url), {
          headers: { cookie: world.ownerCookie },
        })
      ).text();
      const section = new RegExp(`<section class="environment" id="env-${env}"[\\s\\S]*?</section>`).exec(body)?.[0];
      return text(/<p class="next">([\s\S]*?)<\/p>/.exec(section ?? '')?.[1] ?? '');
    };
    assert.equal(await nextOf('staging'), 'Next: staging waits for a person to approve 6.9.2, or to reject it.');
    // Approved, not yet promoted (the promote message waits in `pending`): the verifier would promote it now.
    await world.backend.store.approve(PIPELINE, 'staging', '6.9.2', 'local:test', new Date());
    assert.equal(await nextOf('staging'), 'Next, the verifier would: promote staging to 6.9.2.');
    assert.equal(await nextOf('dev'), 'Next: nothing to do until a target, an approval or a promotion changes.');
  });
});
