// Shared set-up of the GitHub pull-request tests: a fake GitHub with a fleet repository, the credentials Secret, and
// promotion requests for the Pipeline `foo/bar` (Weave's test fixture names).
import { resolvePipeline } from '../../lib/pipeline/model.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import type { PromotionRequest } from '../../lib/promotion/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeGitHub, type FakeGitHubOptions } from '../../lib/testing/fake-github.js';
import {
  GitHubPullRequestPromoter,
  type GitHubPullRequestPromoterOptions,
} from '../../lib/testing/github-pull-request-promoter.js';
import { writesIn, type FakeHostUnderTest } from './git-host-under-test.js';

export const OWNER = 'acme';
export const REPO = 'fleet';
export const REPO_URL = `https://github.com/${OWNER}/${REPO}`;
export const SECRET = { namespace: 'foo', name: 'github-credentials' };
export const BRANCH = 'promotion-foo-bar-prod';
export const PROD_FILE = 'apps/prod/podinfo.yaml';

/** Weave's integration-test manifest: the prod HelmRelease marked for `foo:bar:prod`. */
export const HELMRELEASE_PROD = `apiVersion: helm.toolkit.fluxcd.io/v2beta1
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  interval: 5m
  chart:
    spec:
      chart: podinfo
      version: "5.0.0" # {"$promotion": "foo:bar:prod"}
      sourceRef:
        kind: HelmRepository
        name: podinfo
        namespace: flux-system
  values:
    replicaCount: 2 # not a marker
`;

export const FLEET_FILES: Record<string, string> = {
  'README.md': '# fleet\n\nThe "$promotion" markers live in the manifests.\n',
  [PROD_FILE]: HELMRELEASE_PROD,
  'apps/dev/podinfo.yaml': HELMRELEASE_PROD.replace('foo:bar:prod', 'foo:bar:dev').replace(
    'namespace: prod',
    'namespace: dev',
  ),
  'apps/prod/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - podinfo.yaml\n',
  'apps/prod/values.yml': 'image:\n  tag: 1.2.3\n',
  'clusters/prod/flux-system/gotk-sync.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n',
  'scripts/release.sh': '#!/bin/sh\necho release\n',
};

export interface RequestOptions {
  revision: string;
  attempt?: number;
  namespace?: string;
  name?: string;
  env?: string;
  type?: GitProviderType;
  url?: string;
  baseBranch?: string;
  secretName?: string;
}

/** A promotion of `foo/bar` into `prod` through a pull request on acme/fleet (main). */
export function prRequest(options: RequestOptions): PromotionRequest {
  const env = options.env ?? 'prod';
  const pipeline = resolvePipeline(
    {
      apiVersion: 'pipelines.weave.works/v1alpha1',
      kind: 'Pipeline',
      metadata: { name: options.name ?? 'bar', namespace: options.namespace ?? 'foo' },
      spec: {
        appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
        environments: [
          { name: 'dev', targets: [{ namespace: 'dev', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
          { name: env, targets: [{ namespace: env, clusterRef: { kind: 'GitopsCluster', name: env } }] },
        ],
        promotion: {
          strategy: {
            'pull-request': {
              type: options.type ?? 'github',
              url: options.url ?? REPO_URL,
              baseBranch: options.baseBranch ?? 'main',
              secretRef: { name: options.secretName ?? SECRET.name },
            },
          },
        },
      },
    },
    undefined,
  );
  const target = pipeline.environments[1];
  if (!target) throw new Error('no target environment');
  return { pipeline, env: target, revision: options.revision, attempt: options.attempt ?? 1 };
}

/** Fast settings: no waits between writes, millisecond backoff. */
export const FAST: Partial<GitHubPullRequestPromoterOptions> = {
  retries: 2,
  retryBaseDelayMs: 1,
  retryAfterUnitMs: 1,
  secondaryRateLimitRetries: 2,
  writeIntervalMs: 0,
  requestTimeoutMs: 5000,
};

export interface GitHubFixture {
  fake: FakeGitHub;
  secrets: StaticSecretSource;
  /** The commit of main after the repository was created. */
  mainSha: string;
  promoter(options?: Partial<GitHubPullRequestPromoterOptions>): GitHubPullRequestPromoter;
  stop(): Promise<void>;
}

export async function startFixture(
  files: Record<string, string> = FLEET_FILES,
  options: FakeGitHubOptions = {},
): Promise<GitHubFixture> {
  const fake = await FakeGitHub.start(options);
  const mainSha = fake.createRepository(OWNER, REPO, files, { defaultBranch: 'main' });
  const secrets = new StaticSecretSource([{ key: SECRET, values: { token: fake.token } }]);
  return {
    fake,
    secrets,
    mainSha,
    promoter: (options = {}) => new GitHubPullRequestPromoter({ secrets, apiUrl: fake.url, ...FAST, ...options }),
    stop: () => fake.stop(),
  };
}

/** GitHub as the shared pull-request suite drives every host (git-host-under-test.ts). */
export async function startGitHubUnderTest(): Promise<FakeHostUnderTest> {
  const fake = await FakeGitHub.start();
  const commitsOf = (branch: string) => {
    const head = fake.ref(OWNER, REPO, branch);
    const main = fake.ref(OWNER, REPO, 'main');
    let count = 0;
    for (let sha = head; sha && sha !== main; sha = fake.commit(OWNER, REPO, sha)?.parents[0]) count++;
    return count;
  };
  return {
    type: 'github',
    apiUrl: fake.url,
    repositoryUrl: REPO_URL,
    secretValues: { token: fake.token },
    host: (settings = {}) =>
      gitHubHost({
        retries: 2,
        retryBaseDelayMs: 1,
        retryAfterUnitMs: 1,
        writeIntervalMs: 0,
        requestTimeoutMs: 5000,
        ...settings,
      }),
    createRepository: (files) => void fake.createRepository(OWNER, REPO, files, { defaultBranch: 'main' }),
    commitFiles: (branch, files, author) => void fake.commitFiles(OWNER, REPO, branch, files, undefined, { author }),
    files: (branch) => fake.files(OWNER, REPO, branch),
    branchHead: (branch) => fake.ref(OWNER, REPO, branch),
    commitsAhead: commitsOf,
    pullRequests: () =>
      fake.pulls(OWNER, REPO).map((pull) => ({
        title: pull.title,
        body: pull.body,
        state: pull.merged ? 'merged' : pull.state,
        source: pull.head,
        target: pull.base,
        url: pull.htmlUrl,
      })),
    merge: (url) => {
      const pull = fake.pulls(OWNER, REPO).find((candidate) => candidate.htmlUrl === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.merge(OWNER, REPO, pull.number);
    },
    close: (url) => {
      const pull = fake.pulls(OWNER, REPO).find((candidate) => candidate.htmlUrl === url);
      if (!pull) throw new Error(`no pull request ${url}`);
      fake.closePull(OWNER, REPO, pull.number);
    },
    failNext: (status, times = 1) => fake.failNext(status, { times }),
    echoCredentialsNext: (status, times = 1) => fake.echoCredentialsNext(status, { times }),
    rateLimitNext: (resetInSeconds) => fake.primaryRateLimitNext({ status: 403, resetInSeconds }),
    redirectNext: (origin, status) => fake.redirectNext(origin, { status }),
    requestCount: () => fake.requests.length,
    writeCount: () => writesIn(fake.requests),
    resetRequests: () => fake.resetRequests(),
    stop: () => fake.stop(),
  };
}
