// A node:test reporter that adds up, per test file, how long its top-level tests and suites took, and writes that as
// one JSON object `{ "test/…/x.test.ts": milliseconds }` at the end. test/support/run.mjs balances its shards with
// it (`--write-durations` keeps it in test/support/durations.json). A top-level test defined in a helper counts for
// that helper's file.
import { relative } from 'node:path';

export default async function* durationsReporter(source) {
  const root = process.cwd();
  /** File → milliseconds. */
  const totals = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const name = relative(root, file);
    totals[name] = Math.round((totals[name] ?? 0) + (details?.duration_ms ?? 0));
  }
  yield `${JSON.stringify(totals)}\n`;
}
