// The GitHub credentials of the pull-request strategy, read from the Pipeline's Secret: a token, or a GitHub App.
// Apart from the client (client.ts) so that the promoter checks a Secret before it loads Octokit, which is loaded on
// the first promotion to GitHub only (deferred-host.ts).
import { createPrivateKey } from 'node:crypto';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { PromotionError } from '../port.js';

export const TOKEN_KEY = 'token';
export const APP_ID_KEY = 'githubAppID';
export const APP_INSTALLATION_ID_KEY = 'githubAppInstallationID';
export const APP_PRIVATE_KEY_KEY = 'githubAppPrivateKey';
const APP_KEYS = [APP_ID_KEY, APP_INSTALLATION_ID_KEY, APP_PRIVATE_KEY_KEY] as const;

export type GitHubCredentials =
  { kind: 'token'; token: string } | { kind: 'app'; appId: number; installationId: number; privateKey: string };

const keyList = (keys: readonly string[]) => keys.map((key) => `"${key}"`).join(', ');
export const NEEDED_KEYS = `the key "${TOKEN_KEY}", or the GitHub App keys ${keyList(APP_KEYS)}`;

/**
 * The credentials in a Secret's values: `token` when it is set, else a GitHub App. Every problem is permanent (a
 * person has to fix the Secret). Messages name the Secret and its keys, never values.
 */
export function gitHubCredentials(values: Readonly<Record<string, string>>, key: ObjectKey): GitHubCredentials {
  const name = `Secret ${objectKeyString(key)}`;
  const token = values[TOKEN_KEY]?.trim();
  if (token) return { kind: 'token', token };
  const present = APP_KEYS.filter((appKey) => values[appKey]?.trim());
  if (present.length === 0) {
    const empty = values[TOKEN_KEY] !== undefined ? ` ("${TOKEN_KEY}" is empty)` : '';
    throw new PromotionError('Invalid', `${name} has no GitHub credentials${empty}: it needs ${NEEDED_KEYS}`);
  }
  const missing = APP_KEYS.filter((appKey) => !present.includes(appKey));
  if (missing.length > 0) {
    throw new PromotionError(
      'Invalid',
      `${name} has ${keyList(present)} but lacks ${keyList(missing)} for a GitHub App`,
    );
  }
  const appId = Number(values[APP_ID_KEY]?.trim());
  const installationId = Number(values[APP_INSTALLATION_ID_KEY]?.trim());
  if (!Number.isSafeInteger(appId) || appId <= 0) {
    throw new PromotionError('Invalid', `${name}: "${APP_ID_KEY}" must be a positive integer`);
  }
  if (!Number.isSafeInteger(installationId) || installationId <= 0) {
    throw new PromotionError('Invalid', `${name}: "${APP_INSTALLATION_ID_KEY}" must be a positive integer`);
  }
  // Keys pasted into an environment variable often have their line breaks escaped.
  const privateKey = (values[APP_PRIVATE_KEY_KEY] ?? '').trim().replace(/\\n/g, '\n');
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new PromotionError('Invalid', `${name}: "${APP_PRIVATE_KEY_KEY}" is not a PEM private key`);
  }
  return { kind: 'app', appId, installationId, privateKey };
}
