// Where a pull-request promotion goes: the repository named by `pull-request.url`, and the API that serves it.
import { PromotionError } from '../port.js';

export interface GitHubRepository {
  /** The web host, with its port when there is one: `github.com`, `ghe.example.com`. */
  host: string;
  owner: string;
  repo: string;
  /** `https://{host}/{owner}/{repo}`: the URL without `.git`, credentials, query or trailing slash. */
  webUrl: string;
}

/**
 * Owner and repository from an https repository URL (`https://github.com/acme/fleet.git`). Weave's error for any
 * other scheme is kept. The URL itself never goes into an error message, in case it carries credentials.
 */
export function parseRepositoryUrl(url: string): GitHubRepository {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PromotionError('the pull-request url is not a valid URL', false);
  }
  if (parsed.protocol !== 'https:') throw new PromotionError('unsupported URL scheme, only HTTPS supported', false);
  const parts = parsed.pathname.split('/').filter((part) => part !== '');
  const owner = parts[0];
  const repo = parts[1]?.replace(/\.git$/, '');
  if (parts.length !== 2 || !owner || !repo) {
    throw new PromotionError(
      `the pull-request url must name a repository as https://${parsed.host}/<owner>/<repository>`,
      false,
    );
  }
  return { host: parsed.host, owner, repo, webUrl: `https://${parsed.host}/${owner}/${repo}` };
}

/** github.com → `https://api.github.com`; any other host (GitHub Enterprise Server) → `https://{host}/api/v3`. */
export function githubApiUrl(host: string): string {
  const lower = host.toLowerCase();
  return lower === 'github.com' || lower === 'www.github.com' ? 'https://api.github.com' : `https://${lower}/api/v3`;
}
