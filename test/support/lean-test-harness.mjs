// Preloaded (`--import`) into the test processes that test/support/run.mjs starts, unless it is given
// `--attribute-async-errors`. Node 20's test runner enables an async hook in every test process that follows every
// asynchronous resource (each promise, timer and socket) from the test that created it to its destruction, only so
// that an uncaught error thrown later from one of them fails that test by name. The destroy half makes V8 register a
// callback for every promise: 5 to 8 % of the test processes' CPU, measured (docs/testing.md, "Figures").
//
// This keeps the part of the hook the runner needs to build the tree (a Test, which is the async resource the runner
// runs each test and suite in, is still recorded, so `it` inside `describe` and hooks nest as before) and drops the
// following and the destroy callbacks. What changes: an uncaught error from a test's asynchronous work (a timer, an
// event handler, a promise nobody awaits) still fails the run (exit code 1, the file counted as failed, the error
// printed), but the runner no longer knows which test it came from, so it reports it at the top level; the line
// below says how to find the test.
import asyncHooks from 'node:async_hooks';

const createHook = asyncHooks.createHook;
asyncHooks.createHook = function createLeanHook(callbacks) {
  const fromRunner = (new Error().stack ?? '').includes('internal/test_runner/harness');
  if (!fromRunner || typeof callbacks?.init !== 'function' || typeof callbacks.destroy !== 'function') {
    return createHook(callbacks);
  }
  const recordTest = callbacks.init;
  return createHook({
    init(asyncId, type, triggerAsyncId, resource) {
      if (type === 'Test') recordTest(asyncId, type, triggerAsyncId, resource);
    },
  });
};

// Only in the processes that run test files (the runner's own process must still crash on an error of its own).
for (const event of process.env.NODE_TEST_CONTEXT ? ['uncaughtException', 'unhandledRejection'] : []) {
  process.on(event, () => {
    process.stderr.write(
      "an uncaught error in a test's asynchronous work (the runner reports it as activity after a test ended): to " +
        'see which test it came from, run its file with `node test/support/run.mjs --attribute-async-errors <file>`\n',
    );
  });
}
