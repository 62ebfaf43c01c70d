#!/usr/bin/env bash
# Lints the CloudFormation templates `cdk synth` wrote to cdk.out with cfn-lint, when cfn-lint is installed (a Python
# tool, not an npm dependency: the CI image has it). .cfnlintrc.yaml lists the suppressions, each with its reason;
# any other error, warning or informational finding fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cfn-lint >/dev/null 2>&1; then
  echo "cfn-lint not found: skipped (pip install cfn-lint to run it)"
  exit 0
fi
shopt -s nullglob
templates=(cdk.out/*.template.json)
if [ "${#templates[@]}" -eq 0 ]; then
  echo "cfn-lint: no template in cdk.out: run npm run synth first" >&2
  exit 1
fi
echo "$(cfn-lint --version) on ${templates[*]}"
cfn-lint -- "${templates[@]}"
echo "cfn-lint: no findings"
