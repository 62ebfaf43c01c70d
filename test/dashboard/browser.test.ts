// The dashboard in a real browser: headless Chromium (Debian's `chromium` package) driven by playwright-core, over a
// local data directory whose manual `staging` waits for an approval of 6.9.2. A person's path through it: the fleet
// shows the waiting approval, the keyboard reaches Approve, the confirmation names the revision, the page follows the
// promotion live without a reload, and the history shows who approved. No page logs a console error; a screenshot of
// each is written to a directory named in the test log. Without Chromium the tests are skipped, saying why.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PULL_REQUEST_URL, startDashboardWorld, type DashboardWorld } from './world.js';

/** PIPELINECTL_CHROMIUM, else the paths Debian and Ubuntu install Chromium at. */
function chromiumPath(): string | undefined {
  const candidates = [process.env.PIPELINECTL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

const executablePath = chromiumPath();
const SKIP_REASON =
  "Chromium not found (PIPELINECTL_CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser): install Debian's " +
  'chromium package to run the dashboard browser tests';

describe('the dashboard in headless Chromium', { concurrency: false, timeout: 60_000 }, () => {
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
    world = await startDashboardWorld({ refreshMs: 200 });
    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('the fleet page lists the pipeline and counts one waiting approval', async (t) => {
    if (skipWithoutChromium(t)) return;
    t.diagnostic(`screenshots in ${screenshots}`);
    await page.goto(url('/'));
    assert.equal(await page.getByRole('link', { name: 'flux-system/podinfo' }).count(), 1);
    assert.equal(await page.locator('#fleet-summary').innerText(), '1 pipeline, 1 approval waiting');
    await screenshot(t, 'fleet');
  });

  it('by keyboard: Approve, a confirmation naming 6.9.2, then the page follows the promotion without a reload', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/pipelines/flux-system/podinfo'));
    const staging = page.locator('#env-staging [data-state]');
    assert.equal(await staging.getAttribute('data-state'), 'waiting-approval');
    // The leaf cluster's message is on the page as text, and did not run.
    assert.equal(await page.evaluate<boolean>("'pwned' in window"), false);
    await page.getByText('<script>window.pwned = true</script>', { exact: false }).first().waitFor();
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
    // From here on, a reload would lose this mark: the update must come without one.
    await page.evaluate('window.notReloaded = true');
    await world?.deliverPending();
    const served = await (await fetch(url('/pipelines/flux-system/podinfo'))).text();
    t.diagnostic(
      `DEBUG served ${/env-staging[\s\S]*?data-state="([^"]+)"/.exec(served)?.[1]} live=${await page.locator('#live-status').innerText()}`,
    );
    await page.waitForSelector('#env-staging [data-state="promoted"]', { timeout: 10_000 });
    assert.equal(await page.evaluate<boolean>("'notReloaded' in window"), true, 'updated in place');
    assert.equal(await page.locator(`#env-staging a[href="${PULL_REQUEST_URL}"]`).count(), 1);
    await screenshot(t, 'pipeline-promoted');
  });

  it('the history shows the approval with who approved', async (t) => {
    if (skipWithoutChromium(t)) return;
    await page.goto(url('/history'));
    const approved = page.locator('li[data-type="approved"]');
    assert.equal(await approved.count(), 1);
    assert.equal(await approved.locator('.actor').textContent(), approver);
    await page.locator('select[name="type"]').selectOption('approved');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=approved/);
    assert.equal(await page.locator('li[data-type]').count(), 1);
    await screenshot(t, 'history');
  });

  it('no page logged a console error', (t) => {
    if (skipWithoutChromium(t)) return;
    assert.deepEqual(consoleErrors, []);
  });
});
