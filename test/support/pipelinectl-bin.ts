// Which pipelinectl the CLI and `serve` tests start: the test runner's build of the current sources, laid out as the
// package is (test/support/compiled-cli.mjs), or the checkout's bin when a test file runs on its own.
export const PIPELINECTL_BIN = process.env.PIPELINECTL_TEST_BIN ?? 'bin/pipelinectl.js';
