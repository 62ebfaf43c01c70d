// The Azure DevOps host for the shared pull-request suite (pull-request-hosts.test.ts) and the Azure DevOps tests: a
// fake Azure DevOps Services collection with a fleet repository in a project, and the adapter configured against it
// with fast retries.
import { azureDevOpsHost } from '../../lib/promotion/azure-devops/index.js';
import type { GitHostSettings } from '../../lib/promotion/pull-request/host.js';
import { FakeAzureDevOps, type FakeAzureDevOpsOptions } from '../../lib/testing/fake-azure-devops.js';
import { writesIn, type FakeHostUnderTest, type HostPullRequest } from './git-host-under-test.js';

export const ORGANIZATION = 'acme';
/** A project name with a space, as Azure DevOps projects often have: it travels encoded in every URL. */
export const PROJECT = 'Platform Team';
export const REPOSITORY = 'fleet';
export const WEB_HOST = 'dev.azure.com';
export const REPOSITORY_URL = `https://${WEB_HOST}/${ORGANIZATION}/${encodeURIComponent(PROJECT)}/_git/${REPOSITORY}`;

/** Millisecond backoff and waits, so faults cost no time. */
export const FAST: GitHostSettings = {
  retries: 3,
  retryBaseDelayMs: 1,
  retryAfterUnitMs: 10,
  requestTimeoutMs: 5000,
};

export async function startAzureDevOpsUnderTest(options: FakeAzureDevOpsOptions = {}): Promise<FakeHostUnderTest> {
  const fake = await FakeAzureDevOps.start({ collection: ORGANIZATION, webHost: WEB_HOST, ...options });
  const pullRequests = (): HostPullRequest[] =>
    fake.pullRequests(PROJECT, REPOSITORY).map((pull) => ({
      title: pull.title,
      body: pull.description,
      state: pull.status === 'active' ? 'open' : pull.status === 'completed' ? 'merged' : 'closed',
      source: pull.source,
      target: pull.target,
      url: pull.webUrl,
    }));
  return {
    type: 'azure-devops',
    apiUrl: fake.url,
    repositoryUrl: REPOSITORY_URL,
    secretValues: { token: fake.token },
    host: (settings = {}) => azureDevOpsHost({ ...FAST, ...settings }),
    createRepository: (files) => {
      fake.createRepository(PROJECT, REPOSITORY, files);
    },
    commitFiles: (branch, files, author) => {
      fake.commitFiles(PROJECT, REPOSITORY, branch, files, undefined, { author });
    },
    files: (branch) => fake.files(PROJECT, REPOSITORY, branch),
    branchHead: (branch) => fake.ref(PROJECT, REPOSITORY, branch),
    commitsAhead: (branch) => fake.commitsAhead(PROJECT, REPOSITORY, branch),
    pullRequests,
    merge: (url) => {
      const pull = fake.pullRequests(PROJECT, REPOSITORY).find((candidate) => candidate.webUrl === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.merge(PROJECT, REPOSITORY, pull.pullRequestId);
    },
    close: (url) => {
      const pull = fake.pullRequests(PROJECT, REPOSITORY).find((candidate) => candidate.webUrl === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.abandon(PROJECT, REPOSITORY, pull.pullRequestId);
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
