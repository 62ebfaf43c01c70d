// How each Git host authenticates a push webhook (lib/signing/push-signatures.ts), one table per question: does a
// credential verify under a ConfigSource's webhook secret, and does a request carry anything shaped like one.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import {
  carriesPushCredential,
  pushCredentialHeaders,
  verifyPushCredential,
  type PushHeaders,
} from '../../lib/signing/push-signatures.js';

const SECRET = 'push-secret-3f9a1c';
const BODY = Buffer.from('{"ref":"refs/heads/main","after":"9fceb02d0ae598e95dc970b74767f19372d61af8"}');

/** HMAC-SHA256 of `body` as lowercase hex, written out with node:crypto rather than the module under test. */
const hmacHex = (body: Buffer | string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');
const basic = (credentials: string) => `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;

describe("GitHub's documented test vector", () => {
  // docs.github.com, "Validating webhook deliveries": this secret and payload give this header.
  const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('verifies, and is what a GitHub source is sent', () => {
    const body = Buffer.from('Hello, World!');
    const secret = "It's a Secret to Everybody";
    assert.equal(verifyPushCredential('github', { 'x-hub-signature-256': header }, body, secret), true);
    assert.deepEqual(pushCredentialHeaders('github', body, secret), { 'x-hub-signature-256': header });
  });
});

describe('verifyPushCredential', () => {
  const cases: { name: string; type: GitProviderType; headers: PushHeaders; body?: Buffer; valid: boolean }[] = [
    // GitHub: X-Hub-Signature-256 over the raw body.
    {
      name: 'GitHub, signed',
      type: 'github',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET)}` },
      valid: true,
    },
    {
      name: 'GitHub, upper-case hex',
      type: 'github',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET).toUpperCase()}` },
      valid: true,
    },
    {
      name: 'GitHub, another secret',
      type: 'github',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, 'guess')}` },
      valid: false,
    },
    {
      name: 'GitHub, a changed body',
      type: 'github',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET)}` },
      body: Buffer.concat([BODY, Buffer.from('\n')]),
      valid: false,
    },
    {
      name: 'GitHub, only the legacy sha1 X-Hub-Signature',
      type: 'github',
      headers: { 'x-hub-signature': `sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}` },
      valid: false,
    },
    {
      name: 'GitHub, the right digest in the Bitbucket header',
      type: 'github',
      headers: { 'x-hub-signature': `sha256=${hmacHex(BODY, SECRET)}` },
      valid: false,
    },
    {
      name: 'GitHub, the secret as a GitLab token',
      type: 'github',
      headers: { 'x-gitlab-token': SECRET },
      valid: false,
    },
    { name: 'GitHub, no header', type: 'github', headers: {}, valid: false },
    {
      name: 'GitHub, a truncated digest',
      type: 'github',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET).slice(0, 62)}` },
      valid: false,
    },
    // GitLab: the secret itself, whatever the body.
    { name: 'GitLab, the token', type: 'gitlab', headers: { 'x-gitlab-token': SECRET }, valid: true },
    {
      name: 'GitLab, the token, any body',
      type: 'gitlab',
      headers: { 'x-gitlab-token': SECRET },
      body: Buffer.from('x'),
      valid: true,
    },
    {
      name: 'GitLab, a prefix of the token',
      type: 'gitlab',
      headers: { 'x-gitlab-token': SECRET.slice(0, -1) },
      valid: false,
    },
    { name: 'GitLab, the token and more', type: 'gitlab', headers: { 'x-gitlab-token': `${SECRET}x` }, valid: false },
    { name: 'GitLab, an empty token', type: 'gitlab', headers: { 'x-gitlab-token': '' }, valid: false },
    {
      name: 'GitLab, a GitHub signature',
      type: 'gitlab',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET)}` },
      valid: false,
    },
    // Bitbucket Server: X-Hub-Signature, sha256 over the raw body.
    {
      name: 'Bitbucket Server, signed',
      type: 'bitbucket-server',
      headers: { 'x-hub-signature': `sha256=${hmacHex(BODY, SECRET)}` },
      valid: true,
    },
    {
      name: 'Bitbucket Server, another secret',
      type: 'bitbucket-server',
      headers: { 'x-hub-signature': `sha256=${hmacHex(BODY, 'guess')}` },
      valid: false,
    },
    {
      name: 'Bitbucket Server, the GitHub header',
      type: 'bitbucket-server',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, SECRET)}` },
      valid: false,
    },
    {
      name: 'Bitbucket Server, sha1',
      type: 'bitbucket-server',
      headers: { 'x-hub-signature': `sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}` },
      valid: false,
    },
    // Azure DevOps: basic authentication whose password is the secret; any user.
    {
      name: 'Azure DevOps, any user',
      type: 'azure-devops',
      headers: { authorization: basic(`ado:${SECRET}`) },
      valid: true,
    },
    {
      name: 'Azure DevOps, no user',
      type: 'azure-devops',
      headers: { authorization: basic(`:${SECRET}`) },
      valid: true,
    },
    {
      name: 'Azure DevOps, lower-case scheme',
      type: 'azure-devops',
      headers: { authorization: basic(`ado:${SECRET}`).replace('Basic', 'basic') },
      valid: true,
    },
    {
      name: 'Azure DevOps, the password and more',
      type: 'azure-devops',
      headers: { authorization: basic(`ado:${SECRET}:x`) },
      valid: false,
    },
    {
      name: 'Azure DevOps, the secret as the user',
      type: 'azure-devops',
      headers: { authorization: basic(`${SECRET}:`) },
      valid: false,
    },
    { name: 'Azure DevOps, no colon', type: 'azure-devops', headers: { authorization: basic(SECRET) }, valid: false },
    {
      name: 'Azure DevOps, another password',
      type: 'azure-devops',
      headers: { authorization: basic('ado:guess') },
      valid: false,
    },
    {
      name: 'Azure DevOps, a bearer token',
      type: 'azure-devops',
      headers: { authorization: `Bearer ${SECRET}` },
      valid: false,
    },
    { name: 'Azure DevOps, not base64', type: 'azure-devops', headers: { authorization: 'Basic ***' }, valid: false },
    { name: 'Azure DevOps, no header', type: 'azure-devops', headers: {}, valid: false },
  ];

  for (const { name, type, headers, body = BODY, valid } of cases) {
    it(`${name}: ${valid ? 'verifies' : 'does not verify'}`, () => {
      assert.equal(verifyPushCredential(type, headers, body, SECRET), valid);
    });
  }

  it('never verifies under an empty secret, whatever the request carries', () => {
    const empty = '';
    assert.equal(
      verifyPushCredential('github', { 'x-hub-signature-256': `sha256=${hmacHex(BODY, empty)}` }, BODY, empty),
      false,
    );
    assert.equal(verifyPushCredential('gitlab', { 'x-gitlab-token': empty }, BODY, empty), false);
    assert.equal(
      verifyPushCredential('bitbucket-server', { 'x-hub-signature': `sha256=${hmacHex(BODY, empty)}` }, BODY, empty),
      false,
    );
    assert.equal(verifyPushCredential('azure-devops', { authorization: basic('ado:') }, BODY, empty), false);
  });

  it('verifies what pushCredentialHeaders signs, for every host, and only under that secret', () => {
    for (const type of ['github', 'gitlab', 'bitbucket-server', 'azure-devops'] as const) {
      const headers = pushCredentialHeaders(type, BODY, SECRET);
      assert.equal(verifyPushCredential(type, headers, BODY, SECRET), true, type);
      assert.equal(verifyPushCredential(type, headers, BODY, `${SECRET}-rotated`), false, type);
    }
  });
});

