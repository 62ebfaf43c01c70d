// What the pull-request suites over every Git host share (pull-request-hosts.test.ts, pull-request-bodies.test.ts):
// the hosts, a fleet repository marked for `foo:bar:prod`, and a promoter over one host's fake.
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import type { Promoter, PromotionEvidence } from '../../lib/promotion/index.js';
import type { GitHostSettings } from '../../lib/promotion/pull-request/host.js';
import { PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { startAzureDevOpsUnderTest } from './azure-devops-support.js';
import { startBitbucketServerUnderTest } from './bitbucket-server-support.js';
import type { FakeHostUnderTest } from './git-host-under-test.js';
import { prRequest, startGitHubUnderTest } from './github-support.js';
import { startGitLabUnderTest } from './gitlab-support.js';

export const HOSTS: [GitProviderType, () => Promise<FakeHostUnderTest>][] = [
  ['github', startGitHubUnderTest],
  ['gitlab', startGitLabUnderTest],
  ['bitbucket-server', startBitbucketServerUnderTest],
  ['azure-devops', startAzureDevOpsUnderTest],
];

export const SECRET = { namespace: 'foo', name: 'git-credentials' };
export const BRANCH = 'promotion-foo-bar-prod';
export const MARKER = '{"$promotion": "foo:bar:prod"}';

/** Marker forms a fleet repository holds, each for `foo:bar:prod` (lib/promotion/markers.ts). */
export const MARKED_FILES: Record<string, string> = {
  'apps/prod/helmrelease.yaml': `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod
spec:
  chart:
    spec:
      chart: podinfo
      version: "6.9.1" # ${MARKER}
      sourceRef:
        kind: HelmRepository
        name: podinfo
  values:
    replicaCount: 2 # not a marker
`,
  'apps/prod/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: podinfo
spec:
  template:
    spec:
      containers:
        - name: podinfo
          # ${MARKER}
          image: ghcr.io/stefanprodan/podinfo:6.9.1
`,
  'apps/prod/values.yml': `image:\r\n  tag: '6.9.1' # ${MARKER}\r\n  pullPolicy: IfNotPresent\r\n`,
  'apps/prod/notes.yaml': `# Überblick: café ☕ (UTF-8 stays byte-exact)\nrelease:\n  version: 6.9.1 # ${MARKER}\n`,
  'apps/staging/helmrelease.yaml': `version: 6.9.1 # {"$promotion": "foo:bar:staging"}\n`,
  'apps/prod/kustomization.yaml': 'resources:\n  - helmrelease.yaml\n  - deployment.yaml\n',
  'README.md': `# fleet\nThe ${MARKER} markers live in the manifests; this file is not YAML.\n`,
};

export interface Subject {
  fake: FakeHostUnderTest;
  secrets: StaticSecretSource;
  promoter(settings?: GitHostSettings): PullRequestPromoter;
  promote(revision: string, promoter?: Promoter): Promise<string>;
  /** A promotion whose request carries this evidence. */
  promoteWith(revision: string, evidence: PromotionEvidence | undefined): Promise<string>;
  /** The rollback of prod from the failed `from` to `revision`. */
  rollBack(from: string, revision: string, evidence?: PromotionEvidence): Promise<string>;
}

export function subjectOf(fake: FakeHostUnderTest): Subject {
  const secrets = new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]);
  const promoter = (settings: GitHostSettings = {}) =>
    new PullRequestPromoter({ secrets, hosts: [fake.host(settings)], apiUrls: { [fake.type]: fake.apiUrl } });
  const request = (revision: string) =>
    prRequest({ revision, type: fake.type, url: fake.repositoryUrl, secretName: SECRET.name });
  return {
    fake,
    secrets,
    promoter,
    promote: async (revision, using = promoter()) => (await using.promote(request(revision))).result ?? '',
    promoteWith: async (revision, evidence) =>
      (await promoter().promote({ ...request(revision), ...(evidence ? { evidence } : {}) })).result ?? '',
    rollBack: async (from, revision, evidence) =>
      (await promoter().promote({ ...request(revision), rollback: { from }, ...(evidence ? { evidence } : {}) }))
        .result ?? '',
  };
}
