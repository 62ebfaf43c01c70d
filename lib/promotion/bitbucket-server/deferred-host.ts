// The Bitbucket Server adapter as the verifier's promoter holds it: its REST client and answer schemas are loaded on
// the first promotion to Bitbucket Server, not when the process starts (lib/promotion/pull-request/deferred-host.ts
// says why).
import type { GitHost, GitHostSettings } from '../pull-request/host.js';
import { deferredGitHost } from '../pull-request/deferred-host.js';
import { bitbucketServerCredentials, NEEDED_KEYS } from './credentials.js';

export function deferredBitbucketServerHost(settings: GitHostSettings = {}): GitHost {
  return deferredGitHost({
    type: 'bitbucket-server',
    hostName: 'Bitbucket Server',
    neededKeys: NEEDED_KEYS,
    checkCredentials: (values, secret) => void bitbucketServerCredentials(values, secret),
    load: async () => (await import('./host.js')).bitbucketServerHost(settings),
  });
}
