// docs/dashboard.md's screenshots, taken from the demo as a newcomer sees it: `pipelinectl demo` runs
// (a child process, on a temporary data directory), its first release is approved on the dashboard itself and
// promoted through staging and prod, and once the next release waits for its approval in staging, the fleet and the
// pipeline pages are photographed in headless Chromium (light theme, 1280 pixels wide). Not the metrics page: the
// demo releases every few seconds, so every deployment counts as followed by a fix and the figures are no example.
//
//     npx tsx scripts/dashboard-screenshots.ts          # writes docs/images/dashboard-{fleet,pipeline}.png
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_MISSING, chromiumPath } from '../test/dashboard/chromium.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMAGES = join(ROOT, 'docs/images');
const PIPELINE_PATH = '/pipelines/flux-system/podinfo';
/** The whole run: two releases, two merges and two rollouts take well under a minute. */
const DEADLINE_MS = 180_000;

async function main(): Promise<void> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(CHROMIUM_MISSING);
  const dataDir = await mkdtemp(join(tmpdir(), 'pipelinectl-screenshots-'));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  const demo = spawn(
    process.execPath,
    ['bin/pipelinectl.js', 'demo', '--port', '0', '--release-every', '5s', '--data-dir', join(dataDir, 'demo')],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let stdout = '';
  demo.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exited = once(demo, 'close');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  try {
    const url = await until('the dashboard URL', () => /^dashboard: (\S+)/m.exec(stdout)?.[1]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 480 }, colorScheme: 'light' });
    // The printed URL carries the token: opening it gives the page the cookie every later request needs.
    await page.goto(url);
    const approveLink = (p: Page) => p.locator('a.button.primary', { hasText: /^Approve / });
    const waitingRevision = async (): Promise<string | undefined> => {
      await page.goto(new URL(PIPELINE_PATH, url).href);
      const link = approveLink(page);
      return (await link.count()) === 0 ? undefined : (await link.innerText()).replace(/^Approve /, '');
    };

    // The first release waits in staging: approve it on the dashboard, as a person would.
    const first = await until('the first approval request', waitingRevision);
    await approveLink(page).click();
    await page.locator('#confirm-approve').click();
    await page.waitForURL(/#env-staging$/);
    // Then the next release: prod has the first one by then (CI holds releases while one is on its way).
    const second = await until('the next approval request', async () => {
      const revision = await waitingRevision();
      return revision !== undefined && revision !== first ? revision : undefined;
    });
    console.log(`staging waits for ${second}; ${first} was approved and promoted`);

    await mkdir(IMAGES, { recursive: true });
    const shots: [string, string][] = [
      ['/', 'dashboard-fleet.png'],
      [PIPELINE_PATH, 'dashboard-pipeline.png'],
    ];
    for (const [path, file] of shots) {
      await page.goto(new URL(path, url).href);
      // The live script says so once it listens: the footer then reads as it does for a person.
      await page.locator('#live-status', { hasText: /^live/ }).waitFor();
      await page.screenshot({ path: join(IMAGES, file), fullPage: true });
      console.log(`wrote docs/images/${file}`);
    }
  } finally {
    await browser.close();
    demo.kill('SIGINT');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }

  /** Polls `check` every half second until it returns a value; fails with `what` past the deadline. */
  async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (demo.exitCode !== null) throw new Error(`the demo ended (exit ${demo.exitCode}) before ${what}:\n${stdout}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
