// A Git host whose adapter is loaded on the first promotion to it (lib/promotion/pull-request/deferred-host.ts): the
// adapter is loaded once, only when a repository is used; a Secret without credentials fails before anything is
// loaded; a client that cannot be loaded fails the promotion with an error that names the host. Each host's deferred
// factory is driven against its fake, through the runtime's promoter, in test/runtime/promoter.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { repositoryAddress } from '../../lib/pipeline/repository-address.js';
import { deferredAzureDevOpsHost } from '../../lib/promotion/azure-devops/deferred-host.js';
import { azureDevOpsHost } from '../../lib/promotion/azure-devops/index.js';
import { deferredBitbucketServerHost } from '../../lib/promotion/bitbucket-server/deferred-host.js';
import { bitbucketServerHost } from '../../lib/promotion/bitbucket-server/index.js';
import { deferredGitHubHost } from '../../lib/promotion/github/deferred-host.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import { deferredGitLabHost } from '../../lib/promotion/gitlab/deferred-host.js';
import { gitLabHost } from '../../lib/promotion/gitlab/index.js';
import { PromotionError } from '../../lib/promotion/index.js';
import { deferredGitHost, type DeferredGitHostOptions } from '../../lib/promotion/pull-request/deferred-host.js';
import type { GitHost } from '../../lib/promotion/pull-request/host.js';
import { PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { REPOSITORY_URL as AZURE_DEVOPS_URL } from './azure-devops-support.js';
import { REPOSITORY_URL as BITBUCKET_SERVER_URL } from './bitbucket-server-support.js';
import { prRequest, REPO_URL as GITHUB_URL } from './github-support.js';
import { startGitLabUnderTest } from './gitlab-support.js';

const SECRET = { namespace: 'foo', name: 'git' };
const GITLAB_URL = 'https://gitlab.example.com/acme/platform/fleet.git';
const TOKEN = 'glpat-the-token-value';

/** GitLab's deferred host over `adapter`, counting how often it is loaded. */
function countingHost(
  adapter: () => Promise<GitHost>,
  overrides: Partial<DeferredGitHostOptions> = {},
): { host: GitHost; loads: () => number } {
  let loads = 0;
  const host = deferredGitHost({
    type: 'gitlab',
    hostName: 'GitLab',
    neededKeys: 'the key "token"',
    checkCredentials: (values) => {
      if (!values.token) throw new PromotionError('Invalid', 'Secret foo/git has no GitLab credentials');
    },
    load: () => {
      loads++;
      return adapter();
    },
    ...overrides,
  });
  return { host, loads: () => loads };
}

function promoterOver(host: GitHost, apiUrl: string, values: Record<string, string> = { token: TOKEN }) {
  const secrets = new StaticSecretSource([{ key: SECRET, values }]);
  return new PullRequestPromoter({ secrets, hosts: [host], apiUrls: { gitlab: apiUrl } });
}

const request = (revision: string) => prRequest({ revision, type: 'gitlab', url: GITLAB_URL, secretName: SECRET.name });

async function rejection(promise: Promise<unknown>): Promise<PromotionError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PromotionError, `a PromotionError, not ${String(error)}`);
    return error;
  }
  assert.fail('the promotion succeeded');
}

