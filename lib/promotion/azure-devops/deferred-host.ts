// The Azure DevOps adapter as the verifier's promoter holds it: azure-devops-node-api is loaded on the first promotion
// to Azure DevOps, not when the process starts (lib/promotion/pull-request/deferred-host.ts says why).
import type { GitHost, GitHostSettings } from '../pull-request/host.js';
import { deferredGitHost } from '../pull-request/deferred-host.js';
import { azureDevOpsToken, NEEDED_KEYS } from './credentials.js';
import { MAX_DESCRIPTION_LENGTH } from './limits.js';

export function deferredAzureDevOpsHost(settings: GitHostSettings = {}): GitHost {
  return deferredGitHost({
    type: 'azure-devops',
    hostName: 'Azure DevOps',
    neededKeys: NEEDED_KEYS,
    maxBodyLength: MAX_DESCRIPTION_LENGTH,
    checkCredentials: (values, secret) => void azureDevOpsToken(values, secret),
    load: async () => (await import('./host.js')).azureDevOpsHost(settings),
  });
}
