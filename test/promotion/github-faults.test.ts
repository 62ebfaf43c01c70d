// The GitHub pull-request strategy when GitHub misbehaves (5xx, rate limits, bad credentials), with GitHub App
// credentials, and where its requests go (the API base derived from the repository URL, or GITHUB_API_URL).
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { repositoryAddress } from '../../lib/pipeline/repository-address.js';
import { PromotionError } from '../../lib/promotion/index.js';
import { BRANCH, OWNER, REPO, SECRET, prRequest, startFixture } from './github-support.js';

const PULLS = 'POST /repos/{owner}/{repo}/pulls';

function expectPromotionError(check: (error: PromotionError) => void) {
  return (error: unknown) => {
    assert.ok(error instanceof PromotionError, `a PromotionError, not ${String(error)}`);
    check(error);
    return true;
  };
}

describe('GitHub pull-request promotion: faults', () => {
  it('retries 5xx answers inside the call and still opens one pull request', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      fake.failNext(502, { times: 2 });
      fake.failNext(503, { route: PULLS });
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      assert.equal(
        fake.count((r) => r.status === 502),
        2,
      );
      assert.equal(
        fake.count((r) => r.status === 503),
        1,
      );
      assert.equal(fake.pulls(OWNER, REPO).length, 1);
    } finally {
      await fixture.stop();
    }
  });

  it('gives up on a lasting 5xx with a retryable error, and a dropped connection is retried', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      fake.failNext(500, { times: 3 }); // the first try and both retries
      await assert.rejects(
        fixture.promoter().promote(prRequest({ revision: '5.0.1' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, true);
          assert.match(error.message, /^GitHub API GET \/api\/v3\/repos\/acme\/fleet\/git\/ref\/heads\/main: 500/);
        }),
      );
      fake.closeNext({ route: 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}' });
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.equal(fake.pulls(OWNER, REPO).length, 1);
    } finally {
      await fixture.stop();
    }
  });

  it('retries a secondary rate limit after its retry-after', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      fake.secondaryRateLimitNext({ route: PULLS, retryAfterSeconds: 2 });
      const outcome = await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      assert.equal(fake.count(PULLS), 2);
      assert.equal(fake.pulls(OWNER, REPO).length, 1);

      // Asked to wait longer than a call may: a retryable error carrying GitHub's wait.
      fake.secondaryRateLimitNext({ retryAfterSeconds: 120 });
      await assert.rejects(
        fixture.promoter({ retryAfterUnitMs: 1000 }).promote(prRequest({ revision: '5.0.2' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, true);
          assert.equal(error.retryAfterMs, 120_000);
          assert.match(error.message, /secondary rate limit/);
        }),
      );
    } finally {
      await fixture.stop();
    }
  });

  for (const status of [403, 429] as const) {
    it(`does not wait out a primary rate limit (${status}): retryable, after the reset`, async () => {
      const fixture = await startFixture();
      const { fake } = fixture;
      try {
        fake.primaryRateLimitNext({ status, resetInSeconds: 600 });
        const started = Date.now();
        await assert.rejects(
          fixture.promoter().promote(prRequest({ revision: '5.0.1' })),
          expectPromotionError((error) => {
            assert.equal(error.retryable, true);
            assert.ok(error.retryAfterMs !== undefined, 'says how long to wait');
            assert.ok(error.retryAfterMs >= 595_000 && error.retryAfterMs <= 602_000, String(error.retryAfterMs));
            assert.match(error.message, /rate limit/);
          }),
        );
        assert.ok(Date.now() - started < 2000, 'no waiting inside the call');
        assert.equal(fake.requests.length, 1, 'not retried');
        assert.equal(fake.pulls(OWNER, REPO).length, 0);
      } finally {
        await fixture.stop();
      }
    });
  }

  it('fails for good on bad credentials (401) and other 4xx, naming the Secret but not the token', async () => {
    const fixture = await startFixture();
    const { fake, secrets } = fixture;
    try {
      secrets.set(SECRET, { token: 'ghp_revoked0123456789' });
      await assert.rejects(
        fixture.promoter().promote(prRequest({ revision: '5.0.1' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, false);
          assert.match(error.message, /401 Bad credentials/);
          assert.match(error.message, /credentials of Secret foo\/github-credentials/);
          assert.doesNotMatch(error.message, /ghp_revoked/);
        }),
      );
      assert.equal(fake.requests.length, 1, 'not retried');

      secrets.set(SECRET, { token: fake.token });
      fake.failNext(403, { message: 'Resource not accessible by personal access token', route: PULLS });
      await assert.rejects(
        fixture.promoter().promote(prRequest({ revision: '5.0.1' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, false);
          assert.match(error.message, /403 Resource not accessible/);
          assert.match(error.message, /failed to create or find existing PR: headBranch=promotion-foo-bar-prod/);
        }),
      );
      await assert.rejects(
        fixture.promoter().promote(prRequest({ revision: '5.0.1', baseBranch: 'nope' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, false);
          assert.match(error.message, /the base branch nope does not exist in https:\/\/github.com\/acme\/fleet/);
        }),
      );
    } finally {
      await fixture.stop();
    }
  });
});

