// Weave's names for a pull-request promotion, kept byte for byte on every host: Weave GitOps Enterprise and people's
// tooling find the promotion's branch and pull request by them (docs/weave-compatibility.md).

export const COMMIT_MESSAGE = 'promoting version';

export function promotionBranch(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `promotion-${pipelineNamespace}-${pipelineName}-${env}`;
}

export function pullRequestTitle(
  pipelineNamespace: string,
  pipelineName: string,
  env: string,
  version: string,
): string {
  return `Promote ${pipelineNamespace}/${pipelineName} in ${env} to ${version}`;
}

/** Weave's body, byte for byte: Weave GitOps Enterprise parses the last line to map an environment to its PR. */
export function pullRequestBody(pipelineNamespace: string, pipelineName: string, env: string): string {
  return [
    '<details>',
    '<summary>metadata</summary>',
    '!!! DO NOT EDIT !!!',
    '',
    `${pipelineNamespace}/${pipelineName}/${env}`,
    '</details>',
  ].join('\n');
}
