// The dashboard's owner check on its own: which requests the token lets in, what opening the printed URL answers,
// and that every other request is refused, whatever it guesses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ACCESS_REFUSED,
  accessCookieName,
  accessCookieValue,
  checkAccess,
  createAccessToken,
  ownerUrl,
} from '../../lib/cli/dashboard/owner-access.js';
import { sameSecret } from '../../lib/signing/presented-secrets.js';

const PORT = 8080;
const token = createAccessToken();
const cookie = `${accessCookieName(PORT)}=${accessCookieValue(token)}`;
const check = (method: string, path: string, cookieHeader?: string, port = PORT) =>
  checkAccess({ method, url: new URL(path, `http://127.0.0.1:${PORT}`), cookie: cookieHeader }, token, port);

describe("the dashboard's owner check", () => {
  it('a token is 32 random bytes in base64url, new at each start', () => {
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    assert.notEqual(createAccessToken(), token);
  });

  it('the owner URL is the dashboard URL with the token', () => {
    assert.equal(ownerUrl('http://127.0.0.1:8080/', token), `http://127.0.0.1:8080/?token=${token}`);
  });

  it('opening it redirects to the same URL without the token, setting an HttpOnly, SameSite=Strict cookie', () => {
    assert.deepEqual(check('GET', `/?token=${token}`), {
      outcome: 'exchange',
      location: '/',
      setCookie: `${cookie}; HttpOnly; SameSite=Strict; Path=/`,
    });
    const deep = check('GET', `/history?type=approved&token=${token}&env=prod`);
    assert.equal(deep.outcome === 'exchange' && deep.location, '/history?type=approved&env=prod');
    assert.ok(!cookie.includes(token), 'the cookie holds a derived value, not the token');
  });

  it('with the cookie every request passes, among other cookies too', () => {
    assert.deepEqual(check('GET', '/', cookie), { outcome: 'owner' });
    assert.deepEqual(check('POST', '/pipelines/a/b/freeze', `theme=dark; ${cookie}; other=1`), { outcome: 'owner' });
    assert.deepEqual(check('GET', '/events', cookie), { outcome: 'owner' });
  });

  it('refuses a request without the cookie, with a guessed one, or with the cookie of another port', () => {
    const refused = (why: string) => ({ outcome: 'refused', why });
    assert.deepEqual(check('GET', '/'), refused('no-cookie'));
    assert.deepEqual(check('GET', '/', 'theme=dark'), refused('no-cookie'));
    assert.deepEqual(check('GET', '/', `${accessCookieName(PORT)}=guessed`), refused('wrong-cookie'));
    assert.deepEqual(check('GET', '/', `${accessCookieName(PORT)}=`), refused('wrong-cookie'));
    assert.deepEqual(check('GET', '/', `${accessCookieName(PORT)}=${token}`), refused('wrong-cookie'));
    // Another dashboard's cookie (another start, another port) is not this one's.
    const other = createAccessToken();
    assert.deepEqual(
      check('GET', '/', `${accessCookieName(PORT)}=${accessCookieValue(other)}`),
      refused('wrong-cookie'),
    );
    assert.deepEqual(check('GET', '/', cookie, 9090), refused('no-cookie'));
  });

  it('refuses a wrong token in the URL, even with the cookie; a form post with the token in its URL needs the cookie', () => {
    const refused = { outcome: 'refused', why: 'wrong-token' };
    assert.deepEqual(check('GET', '/?token='), refused);
    assert.deepEqual(check('GET', `/?token=${token.slice(1)}`), refused);
    assert.deepEqual(check('GET', `/?token=${token}x`, cookie), refused);
    assert.deepEqual(check('GET', `/?token=${token}&token=${token}`), refused);
    assert.deepEqual(check('POST', `/pipelines/a/b/freeze?token=${token}`), { outcome: 'refused', why: 'no-cookie' });
  });

  it('says how to get in and nothing else', () => {
    for (const text of Object.values(ACCESS_REFUSED)) {
      assert.match(text, /Open the URL that pipelinectl printed when it started/);
      assert.ok(text.length < 200, text);
    }
  });

  it('compares secrets of any length without throwing', () => {
    assert.equal(sameSecret(token, token), true);
    assert.equal(sameSecret('', token), false);
    assert.equal(sameSecret(token.repeat(100), token), false);
    assert.equal(sameSecret('é', 'e'), false);
  });
});