describe('GitHub pull-request promotion: GitHub App credentials', () => {
  it('authenticates as an installation with a JWT signed by the app key', async () => {
    const fixture = await startFixture();
    const { fake, secrets } = fixture;
    try {
      const { publicKey, privateKey } = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, // what GitHub hands out
      });
      fake.registerApp({ appId: 123, publicKey, installationIds: [456] });
      secrets.set(SECRET, {
        githubAppID: '123',
        githubAppInstallationID: '456',
        githubAppPrivateKey: privateKey,
      });
      const promoter = fixture.promoter();
      const outcome = await promoter.promote(prRequest({ revision: '5.0.1' }));
      assert.equal(outcome.result, `https://github.com/${OWNER}/${REPO}/pull/1`);
      assert.equal(fake.count('POST /app/installations/{installation_id}/access_tokens'), 1);
      assert.ok(fake.requests.filter((r) => r.route?.startsWith('POST /app/')).every((r) => r.auth === 'app'));
      assert.ok(fake.requests.filter((r) => r.route?.includes('/repos/')).every((r) => r.auth === 'installation'));
      const head = fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      // One file changes: committed through the contents API.
      assert.equal(fake.count('PUT /repos/{owner}/{repo}/contents/{path}'), 1, 'committed through the installation');
      assert.equal(fake.commit(OWNER, REPO, head)?.author.name, 'Promotion Server', "authored as Weave's, not the app");

      // The installation token is reused by the cached client.
      await promoter.promote(prRequest({ revision: '5.0.2' }));
      assert.equal(fake.count('POST /app/installations/{installation_id}/access_tokens'), 1);

      // An installation the app does not have: permanent.
      secrets.set(SECRET, { githubAppID: '123', githubAppInstallationID: '999', githubAppPrivateKey: privateKey });
      await assert.rejects(
        promoter.promote(prRequest({ revision: '5.0.3' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, false);
          assert.match(error.message, /app\/installations\/999\/access_tokens: 404/);
          assert.doesNotMatch(error.message, /BEGIN/);
        }),
      );
      // A key the app does not know: GitHub cannot verify the JWT.
      const other = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      });
      secrets.set(SECRET, {
        githubAppID: '123',
        githubAppInstallationID: '456',
        githubAppPrivateKey: other.privateKey,
      });
      await assert.rejects(
        promoter.promote(prRequest({ revision: '5.0.3' })),
        expectPromotionError((error) => assert.equal(error.retryable, false)),
      );
    } finally {
      await fixture.stop();
    }
  });
});

