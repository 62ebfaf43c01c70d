// printable (lib/logging/printable.ts): the one rule for what a log line or the demo's screen may print raw, tried
// on every character of the Basic Multilingual Plane and on a few beyond it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrintable, printable } from '../../lib/logging/printable.js';

/** The code points that are escaped, written out independently of the module's pattern. */
function isUnprintable(codePoint: number): boolean {
  return (
    codePoint <= 0x1f ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(codePoint) ||
    (codePoint >= 0x202a && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069) ||
    (codePoint >= 0xd800 && codePoint <= 0xdfff)
  );
}

describe('printable', () => {
  it('escapes exactly the controls, bidi controls, separators and lone surrogates of the BMP', () => {
    let escaped = 0;
    for (let codePoint = 0; codePoint <= 0xffff; codePoint++) {
      const character = String.fromCharCode(codePoint);
      const expected = isUnprintable(codePoint) ? `\\u{${codePoint.toString(16)}}` : character;
      assert.equal(printable(character), expected, `U+${codePoint.toString(16)}`);
      assert.equal(isPrintable(character), !isUnprintable(codePoint));
      if (expected !== character) escaped++;
    }
    assert.equal(escaped, 32 + 33 + 5 + 5 + 4 + 2048);
  });

  it('keeps text in any script, emoji and paired surrogates as they are', () => {
    for (const text of ['flux-system/podinfo', 'Grüße, 世界', 'שלום', '👩‍💻 6.9.2+build', 'main@sha1:731f7e', '']) {
      assert.equal(printable(text), text);
    }
  });

  it('escapes an attack in place, so what it was is still readable', () => {
    assert.equal(printable('/x/\u001b[2J\u001b]0;pwned\u0007'), '/x/\\u{1b}[2J\\u{1b}]0;pwned\\u{7}');
    assert.equal(printable('invoice\u202Egnp.exe'), 'invoice\\u{202e}gnp.exe');
    assert.equal(printable('a\r\nWARN forged line'), 'a\\u{d}\\u{a}WARN forged line');
    assert.equal(printable('\ud83d'), '\\u{d83d}');
    // Idempotent: what it returns is printable, so escaping twice changes nothing more.
    const once = printable('\u009b\u2066x');
    assert.equal(printable(once), once);
  });
});
