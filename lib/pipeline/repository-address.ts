// Where a pull-request promotion goes: the repository a `pull-request.url` names, in the URL forms each Git host
// shows its users, and the API base that serves it unless the deployment overrides it. One home for the rule: the
// config schema rejects a URL that is not understood when the Pipeline is applied, and each host's promoter opens
// the repository from the same address (docs/promotion-strategies.md, "Pull requests").
import type { GitProviderType } from './promotion.js';
import { isHttpProtocol } from '../util/http-url.js';

interface AddressBase {
  /** The web host, with its port when there is one (`gitlab.example.com:8443`), lower-case. */
  host: string;
  /** The repository's web page: no credentials, `.git`, query or trailing slash. Safe to show. */
  webUrl: string;
  /** The API base derived from the URL (docs/promotion-strategies.md, "Pull requests"); a deployment setting may override it. */
  apiUrl: string;
}

export interface GitHubAddress extends AddressBase {
  type: 'github';
  owner: string;
  repo: string;
}

export interface GitLabAddress extends AddressBase {
  type: 'gitlab';
  /** The project's full path, subgroups included: `group/sub/project`. */
  projectPath: string;
}

export interface BitbucketServerAddress extends AddressBase {
  type: 'bitbucket-server';
  /** The project key (`PROJ`), or `~user` for a personal repository. */
  projectKey: string;
  /** The repository slug. */
  repositorySlug: string;
}

export interface AzureDevOpsAddress extends AddressBase {
  type: 'azure-devops';
  /** The collection (organization) URL the client connects to: `https://dev.azure.com/org`. */
  collectionUrl: string;
  project: string;
  repository: string;
}

export type RepositoryAddress = GitHubAddress | GitLabAddress | BitbucketServerAddress | AzureDevOpsAddress;

/** The URL forms each type accepts, for error messages and the README. */
export const REPOSITORY_URL_FORMS: Record<GitProviderType, readonly string[]> = {
  github: ['https://github.com/<owner>/<repository>[.git]'],
  gitlab: ['https://<host>/<group>[/<subgroup>…]/<project>[.git]'],
  'bitbucket-server': [
    'https://<host>[/<context>]/scm/<PROJECT>/<repository>.git',
    'https://<host>[/<context>]/projects/<PROJECT>/repos/<repository>[/browse]',
  ],
  'azure-devops': [
    'https://dev.azure.com/<organization>/<project>/_git/<repository>',
    'https://<organization>.visualstudio.com/[DefaultCollection/]<project>/_git/<repository>',
    'https://<server>/<collection path>/<project>/_git/<repository> (Azure DevOps Server)',
  ],
};

export type AddressResult = { ok: true; address: RepositoryAddress } | { ok: false; problem: string };

/**
 * The repository a `pull-request.url` of this type names. A problem is a sentence that never repeats the URL (it
 * may carry credentials), fit to follow the field's name.
 */
export function repositoryAddress(type: GitProviderType, url: string): AddressResult {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, problem: 'is not a valid URL' };
  }
  if (!isHttpProtocol(parsed, { httpsOnly: true }))
    return { ok: false, problem: 'has an unsupported URL scheme: only HTTPS is supported' };
  const host = parsed.host.toLowerCase();
  const parts = parsed.pathname
    .split('/')
    .filter((part) => part !== '')
    .map((part) => safeDecode(part));
  const address = ADDRESS_OF[type](host, parts);
  if (address) return { ok: true, address };
  const forms = REPOSITORY_URL_FORMS[type];
  return {
    ok: false,
    problem: `does not name a ${type} repository: expected ${forms.length > 1 ? 'one of ' : ''}${forms.join(', ')}`,
  };
}