describe('GitHub pull-request promotion: repository URL and API base', () => {
  it('derives the API base from the host, unless GITHUB_API_URL is set', () => {
    const apiOf = (url: string) => {
      const located = repositoryAddress('github', url);
      assert.ok(located.ok);
      return located.address;
    };
    assert.equal(apiOf('https://github.com/acme/fleet').apiUrl, 'https://api.github.com');
    assert.equal(apiOf('https://GitHub.com/acme/fleet').apiUrl, 'https://api.github.com');
    assert.equal(apiOf('https://ghe.example.com/acme/fleet').apiUrl, 'https://ghe.example.com/api/v3');
    assert.equal(apiOf('https://ghe.example.com:8443/acme/fleet').apiUrl, 'https://ghe.example.com:8443/api/v3');
    assert.deepEqual(apiOf('https://github.com/acme/fleet.git'), {
      type: 'github',
      host: 'github.com',
      owner: 'acme',
      repo: 'fleet',
      webUrl: 'https://github.com/acme/fleet',
      apiUrl: 'https://api.github.com',
    });
    assert.equal(apiOf('https://x:tok@ghe.example.com/acme/fleet/').webUrl, 'https://ghe.example.com/acme/fleet');
    const bad = repositoryAddress('github', 'https://github.com/acme');
    assert.ok(!bad.ok && /does not name a github repository/.test(bad.problem));
  });

  it('sends requests to the derived API base, or to the override', async () => {
    const fixture = await startFixture();
    const { fake } = fixture;
    try {
      const seen: string[] = [];
      // Whatever the API base, the request is answered by the fake; the URL asked for is recorded.
      const redirect: typeof fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        seen.push(url);
        return fetch(url.replace(/^https:\/\/[^/]+(\/api\/v3)?/, fake.url), init);
      };
      const derived = fixture.promoter({ apiUrl: undefined, fetch: redirect });
      await derived.promote(prRequest({ revision: '5.0.1', url: 'https://github.com/acme/fleet' }));
      assert.ok(seen.length > 0 && seen.every((url) => url.startsWith('https://api.github.com/repos/acme/fleet/')));
      assert.equal(seen[0], 'https://api.github.com/repos/acme/fleet/git/ref/heads%2Fmain');

      seen.length = 0;
      await derived.promote(prRequest({ revision: '5.0.2', url: 'https://ghe.example.com/acme/fleet.git' }));
      assert.ok(seen.every((url) => url.startsWith('https://ghe.example.com/api/v3/repos/acme/fleet/')));

      seen.length = 0;
      const override = fixture.promoter({ apiUrl: 'https://github.internal/api/v3/', fetch: redirect });
      await override.promote(prRequest({ revision: '5.0.3', url: 'https://github.com/acme/fleet' }));
      assert.ok(seen.length > 0 && seen.every((url) => url.startsWith('https://github.internal/api/v3/repos/')));
      assert.equal(fake.pulls(OWNER, REPO).length, 1);
    } finally {
      await fixture.stop();
    }
  });

  it('rejects http:// URLs, and hosts the promoter was not built with', async () => {
    const fixture = await startFixture();
    try {
      const promoter = fixture.promoter();
      await assert.rejects(
        promoter.promote(prRequest({ revision: '5.0.1', url: 'http://github.com/acme/fleet' })),
        expectPromotionError((error) => {
          assert.equal(error.retryable, false);
          assert.equal(error.message, 'the pull-request url has an unsupported URL scheme: only HTTPS is supported');
        }),
      );
      for (const type of ['gitlab', 'bitbucket-server'] as const) {
        await assert.rejects(
          promoter.promote(prRequest({ revision: '5.0.1', type })),
          expectPromotionError((error) => {
            assert.equal(error.retryable, false);
            assert.equal(error.message, `the ${type} Git provider is not available in this deployment`);
          }),
        );
      }
      assert.equal(fixture.fake.requests.length, 0);
    } finally {
      await fixture.stop();
    }
  });
});
