// The redaction of text from outside (lib/logging/redaction.ts): each token shape, the secret values the process read,
// and ordinary text left as written; then that the loggers, errors and secret sources use it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { ClusterAccessError } from '../../lib/clusters/port.js';
import { secretValues } from '../../lib/config/secret-values.js';
import { createConsoleLogger } from '../../lib/logging/console-logger.js';
import { loggable } from '../../lib/logging/loggable.js';
import {
  clearRegisteredSecretValues,
  redact,
  redactDeep,
  REDACTED,
  registerSecretValues,
} from '../../lib/logging/redaction.js';
import { PromotionError } from '../../lib/promotion/port.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { installedHelmRelease } from '../../lib/testing/helm-release.js';
import { failureStatus, statusOf } from '../../lib/verifier/observe.js';

const alnum = (length: number) =>
  randomBytes(length)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, length);

/** Tokens as each issuer writes them, built here so that no real-looking token sits in the repository. */
const TOKENS: Record<string, string> = {
  'GitHub classic': `ghp_${alnum(36)}`,
  'GitHub OAuth': `gho_${alnum(36)}`,
  'GitHub user-to-server': `ghu_${alnum(36)}`,
  'GitHub installation': `ghs_${alnum(36)}`,
  'GitHub refresh': `ghr_${alnum(76)}`,
  'GitHub fine-grained': `github_pat_${alnum(22)}_${alnum(59)}`,
  'GitLab personal': `glpat-${alnum(20)}`,
  'GitLab routable': `glpat-${alnum(27)}.01.${alnum(9)}`,
  'GitLab deploy': `gldt-${alnum(20)}`,
  'Slack bot': `xoxb-${alnum(12)}-${alnum(13)}-${alnum(24)}`,
  'Slack user': `xoxp-${alnum(12)}-${alnum(12)}-${alnum(13)}-${alnum(32)}`,
  'Slack app': `xoxa-2-${alnum(40)}`,
  'Slack refresh': `xoxr-${alnum(40)}`,
  'Slack legacy': `xoxs-${alnum(40)}`,
  JWT: [
    Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url'),
    Buffer.from('{"iss":"12345","iat":1700000000}').toString('base64url'),
    randomBytes(256).toString('base64url'),
  ].join('.'),
  EKS: `k8s-aws-v1.${Buffer.from(`https://sts.eu-west-1.amazonaws.com/?Action=GetCallerIdentity&X-Amz-Signature=${alnum(64)}`).toString('base64url')}`,
};

/** Messages the product writes or relays that hold no credential: they stay as written. */
const ORDINARY = [
  'GitHub https://github.com/acme/fleet: 401 Bad credentials: GitHub rejected the credentials of Secret flux-system/github',
  'GitLab API: 404 Project Not Found',
  'Secret flux-system/github has no GitHub credentials ("token" is empty): it needs the key "token"',
  'Helm upgrade failed for release podinfo-prod with chart podinfo@6.9.2: context deadline exceeded',
  'the token expired; Bearer authentication needs a new one, and Basic authentication is for git only',
  'Promote flux-system/podinfo in prod to 6.9.2 (https://github.com/acme/fleet/pull/12)',
  'sha256:0c1c3b5e4d0f6b0a3f5d7e1c2b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a',
  'main@sha1:4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  'a token_type of "installation", github_app and glpat are words here; xoxo',
  'kubeconfig of cluster flux-system/fleet: the server is not an http(s) URL',
];

