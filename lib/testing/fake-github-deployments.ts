// GitHub's deployments API in the fake GitHub (fake-github.ts), as GitHub documents it
// (https://docs.github.com/rest/deployments): a deployment of a ref (a branch or a commit; 422 "No ref found") to an
// environment (default `production`), with a JSON payload; its statuses (`error`, `failure`, `inactive`,
// `in_progress`, `queued`, `pending`, `success`; 422 for any other or a description over 140 characters), newest
// first; listing by `sha`, `ref`, `environment`. A successful status makes the environment's other deployments
// inactive (`auto_inactive`, on by default). Writes need a token that may push (403 otherwise).
import { HostError, found, jsonObject, ok, text, type Reply } from './git-host-kernel.js';
import type { GitRepository } from './git-repository.js';

export const GITHUB_DEPLOYMENT_STATES = [
  'error',
  'failure',
  'inactive',
  'in_progress',
  'queued',
  'pending',
  'success',
] as const;
export type GitHubDeploymentState = (typeof GITHUB_DEPLOYMENT_STATES)[number];

export interface FakeGitHubDeploymentStatus {
  id: number;
  state: GitHubDeploymentState;
  description: string;
  environmentUrl: string;
  logUrl: string;
  creator: string;
  createdAt: string;
}

export interface FakeGitHubDeployment {
  id: number;
  sha: string;
  ref: string;
  environment: string;
  description: string;
  payload: unknown;
  creator: string;
  createdAt: string;
  /** Newest first. */
  statuses: FakeGitHubDeploymentStatus[];
}

type Repository = Pick<GitRepository, 'objects' | 'branchSha'> & { owner: string; name: string };

interface DeploymentRouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  repo: Repository;
  login: string;
  caller: { readOnly?: boolean };
}

type AddRoute = (route: string, handle: (context: DeploymentRouteContext) => Reply) => void;

const DOCS = 'https://docs.github.com/rest/deployments';
const problem = (status: number, message: string, extra: Record<string, unknown> = {}) =>
  new HostError(status, { message, ...extra, documentation_url: DOCS });
const invalid = (field: string, code = 'invalid') =>
  problem(422, 'Validation Failed', { errors: [{ resource: 'Deployment', field, code }] });

export class FakeGitHubDeployments {
  private readonly byRepository = new WeakMap<Repository, FakeGitHubDeployment[]>();
  private nextId = 1;

  constructor(private readonly repoUrl: (repo: Repository, tail: string) => string) {}

  /** A repository's deployments, oldest first. */
  of(repo: Repository): FakeGitHubDeployment[] {
    let list = this.byRepository.get(repo);
    if (!list) this.byRepository.set(repo, (list = []));
    return list;
  }