describe('carriesPushCredential', () => {
  const cases: { name: string; headers: PushHeaders; carries: boolean }[] = [
    {
      name: 'a GitHub signature',
      headers: { 'x-hub-signature-256': `sha256=${hmacHex(BODY, 'guess')}` },
      carries: true,
    },
    {
      name: 'a Bitbucket Server signature',
      headers: { 'x-hub-signature': `sha256=${hmacHex(BODY, 'guess')}` },
      carries: true,
    },
    { name: 'a GitLab token', headers: { 'x-gitlab-token': 'guess' }, carries: true },
    { name: 'basic authentication with a password', headers: { authorization: basic('user:guess') }, carries: true },
    { name: 'nothing', headers: { 'content-type': 'application/json' }, carries: false },
    { name: "Weave's X-Signature", headers: { 'x-signature': `sha256=${hmacHex(BODY, 'guess')}` }, carries: false },
    { name: 'a sha1 signature only', headers: { 'x-hub-signature': `sha1=${'0'.repeat(40)}` }, carries: false },
    {
      name: 'a signature that is not hex',
      headers: { 'x-hub-signature-256': `sha256=${'z'.repeat(64)}` },
      carries: false,
    },
    { name: 'a digest of the wrong length', headers: { 'x-hub-signature-256': 'sha256=abcd' }, carries: false },
    { name: 'an empty GitLab token', headers: { 'x-gitlab-token': '' }, carries: false },
    { name: 'basic authentication without a password', headers: { authorization: basic('user:') }, carries: false },
    { name: 'a bearer token', headers: { authorization: 'Bearer abc' }, carries: false },
  ];

  for (const { name, headers, carries } of cases) {
    it(`${name}: ${carries ? 'carries' : 'does not carry'} a credential`, () => {
      assert.equal(carriesPushCredential(headers), carries);
    });
  }
});