describe('redact', () => {
  beforeEach(() => clearRegisteredSecretValues());

  for (const [issuer, token] of Object.entries(TOKENS)) {
    it(`replaces a ${issuer} token`, () => {
      assert.equal(
        redact(`401 {"message":"Bad credentials: ${token}"}`),
        `401 {"message":"Bad credentials: ${REDACTED}"}`,
      );
      assert.equal(redact(token), REDACTED);
    });
  }

  it('replaces Basic and Bearer authorization values, and header values', () => {
    const basic = Buffer.from('deploy:s3cret-password').toString('base64');
    assert.equal(redact(`got Authorization: Basic ${basic}`), `got Authorization: Basic ${REDACTED}`);
    assert.equal(redact(`sent "Bearer abc.DEF-123_xyz~"`), `sent "Bearer ${REDACTED}"`);
    assert.equal(redact('header authorization=opaqueValue'), `header authorization=${REDACTED}`);
    assert.equal(redact(`PRIVATE-TOKEN: ${alnum(20)}`), `PRIVATE-TOKEN: ${REDACTED}`);
    assert.equal(redact(`{"private-token":"${alnum(26)}"}`), `{"private-token":"${REDACTED}"}`);
    assert.equal(redact(`Authorization: token ${alnum(40)}`), `Authorization: token ${REDACTED}`);
  });

  it('replaces the secret part of a Slack webhook URL', () => {
    const url = `https://hooks.slack.com/services/T${alnum(8)}/B${alnum(8)}/${alnum(24)}`;
    assert.equal(redact(`POST ${url} failed`), `POST https://hooks.slack.com/services/${REDACTED} failed`);
  });

  it('replaces every registered secret value, wherever it stands and however a body quotes it', () => {
    const password = 'correct horse battery staple';
    const multiline = 'line-one-of-a-key\nline-two-of-a-key';
    registerSecretValues([password, `  padded-${password}  `, multiline]);
    assert.equal(redact(`user=admin pass=${password}!`), `user=admin pass=${REDACTED}!`);
    assert.equal(redact(`padded-${password}`), REDACTED);
    assert.equal(redact(JSON.stringify({ echoed: multiline })), `{"echoed":"${REDACTED}"}`);
    assert.equal(redact(`?key=${encodeURIComponent(password)}`), `?key=${REDACTED}`);
  });

  it("finds each of a fleet's registered values among thousands, wherever it starts, the longer of two first", () => {
    // The credentials of 2,000 clusters' kubeconfigs; values looked up by their first characters must still be found
    // at the start and the end of a text, next to each other, when one holds another, and outside ASCII.
    const values = Array.from({ length: 2000 }, () => alnum(44));
    const sharingStart = `${values[7]?.slice(0, 2) ?? ''}-shares-the-first-two-characters`;
    const sharingEight = `${values[7]?.slice(0, 8) ?? ''}-shares-the-first-eight`;
    // Whole kubeconfigs (a Secret's value) all begin alike.
    const kubeconfigs = ['one', 'two'].map((user) => `apiVersion: v1\nkind: Config\nusers:\n- name: ${user}\n`);
    const holdsAnother = `prefix-${values[9] ?? ''}-suffix`;
    const extendsAnother = `${values[11] ?? ''}-and-more`;
    const unicode = 'clé-privée-ünïcödé-密钥';
    const shortest = 'x7-k3y-9';
    registerSecretValues([
      ...values,
      sharingStart,
      sharingEight,
      ...kubeconfigs,
      holdsAnother,
      extendsAnother,
      unicode,
      shortest,
    ]);
    const [first = '', second = '', last = ''] = [values[0], values[1], values[1999]];
    assert.equal(redact(`${first} and ${last}`), `${REDACTED} and ${REDACTED}`);
    assert.equal(redact(`${first}${second}`), `${REDACTED}${REDACTED}`);
    assert.equal(redact(`x${sharingStart} ${values[7] ?? ''}`), `x${REDACTED} ${REDACTED}`);
    assert.equal(redact(`${sharingEight} ${values[7] ?? ''}.`), `${REDACTED} ${REDACTED}.`);
    assert.equal(redact(`got ${kubeconfigs[1] ?? ''}${kubeconfigs[0] ?? ''}`), `got ${REDACTED}${REDACTED}`);
    assert.equal(redact('apps/app-1 with apiVersion: v1'), 'apps/app-1 with apiVersion: v1');
    assert.equal(redact(`echo: ${holdsAnother}.`), `echo: ${REDACTED}.`);
    assert.equal(redact(`echo: ${extendsAnother}.`), `echo: ${REDACTED}.`);
    assert.equal(redact(`key ${unicode}!`), `key ${REDACTED}!`);
    assert.equal(redact(shortest), REDACTED);
    assert.equal(redact(`ends with ${shortest}`), `ends with ${REDACTED}`);
    assert.equal(redact(`almost ${first.slice(0, -1)}`), `almost ${first.slice(0, -1)}`);
  });

  it('ignores registered values shorter than 8 characters, which would hit ordinary words', () => {
    registerSecretValues(['admin', 'main', 'true', '1234567']);
    const text = 'admin merged main: true, 1234567 objects';
    assert.equal(redact(text), text);
  });

  it('leaves ordinary text as written', () => {
    registerSecretValues([`ghp_${alnum(36)}`, 'a-registered-secret']);
    for (const text of ORDINARY) assert.equal(redact(text), text);
  });

  it('redacts every string of a document, keys kept', () => {
    const token = TOKENS['GitLab personal'] ?? '';
    const news = { kind: 'promotion-failed', error: `401 ${token}`, nested: [{ message: token }], count: 2 };
    assert.deepEqual(redactDeep(news), {
      kind: 'promotion-failed',
      error: `401 ${REDACTED}`,
      nested: [{ message: REDACTED }],
      count: 2,
    });
    assert.equal(news.error, `401 ${token}`, 'the original is unchanged');
  });
});