  defineRoutes(route: AddRoute): void {
    const writer = (caller: DeploymentRouteContext['caller']) => {
      if (caller.readOnly) throw problem(403, 'Resource not accessible by personal access token');
    };
    route('POST /repos/{owner}/{repo}/deployments', ({ repo, body, login, caller }) => {
      writer(caller);
      const input = jsonObject(body, () => problem(400, 'Problems parsing JSON'));
      const ref = text(input.ref);
      if (ref === '') throw invalid('ref', 'missing_field');
      const sha = repo.branchSha(ref) ?? (repo.objects.get(ref)?.type === 'commit' ? ref : undefined);
      if (sha === undefined) throw problem(422, `No ref found for: ${ref}`);
      if (input.required_contexts !== undefined && !Array.isArray(input.required_contexts)) {
        throw invalid('required_contexts');
      }
      const payload = typeof input.payload === 'string' ? parsePayload(input.payload) : (input.payload ?? {});
      const deployment: FakeGitHubDeployment = {
        id: this.nextId++,
        sha,
        ref,
        environment: text(input.environment) || 'production',
        description: text(input.description),
        payload,
        creator: login,
        createdAt: new Date().toISOString(),
        statuses: [],
      };
      this.of(repo).push(deployment);
      return { status: 201, body: this.deploymentJson(repo, deployment) };
    });
    route('GET /repos/{owner}/{repo}/deployments', ({ repo, query }) => {
      const listed = this.of(repo)
        .filter(
          (deployment) =>
            (query.sha === undefined || deployment.sha === query.sha) &&
            (query.ref === undefined || deployment.ref === query.ref) &&
            (query.environment === undefined || deployment.environment === query.environment),
        )
        .reverse();
      const perPage = Math.min(Number(query.per_page ?? 30) || 30, 100);
      return ok(listed.slice(0, perPage).map((deployment) => this.deploymentJson(repo, deployment)));
    });
    const findDeployment = (repo: Repository, id: string | undefined) =>
      found(
        this.of(repo).find((deployment) => String(deployment.id) === id),
        () => problem(404, 'Not Found'),
      );
    route('GET /repos/{owner}/{repo}/deployments/{deployment_id}', ({ repo, params }) =>
      ok(this.deploymentJson(repo, findDeployment(repo, params.deployment_id))),
    );
    route(
      'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
      ({ repo, params, body, login, caller }) => {
        writer(caller);
        const deployment = findDeployment(repo, params.deployment_id);
        const input = jsonObject(body, () => problem(400, 'Problems parsing JSON'));
        const state = GITHUB_DEPLOYMENT_STATES.find((known) => known === input.state);
        if (!state) throw invalid('state');
        const description = text(input.description);
        if (description.length > 140) throw invalid('description');
        const status: FakeGitHubDeploymentStatus = {
          id: this.nextId++,
          state,
          description,
          environmentUrl: text(input.environment_url),
          logUrl: text(input.log_url),
          creator: login,
          createdAt: new Date().toISOString(),
        };
        deployment.statuses.unshift(status);
        if (state === 'success' && input.auto_inactive !== false) this.inactivateOthers(repo, deployment, login);
        return { status: 201, body: this.statusJson(repo, deployment, status) };
      },
    );
    route('GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', ({ repo, params }) => {
      const deployment = findDeployment(repo, params.deployment_id);
      return ok(deployment.statuses.map((status) => this.statusJson(repo, deployment, status)));
    });
  }

  private inactivateOthers(repo: Repository, current: FakeGitHubDeployment, login: string): void {
    for (const other of this.of(repo)) {
      if (other === current || other.environment !== current.environment) continue;
      if (other.statuses[0]?.state !== 'success') continue;
      other.statuses.unshift({
        id: this.nextId++,
        state: 'inactive',
        description: '',
        environmentUrl: '',
        logUrl: '',
        creator: login,
        createdAt: new Date().toISOString(),
      });
    }
  }

  private deploymentJson(repo: Repository, deployment: FakeGitHubDeployment): Record<string, unknown> {
    const url = this.repoUrl(repo, `/deployments/${deployment.id}`);
    return {
      url,
      id: deployment.id,
      node_id: `DE_${deployment.id}`,
      sha: deployment.sha,
      ref: deployment.ref,
      task: 'deploy',
      payload: deployment.payload,
      original_environment: deployment.environment,
      environment: deployment.environment,
      description: deployment.description || null,
      creator: { login: deployment.creator },
      created_at: deployment.createdAt,
      updated_at: deployment.statuses[0]?.createdAt ?? deployment.createdAt,
      statuses_url: `${url}/statuses`,
      repository_url: this.repoUrl(repo, ''),
      transient_environment: false,
      production_environment: false,
    };
  }

  private statusJson(
    repo: Repository,
    deployment: FakeGitHubDeployment,
    status: FakeGitHubDeploymentStatus,
  ): Record<string, unknown> {
    const deploymentUrl = this.repoUrl(repo, `/deployments/${deployment.id}`);
    return {
      url: `${deploymentUrl}/statuses/${status.id}`,
      id: status.id,
      node_id: `DES_${status.id}`,
      state: status.state,
      creator: { login: status.creator },
      description: status.description,
      environment: deployment.environment,
      target_url: status.logUrl,
      log_url: status.logUrl,
      environment_url: status.environmentUrl,
      created_at: status.createdAt,
      updated_at: status.createdAt,
      deployment_url: deploymentUrl,
      repository_url: this.repoUrl(repo, ''),
    };
  }
}

function parsePayload(payload: string): unknown {
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    throw invalid('payload');
  }
}
