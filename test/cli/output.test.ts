// The CLI's output layer on every character the printable rule names: tables stay aligned with an escape in a cell,
// and JSON and YAML hold no raw control or bidi character yet parse back to the very value printed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { formatJson, formatTable, formatYaml, printLines } from '../../lib/cli/output.js';

/** Every kind of character printable escapes, in one string, between ordinary text. */
const EVERY_KIND = [
  'start',
  '\u0000\u0007\u0008\u001b[2J\r',
  '\u007f\u0080\u009b31m\u009f',
  '\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069',
  '\ud800',
  'end',
].join(' ');

/** Code points a terminal acts on (C0 but line feed, DEL, C1), bidi controls, separators, lone surrogates. */
function rawCharacters(text: string): string[] {
  const found: string[] = [];
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    const control = (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
    const bidi = code === 0x61c || code === 0x200e || code === 0x200f || (code >= 0x2028 && code <= 0x202e);
    const isolate = code >= 0x2066 && code <= 0x2069;
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    if (control || bidi || isolate || surrogate) found.push(`U+${code.toString(16)}`);
  }
  return found;
}

/** What `print` writes to standard output. */
function printed(print: () => void): string {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string) => {
    chunks.push(chunk);
    return true;
  };
  try {
    print();
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

describe('the CLI output layer', () => {
  it('tables: every cell escaped before it is measured, so the columns stay aligned', () => {
    const [header, row] = formatTable([{ header: 'NAME' }, { header: 'MESSAGE' }], [['a\u001b[31mb', 'after']]);
    assert.equal(row, 'a\\u{1b}[31mb  after');
    assert.equal(header?.indexOf('MESSAGE'), row?.indexOf('after'));
  });

  it('a table is cut at 120 columns unless its last column runs, which is then whole and escaped', () => {
    const message = `${'word '.repeat(40)}\u001b end`;
    const [, clipped] = formatTable([{ header: 'NAME' }, { header: 'MESSAGE' }], [['a', message]]);
    assert.equal(clipped?.length, 120);
    assert.ok(clipped?.endsWith('…'));
    const [, whole] = formatTable([{ header: 'NAME' }, { header: 'MESSAGE', runs: true }], [['a', message]]);
    assert.equal(whole, `a     ${'word '.repeat(40)}\\u{1b} end`);
  });

  it('lines: nothing raw, a line break inside a line shown, not made', () => {
    const text = printed(() => printLines([EVERY_KIND, 'two\nlines']));
    assert.deepEqual(rawCharacters(text), []);
    assert.ok(text.includes('\\u{1b}[2J') && text.includes('\\u{202e}') && text.includes('\\u{9b}31m'));
    assert.equal(text.split('\n').length, 3, 'two lines and the final line break');
  });

  it('JSON: nothing raw, the same value parsed back', () => {
    const value = { [EVERY_KIND]: EVERY_KIND, list: [EVERY_KIND, 'plain'] };
    const text = formatJson(value);
    assert.deepEqual(rawCharacters(text), []);
    assert.deepEqual(JSON.parse(text), value);
  });

  it('YAML: nothing raw, the same value parsed back; printable strings written as before', async () => {
    const value = { [EVERY_KIND]: EVERY_KIND, list: [EVERY_KIND, 'plain'], note: 'two\nlines\n' };
    const text = await formatYaml(value);
    assert.deepEqual(rawCharacters(text), []);
    assert.deepEqual(parse(text), value);
    assert.ok(text.includes('  - plain\n') && text.includes('note: |\n  two\n  lines\n'), text);
  });
});
