// The dashboard in a real browser: headless Chromium (Debian's `chromium` package) driven by playwright-core, over a
// local data directory whose manual `staging` waits for an approval of 6.9.2, and whose pipeline a ConfigSource
// applied (another source is not Ready). A person's path through it: the fleet shows the waiting approval and the
// sources, the keyboard reaches Approve, the confirmation names the revision, the page follows the
// promotion live without a reload, the history shows who approved, and the metrics page draws its charts (in the
// light and the dark theme) and follows the audit trail live. No page logs a console error; a screenshot of each is
// written to a directory named in the test log. Without Chromium the tests are skipped, saying why.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { objectKeyString } from '../../lib/pipeline/model.js';
import { ENVIRONMENT_STATE_MEANINGS, ENVIRONMENT_STATE_WORDS } from '../../lib/views/state-words.js';
import { PIPELINE } from '../cli/fixtures.js';
import { CHROMIUM_MISSING, chromiumPath } from './chromium.js';
import {
  BROKEN_SOURCE_MESSAGE,
  DIAMOND_PIPELINE,
  DIAMOND_REVISION,
  HEALTHY_PIPELINE,
  PULL_REQUEST_URL,
  recordMetricsTrail,
  startDashboardWorld,
  type DashboardWorld,
} from './world.js';

const executablePath = chromiumPath();
const SKIP_REASON = `${CHROMIUM_MISSING} to run the dashboard browser tests`;

/** Chromium with one page whose console errors and uncaught exceptions are pushed onto `errors`. */
async function openBrowser(errors: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  // Playwright's own 30 s per action is a deadline a loaded machine can miss; this one only guards against a hang.
  page.setDefaultTimeout(PATIENCE_MS);
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return { browser, page };
}

