// A Git host's credential goes only to the host it is for. Each host's fake answers with a redirect to a second
// server on another port (another origin), which records what it is sent: whatever the redirect (a GET's 302, a
// write's 307), that server never sees the token, in any header. A redirect to the host's own origin is still
// followed with the credentials, so a promotion through it succeeds.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { originBoundFetch } from '../../lib/promotion/pull-request/origin-bound-fetch.js';
import type { FakeHostUnderTest } from './git-host-under-test.js';
import { startLocalServer, type LocalServer } from './notification-servers.js';
import { HOSTS, MARKED_FILES, subjectOf } from './pull-request-subject.js';

/** The header names that carry a credential, and any header whose value holds one of `secrets`. */
function credentialsIn(headers: IncomingHttpHeaders, secrets: readonly string[]): string[] {
  return Object.entries(headers).flatMap(([name, value]) => {
    const text = String(value);
    const decoded = text.replace(/^(Basic|Bearer)\s+/i, '');
    const holds = secrets.some(
      (secret) => text.includes(secret) || Buffer.from(decoded, 'base64').toString('utf8').includes(secret),
    );
    return ['authorization', 'private-token', 'cookie'].includes(name) || holds ? [`${name}: ${text}`] : [];
  });
}

for (const [type, start] of HOSTS) {
  describe(`${type}: redirects`, { concurrency: false }, () => {
    let fake: FakeHostUnderTest;
    let elsewhere: LocalServer;
    before(async () => {
      fake = await start();
      fake.createRepository(MARKED_FILES);
      elsewhere = await startLocalServer(() => ({ status: 404, body: '{"message":"Not Found"}' }));
    });
    after(async () => {
      await fake.stop();
      await elsewhere.stop();
    });

    for (const status of [301, 302, 303, 307, 308] as const) {
      it(`a ${status} to another origin never carries the token there`, async () => {
        elsewhere.received.length = 0;
        fake.redirectNext(elsewhere.url, status);
        await subjectOf(fake)
          .promote('6.9.2')
          .catch(() => undefined);
        assert.ok(elsewhere.received.length > 0, 'the redirect was followed to the other server');
        const secrets = Object.values(fake.secretValues);
        for (const request of elsewhere.received) {
          assert.deepEqual(credentialsIn(request.headers, secrets), [], `${request.method} ${request.url}`);
        }
      });
    }

    it('a redirect to its own origin is followed with the credentials', async () => {
      fake.redirectNext(new URL(fake.apiUrl).origin, 302);
      const before = fake.requestCount();
      const url = await subjectOf(fake).promote('6.9.3');
      assert.ok(fake.pullRequests().some((pull) => pull.url === url && pull.title.includes('6.9.3')));
      assert.ok(fake.requestCount() > before + 1);
    });
  });
}

describe('originBoundFetch', () => {
  let home: LocalServer;
  let elsewhere: LocalServer;
  before(async () => {
    elsewhere = await startLocalServer((request) => ({ status: 200, body: `elsewhere ${request.method}` }));
    home = await startLocalServer((request) =>
      request.url.startsWith('/moved')
        ? { status: 307, headers: { location: request.url.replace('/moved', '/here') } }
        : request.url.startsWith('/away')
          ? { status: 302, headers: { location: `${elsewhere.url}/download` } }
          : { status: 200, body: `home ${request.method} ${request.body.toString('utf8')}` },
    );
  });
  after(async () => {
    await home.stop();
    await elsewhere.stop();
  });

  it('follows a redirect to the same origin with every header and the body', async () => {
    const response = await originBoundFetch()(`${home.url}/moved`, {
      method: 'PUT',
      headers: { 'private-token': 'glpat-secret', 'content-type': 'text/plain' },
      body: 'the body',
    });
    assert.equal(await response.text(), 'home PUT the body');
    assert.equal(home.received.at(-1)?.headers['private-token'], 'glpat-secret');
  });

  it('follows a redirect to another origin with what is asked for, never who asks', async () => {
    const response = await originBoundFetch()(`${home.url}/away`, {
      headers: {
        authorization: 'Bearer ghp_secret',
        'private-token': 'glpat-secret',
        cookie: 'session=secret',
        'x-custom-token': 'secret',
        accept: 'application/octet-stream',
        'user-agent': 'pipeline-controller',
      },
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'elsewhere GET');
    const [download] = elsewhere.received;
    assert.equal(download?.url, '/download');
    assert.equal(download.headers.accept, 'application/octet-stream');
    assert.equal(download.headers['user-agent'], 'pipeline-controller');
    assert.deepEqual(credentialsIn(download.headers, ['secret']), []);
    assert.equal(download.headers['x-custom-token'], undefined);
  });

  it("leaves a request that asks for redirect: 'manual' as it is", async () => {
    const response = await originBoundFetch()(new Request(`${home.url}/away`, { redirect: 'manual' }));
    assert.equal(response.status, 302);
    assert.equal(response.headers.get('location'), `${elsewhere.url}/download`);
  });
});
