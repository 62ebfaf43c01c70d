// The demo's fleet repository on a simulated GitLab (lib/testing/fake-gitlab.ts): a project addressed by its full
// path (subgroups included), merge requests `!iid`.
import type { GitLabAddress } from '../pipeline/repository-address.js';
import { FakeGitLab, type FakeMergeRequest } from '../testing/fake-gitlab.js';
import type { CommitIdentity } from '../testing/git-host-kernel.js';
import { FLEET_HOST_NAMES, type FleetPullRequest, type FleetRepository } from './fleet-repository.js';

export class GitLabFleetRepository implements FleetRepository {
  readonly type = 'gitlab';
  readonly hostName = FLEET_HOST_NAMES.gitlab;
  readonly pullRequestWord = 'merge request';

  constructor(
    private readonly gitlab: FakeGitLab,
    /** The project's full path, e.g. `acme/fleet`. */
    readonly path: string,
  ) {}

  /** Starts a fake GitLab holding the project the address names, with `files` in one commit on `main`. */
  static async start(
    address: GitLabAddress,
    files: Record<string, string>,
    message: string,
  ): Promise<GitLabFleetRepository> {
    // Its merge requests' links open its own page of each, marked as simulated: on the real host they do not exist.
    const gitlab = await FakeGitLab.start({ webHost: address.host, webPages: true });
    try {
      gitlab.createRepository(address.projectPath, files, { message });
    } catch (error) {
      await gitlab.stop();
      throw error;
    }
    return new GitLabFleetRepository(gitlab, address.projectPath);
  }

  get apiUrl(): string {
    return this.gitlab.url;
  }

  get token(): string {
    return this.gitlab.token;
  }

  reference(id: number): string {
    return `!${id}`;
  }

  readFile(branch: string, file: string): string | undefined {
    return this.files(branch)[file];
  }

  files(branch: string): Record<string, string> {
    // The fake answers a missing ref with an error; for the demo's actors a missing branch simply holds nothing.
    if (this.gitlab.ref(this.path, branch) === undefined) return {};
    return this.gitlab.files(this.path, branch);
  }

  commitFiles(branch: string, files: Record<string, string>, message: string, author?: CommitIdentity): string {
    return this.gitlab.commitFiles(this.path, branch, files, message, { author });
  }

  pullRequests(): FleetPullRequest[] {
    return this.gitlab.mergeRequests(this.path).map(fleetPullRequest);
  }

  merge(id: number): string {
    return this.gitlab.merge(this.path, id);
  }

  stop(): Promise<void> {
    return this.gitlab.stop();
  }
}

function fleetPullRequest(mr: FakeMergeRequest): FleetPullRequest {
  return {
    id: mr.iid,
    title: mr.title,
    state: mr.state === 'opened' ? 'open' : mr.state,
    sourceBranch: mr.sourceBranch,
    url: mr.webUrl,
  };
}
