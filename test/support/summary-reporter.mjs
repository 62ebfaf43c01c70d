// A node:test reporter that ends the run with one line CI can read: "tests: N passed, N failed, N skipped".
// Suites (describe blocks) are not counted; only test cases are. A file that fails to load counts as a failure.
export default async function* summaryReporter(source) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { details, skip, todo } = event.data;
    if (details?.type === 'suite') {
      // A suite only fails on its own when a hook or the file itself broke; count that once.
      if (event.type === 'test:fail' && details.error?.failureType !== 'subtestsFailed') failed += 1;
      continue;
    }
    if (skip || todo) skipped += 1;
    else if (event.type === 'test:pass') passed += 1;
    else failed += 1;
  }
  yield `tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`;
}
