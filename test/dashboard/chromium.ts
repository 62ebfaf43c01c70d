// Where the dashboard's browser tests and scripts/dashboard-screenshots.ts find Chromium: Debian's `chromium` package
// (installed by .ci/run), driven headless by playwright-core, which downloads no browser of its own.
import { existsSync } from 'node:fs';

/** PIPELINECTL_CHROMIUM, else the paths Debian and Ubuntu install Chromium at; undefined when there is none. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.PIPELINECTL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

export const CHROMIUM_MISSING =
  "Chromium not found (PIPELINECTL_CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser): install Debian's " +
  'chromium package';
