// The marker code's reading of YAML (lib/promotion/yaml-stream.ts) accepts exactly the texts `yaml`'s
// parseAllDocuments accepts, though it checks mapping keys for uniqueness in one pass of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseStream, runNow } from '../../lib/promotion/yaml-stream.js';

const TEXTS = [
  'a: 1\na: 2\n',
  '1: x\n"1": y\n',
  '~: a\nnull: b\n',
  '.nan: 1\n.nan: 2\n',
  '-0: a\n0: b\n',
  '0x10: a\n16: b\n',
  '? [a]\n: 1\n? [a]\n: 2\n',
  '? a\n? a\n',
  ': a\n: b\n',
  '{a: 1, a: 2}\n',
  '[a: 1, a: 2]\n',
  '- a: 1\n  a: 2\n',
  'a: 1\n---\na: 2\n',
  'x: &x {a: 1}\ny:\n  <<: *x\n  <<: *x\n',
  'yes: 1\ntrue: 2\n',
  'on: 1\nTrue: 2\n',
  '2001-12-14: a\n2001-12-14: b\n',
  '!!set {a, a}\n',
  '!!omap\n- a: 1\n- a: 2\n',
  'outer:\n  a: 1\n  inner:\n    a: 1\n    b: 2\n    b: 3\n',
  '',
  '# only a comment\n',
];

describe('parseStream', () => {
  for (const version of ['1.1', '1.2'] as const) {
    it(`finds duplicate keys as parseAllDocuments does, under YAML ${version}`, () => {
      for (const text of TEXTS) {
        const docs = parseAllDocuments(text, { version });
        const valid = docs.length > 0 && docs.every((doc) => doc.errors.length === 0);
        assert.equal(runNow(parseStream(text, version)) !== undefined, valid, JSON.stringify(text));
      }
    });
  }
});
