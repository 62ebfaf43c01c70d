// A node:test reporter that ends the run with one line CI can read: "tests: N passed, N failed, N skipped".
// Suites (describe blocks) are not counted; only test cases are. A file that fails to load counts as a failure.
// Skipped tests are listed by reason before that line (e.g. the browser tests on a machine without Chromium), so a
// skip is never silent.
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  /** Skip reason → how many tests it skipped. */
  const reasons = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { details, skip, todo } = event.data;
    if (details?.type === 'suite') {
      // A suite only fails on its own when a hook or the file itself broke; count that once.
      if (event.type === 'test:fail' && details.error?.failureType !== 'subtestsFailed') failed += 1;
      continue;
    }
    if (skip || todo) {
      skipped += 1;
      const reason = typeof skip === 'string' ? skip : typeof todo === 'string' ? `todo: ${todo}` : 'no reason given';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    } else if (event.type === 'test:pass') passed += 1;
    else failed += 1;
  }
  for (const [reason, count] of reasons) yield `skipped ${count} test${count === 1 ? '' : 's'}: ${reason}\n`;
  yield `tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
