// The Lambda functions' logger writes what the console logger writes of outside text: no control character raw,
// credentials redacted by name.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isPrintable } from '../../lib/logging/printable.js';
import { functionLogger } from '../../lib/runtime/logger.js';

it('escapes control characters and redacts credentials in Powertools JSON lines', () => {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write.bind(stream));
  for (const stream of streams) {
    stream.write = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
  }
  try {
    const logger = functionLogger('receiver');
    logger.warn('request for \u001b[2J', { path: '/v1/events/a\u0007/b\u202e', nested: { token: 'ghp_secret' } });
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i] as typeof stream.write));
  }
  const text = lines.join('');
  assert.ok(text.length > 0, 'a line was written');
  assert.ok(isPrintable(text.replaceAll('\n', '')), 'no raw control character');
  const line = JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  assert.equal(line.message, 'request for \\u{1b}[2J');
  assert.equal(line.path, '/v1/events/a\\u{7}/b\\u{202e}');
  assert.deepEqual(line.nested, { token: '[redacted]' });
});
