// The one rule for "is this an http(s) URL", and the places that apply it answer alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkIfHttp } from '../../lib/cli/dashboard/format.js';
import { parseHttpUrl } from '../../lib/cli/flags.js';
import { httpUrl, isHttpProtocol, isHttpUrl } from '../../lib/util/http-url.js';

const cases: Array<[value: string, http: boolean, https: boolean]> = [
  ['https://github.com/acme/fleet', true, true],
  ['http://localhost:9292/hooks', true, true],
  ['HTTPS://EXAMPLE.COM/', true, true],
  ['  https://example.com/padded  ', true, true],
  ['https://user:token@example.com/', true, true],
  ['ftp://example.com/', false, false],
  ['javascript:alert(1)', false, false],
  ['file:///etc/passwd', false, false],
  ['https:example.com', false, false],
  ['https:/example.com', false, false],
  ['example.com', false, false],
  ['/relative/path', false, false],
  ['https://', false, false],
  ['', false, false],
];

describe('isHttpUrl', () => {
  for (const [value, http, https] of cases) {
    it(`${JSON.stringify(value)}: http(s) ${http}, https only ${https}`, () => {
      assert.equal(isHttpUrl(value), http);
      assert.equal(isHttpUrl(value, { httpsOnly: true }), https && !value.trim().toLowerCase().startsWith('http:'));
      assert.equal(httpUrl(value) !== undefined, http);
    });
  }
  it('plain http is refused where only https is allowed', () => {
    assert.equal(isHttpUrl('http://example.com/', { httpsOnly: true }), false);
    assert.equal(isHttpUrl('https://example.com/', { httpsOnly: true }), true);
  });
  it('httpUrl gives the parsed URL', () => {
    assert.equal(httpUrl(' https://example.com/a ')?.href, 'https://example.com/a');
  });
});

describe('isHttpProtocol', () => {
  const protocols: Array<[string, boolean, boolean]> = [
    ['https://example.com/', true, true],
    ['http://example.com/', true, false],
    ['ftp://example.com/', false, false],
    ['data:text/plain,x', false, false],
  ];
  for (const [value, any, httpsOnly] of protocols) {
    it(value, () => {
      assert.equal(isHttpProtocol(new URL(value)), any);
      assert.equal(isHttpProtocol(new URL(value), { httpsOnly: true }), httpsOnly);
    });
  }
});

describe('callers apply the same rule', () => {
  for (const [value, http] of cases) {
    it(`${JSON.stringify(value)}: a flag ${http ? 'accepts' : 'refuses'} it, the dashboard ${http ? 'links' : 'prints'} it`, () => {
      if (http) assert.doesNotThrow(() => parseHttpUrl(value, '--url'));
      else assert.throws(() => parseHttpUrl(value, '--url'), /--url must be an http:\/\/ or https:\/\/ URL/);
      assert.equal(String(linkIfHttp(value)).includes('<a href='), http);
    });
  }
});
