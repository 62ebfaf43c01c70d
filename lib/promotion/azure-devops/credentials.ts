// The Azure DevOps credentials of the pull-request strategy, read from the Pipeline's Secret: a personal access
// token. Apart from the client (client.ts) so that the promoter checks a Secret before it loads azure-devops-node-api,
// which is loaded on the first promotion to Azure DevOps only (deferred-host.ts).
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { PromotionError } from '../port.js';

export const TOKEN_KEY = 'token';
export const PASSWORD_KEY = 'password';

/** The PAT scope the adapter needs: it reads the repository, pushes the branch and opens pull requests. */
export const NEEDED_SCOPE = 'Code (Read & write)';

/**
 * Azure DevOps' REST API takes a personal access token (Basic, empty user name). A Secret written for git
 * (`username` + `password`, as Flux's GitRepository takes) holds a PAT as its password, since that is how git
 * authenticates to Azure Repos with one: that password is used as the token.
 */
export const NEEDED_KEYS =
  `the key "${TOKEN_KEY}" (an Azure DevOps personal access token with the ${NEEDED_SCOPE} scope), ` +
  `or "${PASSWORD_KEY}" holding such a token`;

/** The PAT in a Secret's values: `token`, else `password`. Messages name the Secret and keys, never values. */
export function azureDevOpsToken(values: Readonly<Record<string, string>>, key: ObjectKey): string {
  const token = values[TOKEN_KEY]?.trim() || values[PASSWORD_KEY]?.trim();
  if (token) return token;
  const empty = [TOKEN_KEY, PASSWORD_KEY].filter((name) => values[name] !== undefined).map((name) => `"${name}"`);
  const why = empty.length > 0 ? ` (${empty.join(' and ')} ${empty.length > 1 ? 'are' : 'is'} empty)` : '';
  throw new PromotionError(
    'Invalid',
    `Secret ${objectKeyString(key)} has no Azure DevOps credentials${why}: it needs ${NEEDED_KEYS}`,
  );
}
