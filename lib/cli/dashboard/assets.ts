// The files the dashboard serves besides its pages, read once at start from lib/cli/dashboard/assets: the page needs
// nothing from the internet (no CDN, no web font), so it works on a machine without internet access.
import { readFile } from 'node:fs/promises';

export interface DashboardAsset {
  contentType: string;
  body: Buffer;
}

const FILES = {
  '/assets/dashboard.css': { file: 'dashboard.css', contentType: 'text/css; charset=utf-8' },
  '/assets/dashboard.js': { file: 'dashboard.js', contentType: 'text/javascript; charset=utf-8' },
  '/assets/icon.svg': { file: 'icon.svg', contentType: 'image/svg+xml' },
} as const;

/** Every asset by its URL path. */
export async function loadAssets(): Promise<ReadonlyMap<string, DashboardAsset>> {
  const entries = await Promise.all(
    Object.entries(FILES).map(async ([path, { file, contentType }]) => {
      const body = await readFile(new URL(`./assets/${file}`, import.meta.url));
      return [path, { contentType, body }] as const;
    }),
  );
  return new Map(entries);
}
