// The GitLab adapter as the verifier's promoter holds it: gitbeaker is loaded on the first promotion to GitLab, not
// when the process starts (lib/promotion/pull-request/deferred-host.ts says why).
import type { GitHost, GitHostSettings } from '../pull-request/host.js';
import { deferredGitHost } from '../pull-request/deferred-host.js';
import { gitLabToken, NEEDED_KEYS } from './credentials.js';

export function deferredGitLabHost(settings: GitHostSettings = {}): GitHost {
  return deferredGitHost({
    type: 'gitlab',
    hostName: 'GitLab',
    neededKeys: NEEDED_KEYS,
    checkCredentials: (values, secret) => void gitLabToken(values, secret),
    load: async () => (await import('./host.js')).gitLabHost(settings),
  });
}
