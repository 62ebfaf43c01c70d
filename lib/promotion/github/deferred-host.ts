// The GitHub adapter as the verifier's promoter holds it: Octokit and its plugins are loaded on the first promotion to
// GitHub, not when the process starts (lib/promotion/pull-request/deferred-host.ts says why).
import type { GitHost } from '../pull-request/host.js';
import { deferredGitHost } from '../pull-request/deferred-host.js';
import type { GitHubClientSettings } from './client.js';
import { gitHubCredentials, NEEDED_KEYS } from './credentials.js';

export function deferredGitHubHost(settings: GitHubClientSettings = {}): GitHost {
  return deferredGitHost({
    type: 'github',
    hostName: 'GitHub',
    neededKeys: NEEDED_KEYS,
    checkCredentials: (values, secret) => void gitHubCredentials(values, secret),
    load: async () => (await import('./host.js')).gitHubHost(settings),
  });
}