describe('the dashboard in headless Chromium', { concurrency: false, timeout: 4 * PATIENCE_MS }, () => {
  let world: DashboardWorld | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let screenshots = '';
  const consoleErrors: string[] = [];
  const approver = `local:${userInfo().username}`;

  const skipWithoutChromium = (t: TestContext): boolean => {
    if (executablePath) return false;
    t.skip(SKIP_REASON);
    return true;
  };
  const url = (path: string) => new URL(path, world?.dashboard.url).href;
  const screenshot = async (t: TestContext, name: string) => {
    const path = join(screenshots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    t.diagnostic(`screenshot: ${path}`);
  };
  /** Presses Tab until the focused element matches, as a keyboard user would; fails after `max` presses. */
  const tabTo = async (matches: (element: { text: string; id: string }) => boolean, max = 40) => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press('Tab');
      // The test is compiled without the DOM's types: the page runs this text, not TypeScript.
      const focused = await page.evaluate<{ text: string; id: string }>(
        "({ text: document.activeElement?.textContent?.trim() ?? '', id: document.activeElement?.id ?? '' })",
      );
      if (matches(focused)) return focused;
    }
    assert.fail(`Tab did not reach the element in ${max} presses`);
  };

  before(async () => {
    if (!executablePath) return;
    screenshots = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-screenshots-'));
    world = await startDashboardWorld({ refreshMs: 200, configSources: true });
    ({ browser, page } = await openBrowser(consoleErrors));
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('the printed URL lets the browser in, without the token in its address bar; another browser gets 401', async (t) => {
    if (skipWithoutChromium(t) || !world || !browser) return;
    const stranger = await browser.newPage();
    const refused = await stranger.goto(url('/'));
    assert.equal(refused?.status(), 401);
    assert.match(await stranger.locator('body').innerText(), /Open the URL that pipelinectl printed/);
    assert.equal(await stranger.getByText('podinfo').count(), 0);
    await stranger.close();

    const opened = await page.goto(world.dashboard.ownerUrl);
    assert.equal(opened?.status(), 200);
    assert.equal(page.url(), world.dashboard.url, 'the token is gone from the address bar (and from history)');
    const cookies = await page.context().cookies();
    assert.equal(cookies.length, 1);
    assert.deepEqual(
      { httpOnly: cookies[0]?.httpOnly, sameSite: cookies[0]?.sameSite, path: cookies[0]?.path },
      { httpOnly: true, sameSite: 'Strict', path: '/' },
    );
    assert.ok(!world.dashboard.ownerUrl.includes(cookies[0]?.value ?? ''), 'the cookie is not the token');
  });

  it('the fleet page lists the pipeline and counts one waiting approval', async (t) => {
    if (skipWithoutChromium(t)) return;
    t.diagnostic(`screenshots in ${screenshots}`);
    await page.goto(url('/'));
    assert.equal(await page.getByRole('link', { name: 'flux-system/podinfo' }).count(), 1);
    assert.equal(await page.locator('#fleet-summary').innerText(), '1 pipeline, 1 approval waiting');
    await screenshot(t, 'fleet');
  });

  it('the fleet page shows each ConfigSource, Ready or not in words, and its message as text', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/'));
    const sources = page.getByRole('table', { name: /reconciled from Git/ });
    assert.equal(await page.getByRole('heading', { name: 'Config sources', level: 2 }).count(), 1);
    const fleet = sources.getByRole('row', { name: /flux-system\/fleet/ });
    assert.match(await fleet.innerText(), /main@sha1:1a2b3c4d\s+Ready \(Succeeded\)/);
    assert.equal(await fleet.getByRole('link', { name: 'https://github.com/acme/fleet' }).count(), 1);
    const broken = sources.getByRole('row', { name: /flux-system\/broken/ });
    assert.match(await broken.innerText(), /none yet\s+Not ready \(ValidationFailed\)/);
    assert.equal(await broken.locator('td.message').innerText(), BROKEN_SOURCE_MESSAGE);
    assert.equal(await page.evaluate<boolean>("'sourcePwned' in window"), false);
    // The word carries the meaning; the colour, the theme's, repeats it.
    const colour = (source: string) =>
      page.evaluate<string>(
        `getComputedStyle(document.querySelector('[data-config-source="${source}"] [data-ready]')).color`,
      );
    assert.notEqual(await colour('flux-system/broken'), await colour('flux-system/fleet'));
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await colour('flux-system/broken'), 'rgb(255, 123, 114)');
    await screenshot(t, 'fleet-config-sources-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a pipeline applied from Git says which source and commit, and links to the source', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/pipelines/flux-system/podinfo'));
    const line = page.locator('#applied-from-git');
    assert.match(
      await line.innerText(),
      /^Applied from Git by ConfigSource flux-system\/fleet at main@sha1:1a2b3c4d\./,
    );
    await line.getByRole('link', { name: 'flux-system/fleet' }).click();
    await page.waitForURL(/\/#config-sources$/);
    assert.equal(await page.getByRole('row', { name: /flux-system\/fleet/ }).count(), 1);
  });

  it('by keyboard: Approve, a confirmation naming 6.9.2, then the page follows the promotion without a reload', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/pipelines/flux-system/podinfo'));
    const staging = page.locator('#env-staging [data-state]');
    assert.equal(await staging.getAttribute('data-state'), 'waiting-approval');
    // The leaf cluster's message is on the page as text, and did not run.
    assert.equal(await page.evaluate<boolean>("'pwned' in window"), false);
    await page.getByText('<script>window.pwned = true</script>', { exact: false }).first().waitFor();
    // A person is what staging waits for: its Next line says so, above the commands that approve or reject.
    assert.equal(
      await page.locator('#env-staging .next').innerText(),
      'Next: staging waits for a person to approve 6.9.2, or to reject it.',
    );
    assert.deepEqual(await page.locator('#env-staging .commands code').allInnerTexts(), [
      'pipelinectl approve flux-system/podinfo staging --revision 6.9.2',
      "pipelinectl reject flux-system/podinfo staging --revision 6.9.2 --reason '…'",
    ]);
    await screenshot(t, 'pipeline-waiting');

    await tabTo(({ text }) => text === 'Approve 6.9.2');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/environments\/staging\/approve\?revision=6\.9\.2$/);
    assert.match(await page.locator('#confirmation').innerText(), /Approve revision 6\.9\.2 for environment staging/);
    await screenshot(t, 'approve-confirmation');
    await tabTo(({ id }) => id === 'confirm-approve');
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/pipelines\/flux-system\/podinfo#env-staging$/);
    await page.waitForSelector('#env-staging [data-state="promoting"]');
    assert.match(await page.locator('#env-staging .approval').innerText(), new RegExp(`by ${approver}`));
    assert.equal(await page.locator('#env-staging .commands').count(), 0, 'approved: no one is waited for');
    // From here on, a reload would lose this mark: the update must come without one.
    await page.evaluate('window.notReloaded = true');
    await world?.deliverPending();
    // The pull request is opened, not merged: the state says so, with its link beside it.
    await page.waitForSelector('#env-staging [data-state="pull-request-open"]');
    assert.equal(await page.evaluate<boolean>("'notReloaded' in window"), true, 'updated in place');
    assert.equal(await page.locator('#env-staging .state').first().innerText(), 'pull request open');
    assert.equal(await page.locator(`#env-staging .pull-request a[href="${PULL_REQUEST_URL}"]`).count(), 1);
    assert.equal(await page.locator(`#env-staging table a[href="${PULL_REQUEST_URL}"]`).count(), 1);
    await screenshot(t, 'pipeline-pull-request-open');
  });

  it('the history shows the approval with who approved', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/history'));
    const applied = page.locator('li[data-type="config-applied"]');
    assert.equal(await applied.count(), 1);
    assert.match(await applied.innerText(), /ConfigSource flux-system\/fleet · main@sha1:1a2b3c4d/);
    assert.equal(await applied.locator('ul.changes li').count(), 3);
    await screenshot(t, 'history-config-applied');
    const approved = page.locator('li[data-type="approved"]');
    assert.equal(await approved.count(), 1);
    assert.equal(await approved.locator('.actor').textContent(), approver);
    await page.locator('select[name="type"]').selectOption('approved');
    // A fact recorded while the person chooses: the live update shows it, and keeps the choice not yet sent.
    await world?.backend.store.appendAudit({
      at: new Date().toISOString(),
      pipeline: PIPELINE,
      type: 'approval-cleared',
      env: 'dev',
      revision: '6.9.2',
      message: 'approval-cleared',
      actor: 'test',
    });
    await page.locator('li[data-type="approval-cleared"]').waitFor();
    assert.equal(await page.locator('select[name="type"]').inputValue(), 'approved', 'the chosen filter is kept');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=approved/);
    assert.equal(await page.locator('li[data-type]').count(), 1);
    await screenshot(t, 'history');
  });

  it('the metrics page draws a chart per metric, with the figures in a table, in the light and the dark theme', async (t) => {
    if (skipWithoutChromium(t)) return;
    if (!world) return;
    await recordMetricsTrail(world.backend.store);
    await page.getByRole('link', { name: 'Metrics' }).click();
    await page.waitForURL(/\/metrics$/);
    await page.locator('select[name="window"]').selectOption('7d');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/window=7d/);
    const charts = page.locator('section.metrics svg.chart[role="img"]');
    // Deployments per day for each of the three environments, lead time, change failure rate, time to restore.
    assert.equal(await charts.count(), 6);
    for (const svg of await charts.all()) {
      assert.ok(await svg.isVisible());
      assert.ok(((await svg.boundingBox())?.height ?? 0) > 20, 'drawn at a readable size');
    }
    assert.equal(await page.getByRole('img', { name: 'Lead time per revision, dev to prod' }).count(), 1);
    assert.equal(await page.locator('#m0-lead-time circle.mark').count(), 2);
    assert.deepEqual(await page.locator('table.figures tbody th').allInnerTexts(), ['dev', 'staging', 'prod']);
    assert.match(await page.locator('tr[data-env="prod"]').innerText(), /50% \(1\/2\)/);
    await screenshot(t, 'metrics');

    // A new deployment in the trail reaches the open page without a reload.
    await page.evaluate('window.notReloaded = true');
    const devDeployments = Number(await page.locator('tr[data-env="dev"] td').first().innerText());
    await world.backend.store.appendAudit({
      at: new Date().toISOString(),
      pipeline: PIPELINE,
      type: 'environment-passed',
      env: 'dev',
      revision: '6.9.3',
      message: 'environment-passed',
      actor: 'test',
    });
    // Waited for through the page's DOM: the CSP forbids evaluating a string in it.
    await page
      .locator('tr[data-env="dev"] td:first-of-type', { hasText: new RegExp(`^${devDeployments + 1}$`) })
      .waitFor();
    assert.equal(await page.evaluate<boolean>("'notReloaded' in window"), true, 'updated in place');

    // The marks and labels follow the theme: the text colour is the dark theme's when the system asks for dark.
    const textColour = () => page.evaluate<string>("getComputedStyle(document.getElementById('m0-lead-time')).color");
    const light = await textColour();
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await textColour(), 'rgb(230, 237, 243)');
    assert.notEqual(light, 'rgb(230, 237, 243)');
    await screenshot(t, 'metrics-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('no page logged a console error', (t) => {
    if (skipWithoutChromium(t)) return;
    assert.deepEqual(consoleErrors, []);
  });
});