describe('where redaction applies', () => {
  beforeEach(() => clearRegisteredSecretValues());

  it('the values of a Secret read or loaded are registered', () => {
    const fromSource = 'value-from-a-secret-source';
    new StaticSecretSource([{ key: { namespace: 'ns', name: 'git' }, values: { token: fromSource } }]);
    const fromConfig = 'value-from-a-configuration';
    secretValues({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'slack', namespace: 'ns' },
      data: { url: Buffer.from(fromConfig).toString('base64') },
    });
    assert.equal(redact(`${fromSource} ${fromConfig}`), `${REDACTED} ${REDACTED}`);
  });

  it('the messages of a PromotionError and a ClusterAccessError are redacted', () => {
    const token = TOKENS['GitHub classic'] ?? '';
    assert.equal(
      new PromotionError('Unauthorized', `401 Bad credentials ${token}`).message,
      `401 Bad credentials ${REDACTED}`,
    );
    const bearer = TOKENS.JWT ?? '';
    assert.equal(
      new ClusterAccessError('unauthorized', `Unauthorized: Bearer ${bearer}`).message,
      `Unauthorized: Bearer ${REDACTED}`,
    );
  });

  it("a cluster's condition message and a failed read are redacted before they are recorded", () => {
    const token = TOKENS.JWT ?? '';
    const release = installedHelmRelease({ namespace: 'apps', name: 'podinfo' }, '6.9.2');
    for (const condition of release.status.conditions) {
      Object.assign(condition, { status: 'False', reason: 'InstallFailed', message: `pull failed: Bearer ${token}` });
    }
    const app = {
      cluster: { namespace: 'flux-system', name: 'dev' },
      kind: 'HelmRelease',
      namespace: 'apps',
      name: 'podinfo',
    } as const;
    const status = statusOf(app, release);
    assert.equal(status.phase, 'Failed');
    assert.ok(status.message.includes(`pull failed: Bearer ${REDACTED}`), status.message);
    assert.equal(
      failureStatus(new Error(`socket hang up ${token}`)).message,
      `reading the target failed: socket hang up ${REDACTED}`,
    );
  });

  it('every logger line is redacted: message, attribute values and error texts', () => {
    const registered = 'registered-webhook-key-123';
    registerSecretValues([registered]);
    const token = TOKENS['Slack bot'] ?? '';
    let written = '';
    const logger = createConsoleLogger({ stream: { write: (text: string) => (written += text) }, format: 'json' });
    logger.warn(`failed with ${token}`, { detail: `key ${registered}`, error: new Error(`echo ${token}`) });
    assert.ok(!written.includes(token) && !written.includes(registered), written);
    assert.equal((JSON.parse(written) as { message: string }).message, `failed with ${REDACTED}`);
    assert.deepEqual(loggable({ list: [registered] }), { list: [REDACTED] });
  });
});

describe('cost', () => {
  it('redacts a 4 KiB message against 200 registered values in well under a millisecond on average', () => {
    clearRegisteredSecretValues();
    registerSecretValues(Array.from({ length: 200 }, () => alnum(40)));
    const message = `${'upstream said: nothing to see here. '.repeat(110)}${TOKENS['GitHub classic'] ?? ''}`;
    const rounds = 2000;
    const started = process.hrtime.bigint();
    for (let round = 0; round < rounds; round++) redact(message);
    const microseconds = Number(process.hrtime.bigint() - started) / 1000 / rounds;
    // Loose on purpose (a busy machine): the figure is reported, the bound only catches a super-linear step.
    assert.ok(microseconds < 5_000, `${microseconds} µs per message`);
    console.log(`redact: ${microseconds.toFixed(1)} µs per 4 KiB message, 200 registered values`);
  });
});
