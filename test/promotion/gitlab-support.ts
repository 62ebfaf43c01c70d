// The GitLab host for the shared pull-request suite (pull-request-hosts.test.ts) and the GitLab tests: a fake GitLab
// with a fleet project in a subgroup, and the adapter configured against it with fast retries.
import { gitLabHost } from '../../lib/promotion/gitlab/index.js';
import type { GitHostSettings } from '../../lib/promotion/pull-request/host.js';
import { FakeGitLab, type FakeGitLabOptions } from '../../lib/testing/fake-gitlab.js';
import { writesIn, type FakeHostUnderTest, type HostPullRequest } from './git-host-under-test.js';

/** A project in a subgroup, as Weave's GitLab pipelines named theirs: `https://gitlab.com/<group>/<project>`. */
export const PROJECT_PATH = 'acme/platform/fleet';
export const WEB_HOST = 'gitlab.example.com';
export const PROJECT_URL = `https://${WEB_HOST}/${PROJECT_PATH}`;

/** Millisecond backoff and waits, so faults cost no time. */
export const FAST: GitHostSettings = {
  retries: 3,
  retryBaseDelayMs: 1,
  retryAfterUnitMs: 10,
  requestTimeoutMs: 5000,
};

export async function startGitLabUnderTest(options: FakeGitLabOptions = {}): Promise<FakeHostUnderTest> {
  const fake = await FakeGitLab.start({ webHost: WEB_HOST, ...options });
  const pullRequests = (): HostPullRequest[] =>
    fake.mergeRequests(PROJECT_PATH).map((mr) => ({
      title: mr.title,
      body: mr.description,
      state: mr.state === 'opened' ? 'open' : mr.state,
      source: mr.sourceBranch,
      target: mr.targetBranch,
      url: mr.webUrl,
    }));
  return {
    type: 'gitlab',
    apiUrl: fake.url,
    repositoryUrl: `${PROJECT_URL}.git`,
    secretValues: { token: fake.token },
    host: (settings = {}) => gitLabHost({ ...FAST, ...settings }),
    createRepository: (files) => {
      fake.createRepository(PROJECT_PATH, files);
    },
    commitFiles: (branch, files, author) => {
      fake.commitFiles(PROJECT_PATH, branch, files, undefined, { author });
    },
    files: (branch) => fake.files(PROJECT_PATH, branch),
    branchHead: (branch) => fake.ref(PROJECT_PATH, branch),
    commitsAhead: (branch) => fake.commitsAhead(PROJECT_PATH, branch),
    pullRequests,
    merge: (url) => {
      const mr = fake.mergeRequests(PROJECT_PATH).find((candidate) => candidate.webUrl === url);
      if (!mr) throw new Error(`no merge request ${url}`);
      fake.merge(PROJECT_PATH, mr.iid);
    },
    close: (url) => {
      const mr = fake.mergeRequests(PROJECT_PATH).find((candidate) => candidate.webUrl === url);
      if (!mr) throw new Error(`no merge request ${url}`);
      fake.closeMergeRequest(PROJECT_PATH, mr.iid);
    },
    failNext: (status, times = 1) => fake.failNext(status, { times }),
    echoCredentialsNext: (status, times = 1) => fake.echoCredentialsNext(status, { times }),
    rateLimitNext: (resetInSeconds) => fake.rateLimitNext({ resetInSeconds }),
    redirectNext: (origin, status) => fake.redirectNext(origin, { status }),
    requestCount: () => fake.count(),
    writeCount: () => writesIn(fake.requests),
    resetRequests: () => fake.resetRequests(),
    stop: () => fake.stop(),
  };
}