// A fleet of two: api, healthy (dev, staging and prod on 2.4.0, reached 3h, 2h and 1h ago), stored first; podinfo,
// whose staging waits for an approval of 6.9.2 (its 6.9.1 came by a pull request an hour ago) and whose prod waits
// for staging. What a person sees at a glance: the pipeline that needs them first, each environment's revision and
// since when and its state in words, a legend of the words, and on the pipeline's page the environments as tiles.
describe(
  'the fleet and a pipeline at a glance, in headless Chromium',
  { concurrency: false, timeout: 4 * PATIENCE_MS },
  () => {
    let world: DashboardWorld | undefined;
    let browser: Browser | undefined;
    let page: Page;
    let screenshots = '';
    const consoleErrors: string[] = [];

    const skipWithoutChromium = (t: TestContext): boolean => {
      if (executablePath) return false;
      t.skip(SKIP_REASON);
      return true;
    };
    const url = (path: string) => new URL(path, world?.dashboard.url).href;
    const screenshot = async (t: TestContext, name: string) => {
      const path = join(screenshots, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      t.diagnostic(`screenshot: ${path}`);
    };
    const fleetRow = (pipeline: string) => page.locator(`tbody tr[data-pipeline="${pipeline}"]`);
    const environmentLine = async (pipeline: string, env: string) =>
      (await fleetRow(pipeline).locator(`li[data-env="${env}"]`).innerText()).replace(/\s+/g, ' ').trim();

    before(async () => {
      if (!executablePath) return;
      screenshots = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-glance-'));
      world = await startDashboardWorld({ refreshMs: 200, healthyPipeline: true });
      // The pull request that brought 6.9.1 to staging, an hour ago.
      const { store } = world.backend;
      const anHourAgo = new Date(Date.now() - 3_600_000);
      await store.createPromotion(PIPELINE, 'staging', '6.9.1', anHourAgo);
      const claimed = await store.claimPromotion(PIPELINE, 'staging', '6.9.1', 'test', 60_000, anHourAgo);
      assert.ok(claimed);
      assert.ok(await store.completePromotion(claimed, PULL_REQUEST_URL, anHourAgo));
      ({ browser, page } = await openBrowser(consoleErrors));
      // The owner's cookie, as opening the printed URL gives it: every test here reads as the owner.
      await page.goto(world.dashboard.ownerUrl);
      await page.waitForURL(world.dashboard.url);
    });
    after(async () => {
      await browser?.close();
      await world?.close();
    });

    it('the fleet: the pipeline waiting for a person first, each environment with its revision, since when and state in words', async (t) => {
      if (skipWithoutChromium(t) || !world) return;
      t.diagnostic(`screenshots in ${screenshots}`);
      await page.goto(url('/'));
      const fleet = page.getByRole('table', { name: /promotion order/ });
      // api is stored first and needs no one; podinfo's staging waits for an approval.
      assert.deepEqual(await fleet.getByRole('rowheader').allInnerTexts(), ['flux-system/podinfo', 'flux-system/api']);
      assert.equal(await page.locator('#fleet-summary').innerText(), '2 pipelines, 1 approval waiting');

      assert.match(
        await environmentLine('flux-system/podinfo', 'dev'),
        /^dev 6\.9\.2 since \d+[sm] ago source \(CandidateFound\)$/,
      );
      assert.match(
        await environmentLine('flux-system/podinfo', 'staging'),
        /^staging 6\.9\.1 since \d+[sm] ago waits for approval \(AwaitingApproval\)$/,
      );
      // A healthy prod that the walk has not reached says what it waits for, not "not-reached".
      assert.match(
        await environmentLine('flux-system/podinfo', 'prod'),
        /^prod 6\.9\.1 since \d+[sm] ago waits for staging \(StoppedEarlier\)$/,
      );
      const api = objectKeyString(HEALTHY_PIPELINE);
      assert.equal(await environmentLine(api, 'dev'), 'dev 2.4.0 since 3h ago source (CandidateFound)');
      assert.equal(await environmentLine(api, 'staging'), 'staging 2.4.0 since 2h ago passed (AllTargetsReady)');
      assert.equal(await environmentLine(api, 'prod'), 'prod 2.4.0 since 1h ago passed (AllTargetsReady)');
      // The time is a <time> element whose exact value is one hover away.
      const since = fleetRow(api).locator('li[data-env="prod"] time');
      assert.ok(Date.parse((await since.getAttribute('datetime')) ?? '') > 0);
      await screenshot(t, 'fleet-two-pipelines');
    });

    it('the fleet: a legend says every state in words and what it means, and stays open while the page updates live', async (t) => {
      if (skipWithoutChromium(t) || !world) return;
      await page.goto(url('/'));
      const legend = page.locator('#state-legend');
      const approval = legend.getByRole('term').filter({ hasText: 'waits for approval' });
      assert.equal(await approval.isVisible(), false, 'collapsed until asked for');
      await page.getByText('What the states mean').click();
      await approval.waitFor();
      assert.equal(await legend.getByRole('term').count(), Object.keys(ENVIRONMENT_STATE_WORDS).length);
      const meaning = legend.locator('[data-state="not-reached"]');
      assert.match(await meaning.innerText(), /^waits for …\s+An earlier environment, named in the words/);
      assert.equal(
        await legend.locator('[data-state="waiting-approval"] dd').innerText(),
        ENVIRONMENT_STATE_MEANINGS['waiting-approval'],
      );

      // api's dev moves on to 2.4.1: the open page shows it without a reload, the legend still open.
      await page.evaluate('window.notReloaded = true');
      const at = new Date();
      await world.backend.store.recordTargetStatus(
        { cluster: { namespace: 'flux-system', name: 'dev' }, kind: 'HelmRelease', namespace: 'api', name: 'api' },
        { revision: '2.4.1', phase: 'Ready', reason: 'Deployed', message: 'deployed 2.4.1' },
        at,
      );
      await fleetRow(objectKeyString(HEALTHY_PIPELINE)).locator('li[data-env="dev"]', { hasText: '2.4.1' }).waitFor();
      assert.equal(await page.evaluate<boolean>("'notReloaded' in window"), true, 'updated in place');
      assert.equal(await approval.isVisible(), true, 'the legend stayed open');
      await screenshot(t, 'fleet-legend');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(t, 'fleet-legend-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    });

    it("a pipeline's page starts with its environments as tiles: revision, since when, state, reason, pull request", async (t) => {
      if (skipWithoutChromium(t) || !world) return;
      await page.goto(url('/pipelines/flux-system/podinfo'));
      const tiles = page.getByRole('region', { name: 'Environments' }).getByRole('article');
      assert.deepEqual(
        await Promise.all((await tiles.all()).map((tile) => tile.getAttribute('data-env'))),
        ['dev', 'staging', 'prod'],
        'in promotion order',
      );
      const tile = (env: string) => page.getByRole('article', { name: env, exact: true });
      const text = async (env: string) => (await tile(env).innerText()).replace(/\s+/g, ' ').trim();
      assert.match(await text('dev'), /^dev 6\.9\.2 since \d+[sm] ago source \(CandidateFound\)$/);
      assert.match(
        await text('staging'),
        new RegExp(
          '^staging 6\\.9\\.1 since \\d+[sm] ago waits for approval \\(AwaitingApproval\\) ' +
            'promotion of 6\\.9\\.1: https://github\\.com/acme/fleet/pull/7 Approve or reject 6\\.9\\.2 below$',
        ),
      );
      assert.match(await text('prod'), /^prod 6\.9\.1 since \d+[sm] ago waits for staging \(StoppedEarlier\)$/);
      const pullRequest = tile('staging').getByRole('link', { name: PULL_REQUEST_URL });
      assert.equal(await pullRequest.getAttribute('href'), PULL_REQUEST_URL);
      // The tiles come before the details, side by side in one row. Measured in one step in the page: a live update
      // may replace the elements between two steps.
      const layout = await page.evaluate<{ tiles: { x: number; y: number; bottom: number }[]; details: number }>(
        `(() => {
          const tiles = [...document.querySelectorAll('#environments article.tile')].map((tile) => {
            const box = tile.getBoundingClientRect();
            return { x: box.x, y: box.y, bottom: box.bottom };
          });
          return { tiles, details: document.getElementById('env-dev').getBoundingClientRect().y };
        })()`,
      );
      const [dev, staging, prod] = layout.tiles;
      assert.ok(dev && staging && prod, 'every tile is drawn');
      assert.ok(dev.x < staging.x && staging.x < prod.x && dev.y === staging.y, 'left to right, in one row');
      assert.ok(layout.details > dev.bottom, 'the details follow the tiles');
      await screenshot(t, 'pipeline-tiles');

      // The waiting tile leads to the Approve and Reject buttons, which stay in staging's details.
      await tile('staging').getByRole('link', { name: 'Approve or reject 6.9.2 below' }).click();
      await page.waitForURL(/#env-staging$/);
      assert.equal(await page.locator('#env-staging').getByRole('link', { name: 'Approve 6.9.2' }).isVisible(), true);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto(url('/pipelines/flux-system/podinfo'));
      await screenshot(t, 'pipeline-tiles-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    });

    it('no page logged a console error', (t) => {
      if (skipWithoutChromium(t)) return;
      assert.deepEqual(consoleErrors, []);
    });
  },
);

// A pipeline whose environments form a diamond with `after` (staging feeds prod-eu and prod-us, which both feed
// global), every target Ready on 3.1.0, beside podinfo's line. Its page draws the environments as a graph above the
// tiles: a node per environment in columns by depth, an arrow from each environment it follows, the image named by the
// graph in words and each node by its own title, in the theme's colours; a line is drawn as a row.
describe('a pipeline drawn as a graph, in headless Chromium', { concurrency: false, timeout: 4 * PATIENCE_MS }, () => {
  let world: DashboardWorld | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let screenshots = '';
  const consoleErrors: string[] = [];
  const shop = objectKeyString(DIAMOND_PIPELINE);

  const skipWithoutChromium = (t: TestContext): boolean => {
    if (executablePath) return false;
    t.skip(SKIP_REASON);
    return true;
  };
  const url = (path: string) => new URL(path, world?.dashboard.url).href;
  const screenshot = async (t: TestContext, name: string) => {
    const path = join(screenshots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    t.diagnostic(`screenshot: ${path}`);
  };
  /** Each node's environment and box, read in one step in the page (a live update may replace the elements). */
  const nodeBoxes = () =>
    page.evaluate<{ env: string; x: number; y: number; width: number }[]>(
      `[...document.querySelectorAll('#pipeline-graph g.node')].map((node) => {
        const box = node.getBoundingClientRect();
        return { env: node.getAttribute('data-env'), x: box.x, y: box.y, width: box.width };
      })`,
    );
  /** The accessible names Chromium gives the groups inside the image named `name`: what a screen reader reads. */
  const namesInsideImage = async (name: RegExp): Promise<string[]> => {
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    await cdp.detach();
    const byId = new Map(nodes.map((node) => [node.nodeId, node]));
    const text = (value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');
    const image = nodes.find((node) => node.role?.value === 'image' && name.test(text(node.name?.value)));
    assert.ok(image, 'the image is in the accessibility tree');
    const names: string[] = [];
    const visit = (id: string) => {
      const node = byId.get(id);
      if (!node) return;
      if (!node.ignored && node.role?.value === 'group') names.push(text(node.name?.value));
      for (const child of node.childIds ?? []) visit(child);
    };
    for (const child of image.childIds ?? []) visit(child);
    return names;
  };

  before(async () => {
    if (!executablePath) return;
    screenshots = await mkdtemp(join(tmpdir(), 'pipelinectl-dashboard-graph-'));
    world = await startDashboardWorld({ refreshMs: 200, diamondPipeline: true });
    ({ browser, page } = await openBrowser(consoleErrors));
    await page.goto(world.dashboard.ownerUrl);
    await page.waitForURL(world.dashboard.url);
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('a diamond: a node per environment in columns by depth, an arrow from each it follows, all named in words', async (t) => {
    if (skipWithoutChromium(t) || !world) return;
    t.diagnostic(`screenshots in ${screenshots}`);
    await page.goto(url(`/pipelines/${shop}`));
    const graph = page.getByRole('region', { name: 'Environments' }).getByRole('img', {
      name: `The environments of ${shop}: staging → prod-eu, prod-us; prod-eu, prod-us → global`,
    });
    assert.equal(await graph.count(), 1);
    assert.ok(await graph.isVisible());

    // Staging, then the two regions one above the other, then global between them: left to right by depth.
    const boxes = await nodeBoxes();
    assert.deepEqual(
      boxes.map((box) => box.env),
      ['staging', 'prod-eu', 'prod-us', 'global'],
    );
    const [staging, eu, us, global] = boxes;
    assert.ok(staging && eu && us && global, 'every node is drawn');
    assert.ok(staging.x + staging.width < eu.x && eu.x === us.x && us.x + us.width < global.x, 'columns by depth');
    assert.ok(eu.y < us.y, 'the regions in the order listed, one above the other');
    assert.ok(eu.y < global.y && global.y < us.y, 'the fan-in between the branches it joins');
    assert.ok(
      boxes.every((box) => box.width > 100),
      'drawn at a readable size',
    );
    const arrows = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#pipeline-graph path.edge')].map(
        (path) => path.getAttribute('data-from') + ' → ' + path.getAttribute('data-to'),
      )`,
    );
    assert.deepEqual(arrows, ['staging → prod-eu', 'staging → prod-us', 'prod-eu → global', 'prod-us → global']);

    // What a screen reader reads: each environment, the revision it runs, its state in words, what it follows.
    assert.deepEqual(await namesInsideImage(/^The environments of flux-system\/shop:/), [
      `staging: ${DIAMOND_REVISION}, source (CandidateFound)`,
      `prod-eu: ${DIAMOND_REVISION}, passed (AllTargetsReady); after staging`,
      `prod-us: ${DIAMOND_REVISION}, passed (AllTargetsReady); after staging`,
      `global: ${DIAMOND_REVISION}, passed (AllTargetsReady); after prod-eu, prod-us`,
    ]);
    // On the node itself, the state in the words the tiles use.
    assert.deepEqual(
      (await page.locator('#pipeline-graph g.node .node-state').allTextContents()).map((text) => text.trim()),
      ['source', 'passed', 'passed', 'passed'],
    );
    // The tiles are still there, below the graph, one per environment.
    const tiles = page.getByRole('region', { name: 'Environments' }).getByRole('article');
    assert.equal(await tiles.count(), 4);
    const below = await page.evaluate<boolean>(
      "document.getElementById('pipeline-graph').getBoundingClientRect().bottom <= document.querySelector('article.tile').getBoundingClientRect().top",
    );
    assert.ok(below, 'the tiles follow the graph');
    await screenshot(t, 'pipeline-graph');
  });

  it("the graph's colours are the theme's: light, then dark when the system asks for it", async (t) => {
    if (skipWithoutChromium(t) || !world) return;
    await page.goto(url(`/pipelines/${shop}`));
    const colours = () =>
      page.evaluate<{ state: string; border: string; box: string; name: string }>(
        `(() => {
          const node = document.querySelector('#pipeline-graph g.node[data-env="prod-eu"]');
          return {
            state: getComputedStyle(node.querySelector('.node-state')).fill,
            border: getComputedStyle(node.querySelector('rect')).stroke,
            box: getComputedStyle(node.querySelector('rect')).fill,
            name: getComputedStyle(node.querySelector('.node-name')).fill,
          };
        })()`,
      );
    // passed: the theme's "ok" colour on the node's words and edge, the panel behind, the names in the text colour.
    assert.deepEqual(await colours(), {
      state: 'rgb(17, 99, 41)',
      border: 'rgb(17, 99, 41)',
      box: 'rgb(246, 248, 250)',
      name: 'rgb(27, 31, 36)',
    });
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await colours(), {
      state: 'rgb(86, 211, 100)',
      border: 'rgb(86, 211, 100)',
      box: 'rgb(22, 27, 34)',
      name: 'rgb(230, 237, 243)',
    });
    await screenshot(t, 'pipeline-graph-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('a line (no after) is drawn too, as a row', async (t) => {
    if (skipWithoutChromium(t) || !world) return;
    await page.goto(url('/pipelines/flux-system/podinfo'));
    const graph = page.getByRole('img', {
      name: /^The environments of flux-system\/podinfo: dev → staging; staging → prod /,
    });
    assert.equal(await graph.count(), 1);
    const boxes = await nodeBoxes();
    assert.deepEqual(
      boxes.map((box) => box.env),
      ['dev', 'staging', 'prod'],
    );
    assert.equal(new Set(boxes.map((box) => box.y)).size, 1, 'one row');
    assert.ok(
      boxes.every((box, i) => i === 0 || (boxes[i - 1]?.x ?? Infinity) < box.x),
      'left to right',
    );
    await screenshot(t, 'pipeline-graph-line');

    // On a narrow screen the graph keeps its size, to stay readable, and scrolls sideways.
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 400, height: 800 });
    const narrow = await nodeBoxes();
    assert.deepEqual(
      narrow.map((box) => box.width),
      boxes.map((box) => box.width),
      'not shrunk',
    );
    const scrolls = await page.evaluate<boolean>(
      "(() => { const s = document.querySelector('.pipeline-graph-scroll'); return s.scrollWidth > s.clientWidth; })()",
    );
    assert.ok(scrolls, 'scrolls sideways');
    await screenshot(t, 'pipeline-graph-line-narrow');
    if (viewport) await page.setViewportSize(viewport);
  });

  it('no page logged a console error', (t) => {
    if (skipWithoutChromium(t)) return;
    assert.deepEqual(consoleErrors, []);
  });
});
