// The demo's fleet repository as its simulated actors see it, whichever Git host simulates it: CI commits releases
// to it, Flux reads the manifests from it, the reviewers' bot merges the promotion pull (or merge) requests on it,
// and the view lists them. The controller itself never uses this: it talks to the host's fake REST API at `apiUrl`
// with `token`, as it would to the real host. Implementations: github-fleet-repository.ts, gitlab-fleet-repository.ts.

import type { CommitIdentity } from '../testing/git-host-kernel.js';

/** The Git hosts the demo can simulate. */
export type FleetHostType = 'github' | 'gitlab';

/** Each host's name for people (the banner, the activity list, error messages). */
export const FLEET_HOST_NAMES: Readonly<Record<FleetHostType, string>> = { github: 'GitHub', gitlab: 'GitLab' };

/** A pull request (GitHub) or merge request (GitLab), as the demo shows it. */
export interface FleetPullRequest {
  /** The number people see: `#12` on GitHub, `!12` on GitLab (the merge request's iid). */
  id: number;
  title: string;
  state: 'open' | 'merged' | 'closed';
  /** The branch it merges from, e.g. `promotion-flux-system-podinfo-staging`. */
  sourceBranch: string;
  /** Its web page on the simulated host. */
  url: string;
}

export interface FleetRepository {
  readonly type: FleetHostType;
  /** The host's name for people: FLEET_HOST_NAMES[type]. */
  readonly hostName: string;
  /** What the host calls a pull request: `pull request`, `merge request`. */
  readonly pullRequestWord: string;
  /** The repository as the host names it: `acme/fleet`, `group/sub/project`. */
  readonly path: string;
  /** The fake host's API base, which the local mode uses instead of the one the configuration's URL implies. */
  readonly apiUrl: string;
  /** A token the fake host accepts, for the configuration's token Secrets. */
  readonly token: string;

  /** How people refer to a pull request: `#12`, `!12`. */
  reference(id: number): string;
  /** One file on a branch as text, or undefined when it or the branch does not exist. */
  readFile(branch: string, file: string): string | undefined;
  /** Every file on a branch, by path, as text. */
  files(branch: string): Record<string, string>;
  /**
   * Commits these contents in one commit onto the branch (made from the default branch if missing), authored by
   * `author` (a person pushing) or else by the fake host's own user; its id.
   */
  commitFiles(branch: string, files: Record<string, string>, message: string, author?: CommitIdentity): string;
  /** The pull requests, oldest first. */
  pullRequests(): FleetPullRequest[];
  /** Merges an open pull request as a reviewer would; returns the target branch's new commit. */
  merge(id: number): string;
  /** Stops the fake host. */
  stop(): Promise<void>;
}
