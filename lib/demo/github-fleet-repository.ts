// The demo's fleet repository on a simulated GitHub (lib/testing/fake-github.ts): pull requests `#n`.
import type { GitHubAddress } from '../pipeline/repository-address.js';
import { FakeGitHub, type FakePullRequest } from '../testing/fake-github.js';
import type { CommitIdentity } from '../testing/git-host-kernel.js';
import { FLEET_HOST_NAMES, type FleetPullRequest, type FleetRepository } from './fleet-repository.js';

export class GitHubFleetRepository implements FleetRepository {
  readonly type = 'github';
  readonly hostName = FLEET_HOST_NAMES.github;
  readonly pullRequestWord = 'pull request';

  constructor(
    private readonly github: FakeGitHub,
    private readonly owner: string,
    private readonly name: string,
  ) {}

  /** Starts a fake GitHub holding the repository the address names, with `files` in one commit on `main`. */
  static async start(
    address: GitHubAddress,
    files: Record<string, string>,
    message: string,
  ): Promise<GitHubFleetRepository> {
    // Its pull requests' links open its own page of each, marked as simulated: on the real host they do not exist.
    const github = await FakeGitHub.start({ webHost: address.host, webPages: true });
    try {
      github.createRepository(address.owner, address.repo, files, { message });
    } catch (error) {
      await github.stop();
      throw error;
    }
    return new GitHubFleetRepository(github, address.owner, address.repo);
  }

  get path(): string {
    return `${this.owner}/${this.name}`;
  }

  get apiUrl(): string {
    return this.github.url;
  }

  get token(): string {
    return this.github.token;
  }

  reference(id: number): string {
    return `#${id}`;
  }

  readFile(branch: string, file: string): string | undefined {
    if (!this.hasBranch(branch)) return undefined;
    return this.github.readFile(this.owner, this.name, branch, file);
  }

  files(branch: string): Record<string, string> {
    if (!this.hasBranch(branch)) return {};
    return this.github.files(this.owner, this.name, branch);
  }

  commitFiles(branch: string, files: Record<string, string>, message: string, author?: CommitIdentity): string {
    return this.github.commitFiles(this.owner, this.name, branch, files, message, { author });
  }

  pullRequests(): FleetPullRequest[] {
    return this.github.pulls(this.owner, this.name).map(fleetPullRequest);
  }

  merge(id: number): string {
    return this.github.merge(this.owner, this.name, id);
  }

  stop(): Promise<void> {
    return this.github.stop();
  }

  /** The fake answers a missing ref with an error; for the demo's actors a missing branch simply holds nothing. */
  private hasBranch(branch: string): boolean {
    return this.github.ref(this.owner, this.name, `heads/${branch}`) !== undefined;
  }
}

function fleetPullRequest(pull: FakePullRequest): FleetPullRequest {
  return {
    id: pull.number,
    title: pull.title,
    state: pull.merged ? 'merged' : pull.state,
    sourceBranch: pull.head,
    url: pull.htmlUrl,
  };
}
