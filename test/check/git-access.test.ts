// What each Git host's adapter says the credentials may do (HostRepository.access, what the `git-permissions` row rests
// on), against each host's fake answering as the host does: writable credentials, read-only ones, credentials the
// host rejects (the error names the Secret, never the value), and the hosts or credentials that do not tell.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { repositoryAddress } from '../../lib/pipeline/repository-address.js';
import { azureDevOpsHost } from '../../lib/promotion/azure-devops/index.js';
import { bitbucketServerHost } from '../../lib/promotion/bitbucket-server/index.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import { gitLabHost } from '../../lib/promotion/gitlab/index.js';
import type { GitHost, RepositoryAccess } from '../../lib/promotion/pull-request/host.js';
import { FakeAzureDevOps } from '../../lib/testing/fake-azure-devops.js';
import { FakeBitbucketServer } from '../../lib/testing/fake-bitbucket-server.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeGitLab } from '../../lib/testing/fake-gitlab.js';

const SECRET: ObjectKey = { namespace: 'flux-system', name: 'git-credentials' };
const FILES = { 'apps/prod/podinfo.yaml': 'version: "1.0.0" # {"$promotion": "flux-system:podinfo:prod"}\n' };
const FAST = { retries: 0, requestTimeoutMs: 5000 };

/** One host: its fake with a repository, the adapter, and credentials of each kind the host has. */
interface HostUnderTest {
  type: GitProviderType;
  url: string;
  apiUrl: string;
  host: GitHost;
  /** Credentials, and what access() answers for them. */
  credentials: { name: string; values: Record<string, string>; canPush: boolean | undefined; detail: RegExp }[];
  /** Credentials the host refuses, and how the error names the Secret. */
  rejected: { values: Record<string, string>; message: RegExp };
  stop(): Promise<void>;
}

async function gitHub(): Promise<HostUnderTest> {
  const fake = await FakeGitHub.start();
  fake.createRepository('acme', 'fleet', FILES);
  fake.addToken('ghp_read_only', { readOnly: true });
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  fake.registerApp({ appId: 123, publicKey, installationIds: [456] });
  return {
    type: 'github',
    url: 'https://github.com/acme/fleet',
    apiUrl: fake.url,
    host: gitHubHost(FAST),
    credentials: [
      { name: 'a token with push', values: { token: fake.token }, canPush: true, detail: /^GitHub permissions: push$/ },
      {
        name: 'a read-only token',
        values: { token: 'ghp_read_only' },
        canPush: false,
        detail: /^GitHub permissions: read only \(push is false\)$/,
      },
      {
        name: 'a GitHub App installation (its permissions are not told per repository)',
        values: { githubAppID: '123', githubAppInstallationID: '456', githubAppPrivateKey: privateKey },
        canPush: undefined,
        detail: /^GitHub reports no permissions for these credentials \(a GitHub App installation: it needs Contents/,
      },
    ],
    rejected: {
      values: { token: 'ghp_unknown' },
      message: /401 Bad credentials: GitHub rejected the credentials of Secret flux-system\/git-credentials$/,
    },
    stop: () => fake.stop(),
  };
}

async function gitLab(): Promise<HostUnderTest> {
  const fake = await FakeGitLab.start({ webHost: 'gitlab.example.com' });
  fake.createRepository('acme/platform/fleet', FILES);
  fake.addToken('glpat-reporter', { role: 'reporter' });
  fake.addToken('glpat-read-api', { scopes: ['read_api'] });
  return {
    type: 'gitlab',
    url: 'https://gitlab.example.com/acme/platform/fleet',
    apiUrl: fake.url,
    host: gitLabHost(FAST),
    credentials: [
      {
        name: 'a Developer token with the api scope',
        values: { token: fake.token },
        canPush: true,
        detail: /^GitLab role Developer \(access level 30\)$/,
      },
      {
        name: 'a Reporter token',
        values: { token: 'glpat-reporter' },
        canPush: false,
        detail:
          /^GitLab role Reporter \(access level 20\): pushing a branch and opening a merge request needs Developer/,
      },
      {
        name: 'a Developer token with only read_api',
        values: { token: 'glpat-read-api' },
        canPush: false,
        detail: /^the token's scopes are read_api: writing through the API needs the api scope$/,
      },
    ],
    rejected: { values: { token: 'glpat-unknown' }, message: /401.*Secret flux-system\/git-credentials/ },
    stop: () => fake.stop(),
  };
}

async function bitbucketServer(): Promise<HostUnderTest> {
  const fake = await FakeBitbucketServer.start({ webBaseUrl: 'https://bitbucket.example.com' });
  fake.createRepository('ACME', 'fleet', FILES);
  // Another repository whose name contains this one's: the search must find this one among both.
  fake.createRepository('OTHER', 'fleet-archive', FILES);
  fake.addToken('read-only-token', { permission: 'REPO_READ' });
  return {
    type: 'bitbucket-server',
    url: 'https://bitbucket.example.com/scm/acme/fleet.git',
    apiUrl: fake.url,
    host: bitbucketServerHost(FAST),
    credentials: [
      {
        name: 'a token with REPO_WRITE',
        values: { token: fake.token },
        canPush: true,
        detail: /^Bitbucket grants REPO_WRITE$/,
      },
      {
        name: 'a read-only token',
        values: { token: 'read-only-token' },
        canPush: false,
        detail: /^Bitbucket grants read only: REPO_WRITE is needed/,
      },
    ],
    rejected: { values: { token: 'BBDC-unknown' }, message: /401.*Secret flux-system\/git-credentials/ },
    stop: () => fake.stop(),
  };
}

async function azureDevOps(): Promise<HostUnderTest> {
  const fake = await FakeAzureDevOps.start({ collection: 'acme', webHost: 'dev.azure.com' });
  fake.createRepository('Platform Team', 'fleet', FILES);
  return {
    type: 'azure-devops',
    url: 'https://dev.azure.com/acme/Platform%20Team/_git/fleet',
    apiUrl: fake.url,
    host: azureDevOpsHost(FAST),
    credentials: [
      {
        name: 'a token (Azure does not tell its write access)',
        values: { token: fake.token },
        canPush: undefined,
        detail:
          /^Azure DevOps does not tell a token's write access through the Git API: it needs the scope Code \(Read & write\)/,
      },
    ],
    rejected: { values: { token: 'not-a-pat' }, message: /401.*Secret flux-system\/git-credentials/ },
    stop: () => fake.stop(),
  };
}

for (const start of [gitHub, gitLab, bitbucketServer, azureDevOps]) {
  describe(`access() on ${start.name}`, () => {
    let subject: HostUnderTest;
    before(async () => {
      subject = await start();
    });
    after(() => subject.stop());

    const open = (values: Record<string, string>) => {
      const located = repositoryAddress(subject.type, subject.url);
      assert.ok(located.ok);
      return subject.host.open(located.address, subject.apiUrl, SECRET, values);
    };

    it('answers for each kind of credentials as the host tells it', async () => {
      for (const { name, values, canPush, detail } of subject.credentials) {
        const access: RepositoryAccess = await open(values).access();
        assert.equal(access.canPush, canPush, name);
        assert.match(access.detail, detail, name);
      }
    });

    it('credentials the host rejects: an error that names the Secret and shows no value', async () => {
      const error = await open(subject.rejected.values)
        .access()
        .then(
          () => assert.fail('access() should have failed'),
          (failure: unknown) => subject.host.toPromotionError(failure, SECRET),
        );
      assert.match(error.message, subject.rejected.message);
      for (const value of Object.values(subject.rejected.values)) assert.ok(!error.message.includes(value));
    });
  });
}