const ADDRESS_OF: Record<GitProviderType, (host: string, parts: string[]) => RepositoryAddress | undefined> = {
  github(host, parts) {
    const [owner, rawRepo] = parts;
    const repo = rawRepo?.replace(/\.git$/, '');
    if (parts.length !== 2 || !owner || !repo) return undefined;
    const apiUrl =
      host === 'github.com' || host === 'www.github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
    return { type: 'github', host, owner, repo, webUrl: `https://${host}/${owner}/${repo}`, apiUrl };
  },

  gitlab(host, parts) {
    // A web page below the project (`/-/tree/main`) names the project before the `-`.
    const dash = parts.indexOf('-');
    const path = (dash >= 0 ? parts.slice(0, dash) : parts).map((part, index, all) =>
      index === all.length - 1 ? part.replace(/\.git$/, '') : part,
    );
    if (path.length < 2 || path.some((part) => part === '')) return undefined;
    const projectPath = path.join('/');
    return {
      type: 'gitlab',
      host,
      projectPath,
      webUrl: `https://${host}/${projectPath}`,
      apiUrl: `https://${host}/api/v4`,
    };
  },

  'bitbucket-server'(host, parts) {
    let context: string[];
    let projectKey: string | undefined;
    let slug: string | undefined;
    const scm = parts.lastIndexOf('scm');
    const projects = parts.lastIndexOf('projects');
    const users = parts.lastIndexOf('users');
    if (scm >= 0 && parts.length === scm + 3) {
      context = parts.slice(0, scm);
      projectKey = parts[scm + 1];
      slug = parts[scm + 2]?.replace(/\.git$/, '');
    } else if (projects >= 0 && parts[projects + 2] === 'repos' && parts.length >= projects + 4) {
      context = parts.slice(0, projects);
      projectKey = parts[projects + 1];
      slug = parts[projects + 3];
    } else if (users >= 0 && parts[users + 2] === 'repos' && parts.length >= users + 4) {
      context = parts.slice(0, users);
      projectKey = `~${parts[users + 1] ?? ''}`;
      slug = parts[users + 3];
    } else {
      return undefined;
    }
    if (!projectKey || !slug || projectKey === '~') return undefined;
    // Project keys are upper case; clone URLs often show them in lower case.
    if (!projectKey.startsWith('~')) projectKey = projectKey.toUpperCase();
    const root = `https://${host}${context.map((part) => `/${encodeURIComponent(part)}`).join('')}`;
    const owner = projectKey.startsWith('~')
      ? `users/${encodeURIComponent(projectKey.slice(1))}`
      : `projects/${encodeURIComponent(projectKey)}`;
    return {
      type: 'bitbucket-server',
      host,
      projectKey,
      repositorySlug: slug.toLowerCase(),
      webUrl: `${root}/${owner}/repos/${encodeURIComponent(slug.toLowerCase())}`,
      apiUrl: root,
    };
  },

  'azure-devops'(host, parts) {
    const git = parts.lastIndexOf('_git');
    const repository = parts[git + 1];
    if (git < 1 || parts.length !== git + 2 || !repository) return undefined;
    // Before `_git`: the collection path, then the project. `/org/_git/repo` is the project of the same name.
    let collection: string[];
    let project: string | undefined;
    if (host === 'dev.azure.com') {
      if (git < 1 || git > 2) return undefined;
      collection = parts.slice(0, 1);
      project = git === 2 ? parts[1] : repository;
    } else if (host.endsWith('.visualstudio.com')) {
      const withCollection = parts[0]?.toLowerCase() === 'defaultcollection' ? 1 : 0;
      if (git !== withCollection + 1 && git !== withCollection) return undefined;
      collection = parts.slice(0, withCollection);
      project = git === withCollection ? repository : parts[git - 1];
    } else {
      // Azure DevOps Server: https://server[/tfs]/Collection/Project/_git/repo
      if (git < 2) return undefined;
      collection = parts.slice(0, git - 1);
      project = parts[git - 1];
    }
    if (!project) return undefined;
    const encode = (segments: readonly string[]) => segments.map((part) => `/${encodeURIComponent(part)}`).join('');
    const collectionUrl = `https://${host}${encode(collection)}`;
    return {
      type: 'azure-devops',
      host,
      collectionUrl,
      project,
      repository,
      webUrl: `${collectionUrl}${encode([project, '_git', repository])}`,
      apiUrl: collectionUrl,
    };
  },
};

/**
 * The host type of a repository: the one declared (a ConfigSource's `type`), else the one its URL shows: github.com,
 * gitlab.com, Azure DevOps' `/_git/` and Bitbucket Server's `/scm/` and `/projects/…/repos/` forms. Undefined for a
 * self-hosted URL that could be either GitHub Enterprise or GitLab, when no type is declared.
 */
export function repositoryTypeOf(url: string, declared?: GitProviderType): GitProviderType | undefined {
  if (declared) return declared;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.host.toLowerCase();
  const parts = parsed.pathname.split('/').filter((part) => part !== '');
  if (host === 'github.com' || host === 'www.github.com') return 'github';
  if (host === 'gitlab.com') return 'gitlab';
  if (host === 'dev.azure.com' || host.endsWith('.visualstudio.com') || parts.includes('_git')) return 'azure-devops';
  const repos = parts.indexOf('repos');
  if (parts.includes('scm') || (repos >= 2 && ['projects', 'users'].includes(parts[repos - 2] ?? ''))) {
    return 'bitbucket-server';
  }
  return undefined;
}

/**
 * A folder of a repository as written in a ConfigSource's `path`, normalised: no leading or trailing `/`, `''` for
 * the root (`''`, `.`, `/`). Undefined when it climbs out or holds `.`/`..` segments, a backslash or a control
 * character.
 */
export function repositoryPath(path: string): string | undefined {
  if (path === '.' || path === '/' || path === '') return '';
  // eslint-disable-next-line no-control-regex
  if (/[\\\x00-\x1f\x7f]/.test(path)) return undefined;
  const segments = path.replace(/^\/+|\/+$/g, '').split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined;
  return segments.join('/');
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