describe('deferredGitHost', () => {
  it('loads the adapter on the first promotion, once for every later promotion, and promotes as the adapter does', async () => {
    const fake = await startGitLabUnderTest();
    try {
      fake.createRepository({ 'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n' });
      const { host, loads } = countingHost(() => Promise.resolve(fake.host()));
      const promoter = promoterOver(host, fake.apiUrl, fake.secretValues);
      assert.equal(loads(), 0, 'nothing is loaded before a promotion');

      // Two at once, then one more: one load between them.
      const [first, again] = await Promise.all([
        promoter.promote(request('6.9.2')),
        promoter.promote(request('6.9.2')),
      ]);
      const later = await promoter.promote(request('6.9.3'));

      assert.equal(loads(), 1);
      assert.equal(first.result, again.result);
      assert.match(later.result ?? '', /^https?:\/\//);
      assert.deepEqual(
        fake.pullRequests().map((pull) => [pull.title, pull.state]),
        [['Promote foo/bar in prod to 6.9.3', 'open']],
      );
      assert.equal(
        fake.files('promotion-foo-bar-prod')['apps/prod/podinfo.yaml'],
        'version: 6.9.3 # {"$promotion": "foo:bar:prod"}\n',
      );
    } finally {
      await fake.stop();
    }
  });

  it('refuses a Secret without credentials before loading anything', async () => {
    const { host, loads } = countingHost(() => assert.fail('the adapter must not be loaded'));
    const error = await rejection(
      promoterOver(host, 'http://127.0.0.1:1', { username: 'someone' }).promote(request('6.9.2')),
    );
    assert.equal(error.message, 'Secret foo/git has no GitLab credentials');
    assert.equal(error.retryable, false);
    assert.equal(loads(), 0);
  });

  it('says which host cannot promote when its client cannot be loaded, without showing the token, and does not load it again', async () => {
    const { host, loads } = countingHost(() =>
      Promise.reject(new Error("Cannot find package '@gitbeaker/rest' imported from /var/task/index.mjs")),
    );
    const promoter = promoterOver(host, 'http://127.0.0.1:1');

    const first = await rejection(promoter.promote(request('6.9.2')));
    const second = await rejection(promoter.promote(request('6.9.2')));

    assert.match(first.message, /^the GitLab client could not be loaded/);
    assert.match(first.message, /Cannot find package '@gitbeaker\/rest'/);
    assert.equal(first.retryable, false, 'a broken deployment waits for a person');
    assert.ok(!first.message.includes(TOKEN));
    assert.equal(second.message, first.message);
    assert.equal(loads(), 1);
  });

  it('maps the errors of a repository it opened with the adapter’s own mapping', async () => {
    const fake = await startGitLabUnderTest();
    try {
      fake.createRepository({ 'apps/prod/podinfo.yaml': 'version: 6.9.1 # {"$promotion": "foo:bar:prod"}\n' });
      const { host } = countingHost(() => Promise.resolve(fake.host({ retries: 0 })));
      // A token GitLab does not know: its 401, as the GitLab adapter words it.
      const error = await rejection(promoterOver(host, fake.apiUrl, { token: TOKEN }).promote(request('6.9.2')));
      const direct = await rejection(
        promoterOver(fake.host({ retries: 0 }), fake.apiUrl, { token: TOKEN }).promote(request('6.9.2')),
      );
      assert.equal(error.message, direct.message);
      assert.equal(error.retryable, false);
      assert.match(error.message, /Secret foo\/git/);
    } finally {
      await fake.stop();
    }
  });

  it('tells the promoter the host’s type, Secret keys and longest body before anything is loaded', () => {
    const { host, loads } = countingHost(() => assert.fail('the adapter must not be loaded'), { maxBodyLength: 4000 });
    assert.equal(host.type, 'gitlab');
    assert.equal(host.neededKeys, 'the key "token"');
    assert.equal(host.maxBodyLength, 4000);
    assert.equal(countingHost(() => assert.fail('not loaded')).host.maxBodyLength, undefined);
    assert.equal(loads(), 0);
  });
});

/** Each host's deferred factory beside its adapter, and a repository of that host. */
const HOST_PAIRS: [GitProviderType, () => GitHost, () => GitHost, string][] = [
  ['github', deferredGitHubHost, gitHubHost, GITHUB_URL],
  ['gitlab', deferredGitLabHost, gitLabHost, GITLAB_URL],
  ['bitbucket-server', deferredBitbucketServerHost, bitbucketServerHost, BITBUCKET_SERVER_URL],
  ['azure-devops', deferredAzureDevOpsHost, azureDevOpsHost, AZURE_DEVOPS_URL],
];

describe('each host deferred', () => {
  for (const [type, deferred, adapter, url] of HOST_PAIRS) {
    it(`${type}: is described and refuses a Secret without credentials as its adapter does`, () => {
      const located = repositoryAddress(type, url);
      assert.ok(located.ok);
      /** What opening the repository with these Secret values gives: its refusal, or `taken`. */
      const outcome = (host: GitHost, values: Record<string, string>): string => {
        try {
          host.open(located.address, located.address.apiUrl, SECRET, values);
          return 'taken';
        } catch (error) {
          assert.ok(error instanceof PromotionError, `a PromotionError, not ${String(error)}`);
          return `${error.message} (retryable: ${error.retryable})`;
        }
      };
      const [lazy, eager] = [deferred(), adapter()];
      assert.deepEqual(
        [lazy.type, lazy.neededKeys, lazy.maxBodyLength],
        [eager.type, eager.neededKeys, eager.maxBodyLength],
      );
      const secrets: Record<string, string>[] = [
        {},
        { token: ' ' },
        { username: 'u' },
        { password: 'p' },
        { token: 't' },
      ];
      for (const values of secrets) {
        assert.equal(outcome(lazy, values), outcome(eager, values));
      }
      assert.match(outcome(lazy, {}), /^Secret foo\/git has no .* credentials.*\(retryable: false\)$/);
      assert.equal(outcome(lazy, { token: 't' }), 'taken');
    });
  }
});
