// The names of a pull-request promotion. Weave's, kept byte for byte on every host: Weave GitOps Enterprise and
// people's tooling find the promotion's branch and pull request by them (docs/weave-compatibility.md). And ours for a
// rollback (docs/rollback.md), which Weave did not make: a branch of its own per (environment, failed revision), so
// that neither a rollback nor a later promotion moves the other's branch or retitles the other's pull request.
import { createHash } from 'node:crypto';

export const COMMIT_MESSAGE = 'promoting version';

export function promotionBranch(pipelineNamespace: string, pipelineName: string, env: string): string {
  return `promotion-${pipelineNamespace}-${pipelineName}-${env}`;
}

/** The one branch of a group's pull request into an environment (docs/release-trains.md). */
export function groupBranch(group: string, env: string): string {
  return `promotion-group-${group}-${env}`;
}

/** `Promote group web in prod (3 apps)`: a group's pull request, whatever revisions it holds. */
export function groupTitle(group: string, env: string, members: number): string {
  return `Promote group ${group} in ${env} (${members} ${members === 1 ? 'app' : 'apps'})`;
}

/** The group's commit: Weave's message, then each member with the revision the commit sets. */
export function groupCommitMessage(members: readonly { namespace: string; name: string; revision: string }[]): string {
  return [COMMIT_MESSAGE, '', ...members.map((member) => `${member.namespace}/${member.name} ${member.revision}`)].join(
    '\n',
  );
}

export function pullRequestTitle(
  pipelineNamespace: string,
  pipelineName: string,
  env: string,
  version: string,
): string {
  return `Promote ${pipelineNamespace}/${pipelineName} in ${env} to ${version}`;
}

/** Weave's body, byte for byte: Weave GitOps Enterprise finds an environment's PR by `{ns}/{name}/{env}` in it. */
export function pullRequestBody(pipelineNamespace: string, pipelineName: string, env: string): string {
  return metadataBlock([`${pipelineNamespace}/${pipelineName}/${env}`]);
}

/** Weave's block holding `{ns}/{name}/{env}` lines: one for a pipeline's pull request, one per member for a group's. */
export function metadataBlock(lines: readonly string[]): string {
  return ['<details>', '<summary>metadata</summary>', '!!! DO NOT EDIT !!!', '', ...lines, '</details>'].join('\n');
}

/** `rollback-{ns}-{name}-{env}-{failed revision}`, the revision made fit for a branch name (branchSafe). */
export function rollbackBranch(pipelineNamespace: string, pipelineName: string, env: string, from: string): string {
  return `rollback-${pipelineNamespace}-${pipelineName}-${env}-${branchSafe(from)}`;
}

/** `Roll back prod from 6.5.1 to 6.5.0 (flux-system/podinfo)`. */
export function rollbackTitle(
  pipelineNamespace: string,
  pipelineName: string,
  env: string,
  from: string,
  to: string,
): string {
  return `Roll back ${env} from ${from} to ${to} (${pipelineNamespace}/${pipelineName})`;
}

/** The rollback commit's message: what it does, in git's imperative. */
export function rollbackCommitMessage(env: string, from: string, to: string): string {
  return `roll back ${env} from ${from} to ${to}`;
}

const MAX_BRANCH_PART = 60;

/**
 * A revision as part of a branch name that every host accepts (`git check-ref-format`): letters, digits, `.`, `_`
 * and `-` only, no `..`, not starting or ending with `.` or `-`, no `.lock` ending, at most 60 characters. A
 * revision that needed any change gets the first 8 hex digits of its SHA-256 appended, so two revisions never share
 * a branch: `6.5.1` stays `6.5.1`, `6.5.1@sha256:ab…` becomes `6.5.1-sha256-ab…-1f2e3d4c`.
 */
export function branchSafe(revision: string): string {
  let part = revision.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/\.{2,}/g, '.');
  part = trimEdges(part.slice(0, MAX_BRANCH_PART));
  while (part.endsWith('.lock')) part = trimEdges(part.slice(0, -'.lock'.length));
  if (part === revision) return part;
  const digest = createHash('sha256').update(revision, 'utf8').digest('hex').slice(0, 8);
  return part === '' ? digest : `${part}-${digest}`;
}

function trimEdges(text: string): string {
  return text.replace(/^[.-]+|[.-]+$/g, '');
}
