#!/usr/bin/env bash
# `npm run bench`: bench/run.ts on Node 22, the runtime the Lambda functions run on (nodejs22.x), whatever the
# machine's own `node`: the benchmarks price the functions' CPU (the verifier's cold start, a poll's LISTs, the first
# poll after an apply), and the processes they start (the cold-start probes, fleet-scaling's poll, dynalite, the fake
# API servers) run on the same Node (`process.execPath`). On Node 20 the same code measures up to half again as much
# CPU for the first poll after an apply (docs/benchmarks.md). Node 22 comes from scripts/node22.sh; arguments pass on
# to bench/run.ts (`--only`, `--write-results`).
set -euo pipefail
cd "$(dirname "$0")/.."
node22=$(bash scripts/node22.sh)
exec "$node22" --import tsx bench/run.ts "$@"
