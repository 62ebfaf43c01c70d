// How the dashboard's owner gets in, as their browser does: opening the URL the command printed (with the token)
// answers with a redirect to the same URL without it and the cookie that lets every later request in.
import assert from 'node:assert/strict';

/** The `Cookie` header value (`name=value`) that opening `ownerUrl` sets. */
export async function ownerCookieOf(ownerUrl: string): Promise<string> {
  const opened = await fetch(ownerUrl, { redirect: 'manual' });
  await opened.body?.cancel();
  assert.equal(opened.status, 303, `opening ${new URL(ownerUrl).origin} with the token redirects`);
  const setCookie = opened.headers.get('set-cookie') ?? '';
  const pair = /^([^=;\s]+=[^;\s]*)/.exec(setCookie)?.[1];
  assert.ok(pair, `a cookie is set: ${setCookie}`);
  return pair;
}
