// What the shared pull-request suite (pull-request-hosts.test.ts) needs from each Git host's fake and adapter: one
// implementation per host in test/promotion/<host>-support.ts.
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import type { GitHost, GitHostSettings } from '../../lib/promotion/pull-request/host.js';
import type { CommitIdentity } from '../../lib/testing/git-host-kernel.js';

export interface HostPullRequest {
  title: string;
  body: string;
  state: 'open' | 'merged' | 'closed';
  /** The source branch. */
  source: string;
  /** The target branch. */
  target: string;
  url: string;
}

export interface FakeHostUnderTest {
  type: GitProviderType;
  /** The fake's API base (what `--<host>-api-url` would be set to). */
  apiUrl: string;
  /** The repository URL as a user writes it in `pull-request.url`. */
  repositoryUrl: string;
  /** Secret values that authenticate against the fake. */
  secretValues: Record<string, string>;
  /** The adapter, driving the fake (fast retries unless overridden). */
  host(settings?: GitHostSettings): GitHost;
  /** Creates the repository with these files on `main`, in one commit. */
  createRepository(files: Record<string, string>): void;
  /**
   * Commits file changes onto a branch (created from main when missing); null deletes. Authored by `author`, else by
   * the fake's own identity.
   */
  commitFiles(branch: string, files: Record<string, string | null>, author?: CommitIdentity): void;
  /** Every file's text at a branch's head. */
  files(branch: string): Record<string, string>;
  branchHead(branch: string): string | undefined;
  /** How many commits the branch has that main does not. */
  commitsAhead(branch: string): number;
  pullRequests(): HostPullRequest[];
  /** Merges an open pull request into its target (as a person would). */
  merge(url: string): void;
  /** Closes an open pull request without merging it (declined, abandoned). */
  close(url: string): void;
  /** The next `times` requests answer this error status. */
  failNext(status: number, times?: number): void;
  /** The next `times` requests answer this status with a message that repeats the credential they carried. */
  echoCredentialsNext(status: 401 | 500, times?: number): void;
  /** The next request is rate limited as the host signals it, lifting after `resetInSeconds`. */
  rateLimitNext(resetInSeconds: number): void;
  /** The next request is answered with this redirect to the same path and query on `origin`. */
  redirectNext(origin: string, status: 301 | 302 | 303 | 307 | 308): void;
  /** Requests received since the start (or the last reset). */
  requestCount(): number;
  /** Those of them that write (any method but GET, HEAD and OPTIONS). */
  writeCount(): number;
  resetRequests(): void;
  stop(): Promise<void>;
}

/** The requests that write: any method but GET, HEAD and OPTIONS. */
export function writesIn(requests: readonly { method: string }[]): number {
  return requests.filter((request) => !['GET', 'HEAD', 'OPTIONS'].includes(request.method)).length;
}
