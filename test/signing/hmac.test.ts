// The webhooks' HMAC scheme (lib/signing): Flux's test vector, derived cluster keys, what a signature header may be.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  deriveClusterKey,
  EVENT_SIGNATURE_ALGORITHMS,
  signatureHeader,
  verifySignature,
  verifySignatureWithAny,
  WEAVE_SIGNATURE_ALGORITHMS,
} from '../../lib/signing/hmac.js';
import { EVENT_A_HELM_UPGRADE, EVENT_A_HMAC_KEY, EVENT_A_SIGNATURE } from '../fixtures/flux-events.js';

const FLEET_EU = { namespace: 'flux-system', name: 'fleet-eu' };

describe('Flux test vector (docs/flux-status.md, example A)', () => {
  const body = Buffer.from(EVENT_A_HELM_UPGRADE, 'utf8');

  it('verifies sha256 over the 508 exact bytes with key s3cr3t', () => {
    assert.equal(body.length, 508);
    assert.equal(verifySignature(EVENT_A_SIGNATURE, body, EVENT_A_HMAC_KEY, EVENT_SIGNATURE_ALGORITHMS), true);
    assert.equal(signatureHeader(body, EVENT_A_HMAC_KEY), EVENT_A_SIGNATURE);
  });

  it('fails for one changed byte, another key, or a body with a trailing newline', () => {
    const changed = Buffer.from(body);
    changed[100] = (changed[100] ?? 0) ^ 1;
    assert.equal(verifySignature(EVENT_A_SIGNATURE, changed, EVENT_A_HMAC_KEY, EVENT_SIGNATURE_ALGORITHMS), false);
    assert.equal(verifySignature(EVENT_A_SIGNATURE, body, 's3cr3t\n', EVENT_SIGNATURE_ALGORITHMS), false);
    const newline = Buffer.concat([body, Buffer.from('\n')]);
    assert.equal(verifySignature(EVENT_A_SIGNATURE, newline, EVENT_A_HMAC_KEY, EVENT_SIGNATURE_ALGORITHMS), false);
  });
});

describe('deriveClusterKey', () => {
  it('is the lowercase hex of HMAC-SHA256(master key, "cluster:<ns>/<name>")', () => {
    // Computed independently (python hmac) and with node:crypto below.
    const expected = '43f4c2a246b9a8356aaf7a68f7dd4f3c339db9085bb6e66ccc16ac9f6e2361fa';
    const key = deriveClusterKey('correct horse battery staple', FLEET_EU);
    assert.equal(key, expected);
    assert.equal(
      createHmac('sha256', Buffer.from('correct horse battery staple', 'utf8'))
        .update('cluster:flux-system/fleet-eu')
        .digest('hex'),
      expected,
    );
  });

  it('uses the UTF-8 bytes of the master key', () => {
    assert.equal(
      deriveClusterKey('prüfschlüssel', FLEET_EU),
      'f9b5210c735ae94f63d20f1773ab4fe99afdd5c8ec520ab546a11886cc3021c4',
    );
  });

  it('is stable and differs per cluster and per master key', () => {
    const keys = new Set([
      deriveClusterKey('m', FLEET_EU),
      deriveClusterKey('m', { namespace: 'flux-system', name: 'fleet-us' }),
      deriveClusterKey('m', { namespace: 'other', name: 'fleet-eu' }),
      deriveClusterKey('m2', FLEET_EU),
    ]);
    assert.equal(keys.size, 4);
    assert.equal(deriveClusterKey('m', FLEET_EU), deriveClusterKey('m', { ...FLEET_EU }));
    assert.match(deriveClusterKey('m', FLEET_EU), /^[0-9a-f]{64}$/);
  });

  it('signs with the hex string itself as the key, as the Flux Secret token holds it', () => {
    const key = deriveClusterKey('m', FLEET_EU);
    const body = Buffer.from('{}');
    const header = `sha256=${createHmac('sha256', Buffer.from(key, 'utf8')).update(body).digest('hex')}`;
    assert.equal(verifySignature(header, body, key, EVENT_SIGNATURE_ALGORITHMS), true);
    const rawBytes = `sha256=${createHmac('sha256', Buffer.from(key, 'hex')).update(body).digest('hex')}`;
    assert.equal(verifySignature(rawBytes, body, key, EVENT_SIGNATURE_ALGORITHMS), false);
  });
});

describe('verifySignature', () => {
  const body = Buffer.from('{"hello":"world"}');
  const key = 'weave-hmac-key';

  it('accepts sha224, sha256, sha384 and sha512 where allowed', () => {
    for (const algorithm of WEAVE_SIGNATURE_ALGORITHMS) {
      assert.equal(verifySignature(signatureHeader(body, key, algorithm), body, key, WEAVE_SIGNATURE_ALGORITHMS), true);
    }
  });

  it('accepts only sha256 on the events route', () => {
    assert.equal(verifySignature(signatureHeader(body, key, 'sha512'), body, key, EVENT_SIGNATURE_ALGORITHMS), false);
    assert.equal(verifySignature(signatureHeader(body, key, 'sha224'), body, key, EVENT_SIGNATURE_ALGORITHMS), false);
  });

  it('rejects malformed headers without throwing', () => {
    const good = signatureHeader(body, key);
    const hex = good.slice('sha256='.length);
    const sha1 = `sha1=${createHmac('sha1', key).update(body).digest('hex')}`;
    for (const header of [
      undefined,
      '',
      'sha256',
      'sha256=',
      hex,
      `SHA256=${hex}`,
      `md5=${hex}`,
      sha1,
      `sha256=${hex}00`,
      `sha256=${hex.slice(2)}`,
      `sha256=${hex.slice(0, -1)}g`,
      `sha256=${hex}, ${good}`,
      `sha256:${hex}`,
    ]) {
      assert.equal(verifySignature(header, body, key, WEAVE_SIGNATURE_ALGORITHMS), false, String(header));
    }
  });

  it('tolerates surrounding white space and upper-case hex', () => {
    const good = signatureHeader(body, key);
    assert.equal(verifySignature(` ${good} `, body, key, EVENT_SIGNATURE_ALGORITHMS), true);
    const upper = `sha256=${good.slice('sha256='.length).toUpperCase()}`;
    assert.equal(verifySignature(upper, body, key, EVENT_SIGNATURE_ALGORITHMS), true);
  });

  it('never verifies with an empty key', () => {
    assert.equal(verifySignature(signatureHeader(body, ''), body, '', WEAVE_SIGNATURE_ALGORITHMS), false);
    assert.equal(verifySignature(signatureHeader(body, ''), body, Buffer.alloc(0), WEAVE_SIGNATURE_ALGORITHMS), false);
  });

  it('verifySignatureWithAny accepts any of the keys', () => {
    const header = signatureHeader(body, 'previous');
    assert.equal(verifySignatureWithAny(header, body, ['current', 'previous'], EVENT_SIGNATURE_ALGORITHMS), true);
    assert.equal(verifySignatureWithAny(header, body, ['current'], EVENT_SIGNATURE_ALGORITHMS), false);
    assert.equal(verifySignatureWithAny(header, body, [], EVENT_SIGNATURE_ALGORITHMS), false);
  });
});
