// The body of the pull request the strategy opens, on every host alike (only the length limit is the host's).
//
// A promotion's is Weave's block, byte for byte (naming.ts), then, when the decision gave evidence, the evidence
// section after a blank line (docs/evidence.md). Without evidence it is exactly Weave's. A rollback's says why it was
// opened and that nothing merges it, then its evidence (docs/rollback.md); it holds no Weave block, so Weave GitOps
// Enterprise, which finds an environment's promotion by `{ns}/{name}/{env}` in a body, never takes it for one.
import type { PromotionEvidence } from '../../decision/promotion-evidence.js';
import { evidenceSection, markdownText, promotedFromSentence } from './evidence-markdown.js';
import { metadataBlock, pullRequestBody } from './naming.js';

/** A body at most this long fits every host we know of but Azure DevOps, whose limit is 4000 (host.ts). */
export const DEFAULT_MAX_BODY_LENGTH = 32_000;

export function promotionPullRequestBody(
  pipelineNamespace: string,
  pipelineName: string,
  env: string,
  evidence: PromotionEvidence | undefined,
  maxLength = DEFAULT_MAX_BODY_LENGTH,
): string {
  const weave = pullRequestBody(pipelineNamespace, pipelineName, env);
  if (!evidence) return weave;
  const section = evidenceSection(evidence, promotedFromSentence(evidence), maxLength - weave.length - 2);
  return section === undefined ? weave : `${weave}\n\n${section}`;
}

export interface RollbackBody {
  pipelineNamespace: string;
  pipelineName: string;
  env: string;
  /** The revision the environment's targets failed on. */
  from: string;
  /** The last revision that was healthy there: what the markers are set back to. */
  to: string;
  evidence?: PromotionEvidence;
}

export function rollbackPullRequestBody(rollback: RollbackBody, maxLength = DEFAULT_MAX_BODY_LENGTH): string {
  const env = markdownText(rollback.env);
  const from = markdownText(rollback.from);
  const to = markdownText(rollback.to);
  const pipeline = markdownText(`${rollback.pipelineNamespace}/${rollback.pipelineName}`);
  const why = [
    `Rolls back **${env}** of the pipeline ${pipeline} from **${from}** to **${to}**, the last revision that was ` +
      `healthy there: the targets of ${env} failed on ${from}.`,
    '',
    `Opened by pipeline-controller and never merged automatically: merge it to roll back, or close it to leave ` +
      `${env} on ${from}.`,
  ].join('\n');
  const { evidence } = rollback;
  if (!evidence) return why;
  const lead = `The targets of **${markdownText(evidence.from)}** as last observed:`;
  const section = evidenceSection(evidence, lead, maxLength - why.length - 2);
  return section === undefined ? why : `${why}\n\n${section}`;
}

/** One member of a group's pull request: its pipeline, the revision its markers are set to, and why. */
export interface GroupBodyMember {
  namespace: string;
  name: string;
  revision: string;
  evidence?: PromotionEvidence;
}

/**
 * A group's body (docs/release-trains.md): what it promotes, each member with its revision, then Weave's metadata
 * block with one `{ns}/{name}/{env}` line per member (so Weave GitOps Enterprise finds each member's promotion), then
 * the evidence of each member that has some, under its name, cut to share what length is left.
 */
export function groupPullRequestBody(
  group: string,
  env: string,
  members: readonly GroupBodyMember[],
  maxLength = DEFAULT_MAX_BODY_LENGTH,
): string {
  const list = members.map(
    (member) => `- ${markdownText(`${member.namespace}/${member.name}`)}: **${markdownText(member.revision)}**`,
  );
  const weave = metadataBlock(members.map((member) => `${member.namespace}/${member.name}/${env}`));
  const lead = `Promotes the group **${markdownText(group)}** in **${markdownText(env)}**: one pull request for ${
    members.length === 1 ? 'its member' : `its ${members.length} members`
  }.`;
  // A list too long for the host (Azure DevOps takes 4000 characters) is cut from the end; Weave's block is kept
  // whole while it fits alone, as every member's promotion is found by it.
  let shown = list.length;
  const headOf = (count: number) => {
    const more = list.length - count;
    const cut = more > 0 ? [`- … and ${more} more, in the metadata below`] : [];
    return [lead, '', ...list.slice(0, count), ...cut, '', weave].join('\n');
  };
  while (shown > 0 && headOf(shown).length > maxLength) shown--;
  const head = headOf(shown);
  const withEvidence = members.filter((member) => member.evidence !== undefined);
  let body = head;
  for (const [index, member] of withEvidence.entries()) {
    const share = Math.floor((maxLength - body.length) / (withEvidence.length - index)) - 2;
    const lead = `**${markdownText(`${member.namespace}/${member.name}`)}** ${markdownText(member.revision)}: ${promotedFromSentence(member.evidence as PromotionEvidence)}`;
    const section = evidenceSection(member.evidence as PromotionEvidence, lead, share);
    if (section !== undefined) body = `${body}\n\n${section}`;
  }
  return body;
}
