// GitLab's deployments API in the fake GitLab (fake-gitlab.ts), as GitLab documents it
// (https://docs.gitlab.com/api/deployments/): `POST /projects/:id/deployments` with `environment`, `sha`, `ref` and
// `tag` (400 "… is missing" without one; the environment is created on first use), `status` one of `running`,
// `success`, `failed`, `canceled` (400 otherwise); `PUT /projects/:id/deployments/:deployment_id` with a new
// `status`; listing, newest last, filtered by `environment` and `status`. Writes need the developer role (the
// fake's routes check it) and the `api` scope.
import { HostError, found, ok, type Reply } from './git-host-kernel.js';
import type { GitRepository } from './git-repository.js';

export const GITLAB_DEPLOYMENT_STATUSES = ['created', 'running', 'success', 'failed', 'canceled', 'blocked'] as const;
export type GitLabDeploymentStatus = (typeof GITLAB_DEPLOYMENT_STATUSES)[number];
const SETTABLE: readonly string[] = ['running', 'success', 'failed', 'canceled'];

export interface FakeGitLabDeployment {
  id: number;
  /** Per project, as GitLab numbers them. */
  iid: number;
  environment: string;
  sha: string;
  ref: string;
  tag: boolean;
  status: GitLabDeploymentStatus;
  /** Every status it was given, oldest first. */
  history: GitLabDeploymentStatus[];
  user: string;
  createdAt: string;
  updatedAt: string;
}

type Project = Pick<GitRepository, 'resolveCommit'> & { path: string; id: number };

interface DeploymentRouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown>;
  project: Project;
  user: { username: string; name: string };
}

type AddRoute = (route: string, handle: (context: DeploymentRouteContext) => Reply) => void;

const missing = (field: string) => new HostError(400, { error: `${field} is missing` });
const invalid = (field: string) => new HostError(400, { error: `${field} does not have a valid value` });

export class FakeGitLabDeployments {
  private readonly byProject = new WeakMap<Project, FakeGitLabDeployment[]>();
  private nextId = 1;

  /** A project's deployments, oldest first. */
  of(project: Project): FakeGitLabDeployment[] {
    let list = this.byProject.get(project);
    if (!list) this.byProject.set(project, (list = []));
    return list;
  }

  defineRoutes(route: AddRoute): void {
    route('POST /projects/:id/deployments', ({ project, body, user }) => {
      const value = (field: string) => {
        const given = body[field];
        if (given === undefined || given === null || given === '') throw missing(field);
        return given;
      };
      const words = (['environment', 'sha', 'ref'] as const).map((field) => {
        const given = value(field);
        if (typeof given !== 'string') throw invalid(field);
        return given;
      });
      const [environment = '', sha = '', ref = ''] = words;
      const tag = value('tag');
      if (typeof tag !== 'boolean' && tag !== 'true' && tag !== 'false') throw invalid('tag');
      const status = body.status ?? 'running';
      if (typeof status !== 'string' || !SETTABLE.includes(status)) throw invalid('status');
      if (project.resolveCommit(sha) !== sha) throw new HostError(400, { message: 'Invalid SHA' });
      const list = this.of(project);
      const now = new Date().toISOString();
      const deployment: FakeGitLabDeployment = {
        id: this.nextId++,
        iid: list.length + 1,
        environment,
        sha,
        ref,
        tag: tag === true || tag === 'true',
        status: status as GitLabDeploymentStatus,
        history: [status as GitLabDeploymentStatus],
        user: user.username,
        createdAt: now,
        updatedAt: now,
      };
      list.push(deployment);
      return { status: 201, body: this.json(deployment, user) };
    });
    route('GET /projects/:id/deployments', ({ project, query, user }) => {
      if (query.status !== undefined && !(GITLAB_DEPLOYMENT_STATUSES as readonly string[]).includes(query.status)) {
        throw invalid('status');
      }
      const listed = this.of(project).filter(
        (deployment) =>
          (query.environment === undefined || deployment.environment === query.environment) &&
          (query.status === undefined || deployment.status === query.status),
      );
      if (query.sort === 'desc') listed.reverse();
      return ok(listed.slice(0, Math.min(Number(query.per_page ?? 20) || 20, 100)).map((d) => this.json(d, user)));
    });
    const findDeployment = (project: Project, id: string | undefined) =>
      found(
        this.of(project).find((deployment) => String(deployment.id) === id),
        () => new HostError(404, { message: '404 Not found' }),
      );
    route('GET /projects/:id/deployments/:deployment_id', ({ project, params, user }) =>
      ok(this.json(findDeployment(project, params.deployment_id), user)),
    );
    route('PUT /projects/:id/deployments/:deployment_id', ({ project, params, body, user }) => {
      const deployment = findDeployment(project, params.deployment_id);
      const status = body.status;
      if (status === undefined) throw missing('status');
      if (typeof status !== 'string' || !SETTABLE.includes(status)) throw invalid('status');
      deployment.status = status as GitLabDeploymentStatus;
      deployment.history.push(deployment.status);
      deployment.updatedAt = new Date().toISOString();
      return ok(this.json(deployment, user));
    });
  }

  private json(deployment: FakeGitLabDeployment, user: { username: string; name: string }): Record<string, unknown> {
    return {
      id: deployment.id,
      iid: deployment.iid,
      ref: deployment.ref,
      sha: deployment.sha,
      status: deployment.status,
      created_at: deployment.createdAt,
      updated_at: deployment.updatedAt,
      user: { username: deployment.user, name: user.name },
      environment: { name: deployment.environment },
      deployable: null,
    };
  }
}
