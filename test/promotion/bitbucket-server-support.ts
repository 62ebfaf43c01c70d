// The Bitbucket Server host for the shared pull-request suite (pull-request-hosts.test.ts), the benchmarks and the
// Bitbucket Server tests: a fake Bitbucket Data Center with a fleet repository in a project, and the adapter configured
// against it with fast retries.
import { bitbucketServerHost } from '../../lib/promotion/bitbucket-server/index.js';
import type { GitHostSettings } from '../../lib/promotion/pull-request/host.js';
import { FakeBitbucketServer, type FakeBitbucketServerOptions } from '../../lib/testing/fake-bitbucket-server.js';
import { writesIn, type FakeHostUnderTest, type HostPullRequest } from './git-host-under-test.js';

export const PROJECT_KEY = 'ACME';
export const REPOSITORY_SLUG = 'fleet';
export const WEB_BASE_URL = 'https://bitbucket.example.com';
/** The clone URL Bitbucket shows, as a user copies it into `pull-request.url`. */
export const REPOSITORY_URL = `${WEB_BASE_URL}/scm/acme/${REPOSITORY_SLUG}.git`;

/** Millisecond backoff and waits, so faults cost no time. */
export const FAST: GitHostSettings = {
  retries: 3,
  retryBaseDelayMs: 1,
  retryAfterUnitMs: 10,
  requestTimeoutMs: 5000,
};

/** The shared suite's view of a fake Bitbucket Server, with the fake itself for Bitbucket's own tests. */
export interface BitbucketServerUnderTest extends FakeHostUnderTest {
  server: FakeBitbucketServer;
}

export async function startBitbucketServerUnderTest(
  options: FakeBitbucketServerOptions = {},
): Promise<BitbucketServerUnderTest> {
  const fake = await FakeBitbucketServer.start({ webBaseUrl: WEB_BASE_URL, ...options });
  const pullRequests = (): HostPullRequest[] =>
    fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).map((pull) => ({
      title: pull.title,
      body: pull.description,
      state: pull.state === 'OPEN' ? 'open' : pull.state === 'MERGED' ? 'merged' : 'closed',
      source: pull.fromBranch,
      target: pull.toBranch,
      url: pull.url,
    }));
  return {
    server: fake,
    type: 'bitbucket-server',
    apiUrl: fake.url,
    repositoryUrl: REPOSITORY_URL,
    secretValues: { token: fake.token },
    host: (settings = {}) => bitbucketServerHost({ ...FAST, ...settings }),
    createRepository: (files) => {
      fake.createRepository(PROJECT_KEY, REPOSITORY_SLUG, files);
    },
    commitFiles: (branch, files, author) => {
      fake.commitFiles(PROJECT_KEY, REPOSITORY_SLUG, branch, files, undefined, { author });
    },
    files: (branch) => fake.files(PROJECT_KEY, REPOSITORY_SLUG, branch),
    branchHead: (branch) => fake.ref(PROJECT_KEY, REPOSITORY_SLUG, branch),
    commitsAhead: (branch) => fake.commitsAhead(PROJECT_KEY, REPOSITORY_SLUG, branch, 'main'),
    pullRequests,
    merge: (url) => {
      const pull = fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).find((candidate) => candidate.url === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.merge(PROJECT_KEY, REPOSITORY_SLUG, pull.id);
    },
    close: (url) => {
      const pull = fake.pullRequests(PROJECT_KEY, REPOSITORY_SLUG).find((candidate) => candidate.url === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.decline(PROJECT_KEY, REPOSITORY_SLUG, pull.id);
    },
    failNext: (status, times = 1) => fake.failNext(status, { times }),
    echoCredentialsNext: (status, times = 1) => fake.echoCredentialsNext(status, { times }),
    rateLimitNext: (resetInSeconds) => fake.rateLimitNext({ retryAfterSeconds: resetInSeconds }),
    redirectNext: (origin, status) => fake.redirectNext(origin, { status }),
    requestCount: () => fake.count(),
    writeCount: () => writesIn(fake.requests),
    resetRequests: () => fake.resetRequests(),
    stop: () => fake.stop(),
  };
}
