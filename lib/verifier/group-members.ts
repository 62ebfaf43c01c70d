// What the verifier knows of a release train's other members (docs/release-trains.md): the pipelines whose
// environment of the same name promotes into the same group (name, repository and base branch), and each one's
// promotion into it that is being made or sits in the group's open pull request. The promoter reads it to know what
// the group's pull request holds; the store is the one record of it, so it is read, never remembered.
import { promotionPullRequest } from '../decision/promotion-pull-request.js';
import {
  objectKeyString,
  pipelineKeyOf,
  type ObjectKey,
  type Pipeline,
  type PipelineEnvironment,
} from '../pipeline/model.js';
import type { PromotionEvidence } from '../decision/index.js';
import { promotionGroupOf } from '../pipeline/promotion.js';
import { groupMembers, readDueRevisions, type GroupReads } from '../pipeline-state/release-train.js';
import type { GroupMemberPromotion, GroupPromotion } from '../promotion/port.js';
import type { Store, VersionedPromotionRecord } from '../store/port.js';
import type { VerifierDeps } from './deps.js';

/** The member list of `env`'s group for the promoter, undefined when the environment's promotion is in none. */
export function groupPromotionOf(
  env: PipelineEnvironment,
  store: GroupReads & Pick<Store, 'listPromotions' | 'getPromotionEvidence'>,
  now: () => Date,
): GroupPromotion | undefined {
  const group = promotionGroupOf(env.promotion);
  if (!group) return undefined;
  // The members are read once per promotion, their promotions each time the promoter asks. A promotion's evidence
  // never changes once recorded, so it too is read once per promotion, however often the promoter asks.
  let members: Promise<Pipeline[]> | undefined;
  const evidenceOf = new Map<string, Promise<PromotionEvidence | undefined>>();
  const readEvidence = (pipeline: ObjectKey, revision: string) => {
    const key = `${objectKeyString(pipeline)} ${revision}`;
    let read = evidenceOf.get(key);
    if (!read) evidenceOf.set(key, (read = store.getPromotionEvidence(pipeline, env.name, revision)));
    return read;
  };
  return {
    members: async () => {
      members ??= groupMembers(group, env.name, store);
      const all = await members;
      const found = await Promise.all(
        all.map(async (member) => {
          const memberEnv = member.environments.find((candidate) => candidate.name === env.name);
          const records = await store.listPromotions(member);
          const made = memberEnv && inGroupPullRequest(member, memberEnv, records);
          if (!made) return undefined;
          // Its own evidence, as its promotion recorded it: the group's pull request shows every member's.
          const evidence = await readEvidence(made.pipeline, made.revision);
          return evidence ? { ...made, evidence } : made;
        }),
      );
      const made = found.filter((member): member is GroupMemberPromotion => member !== undefined);
      if (!group.waitForAll) return made;
      // A train leaves with every member due: those whose own promotion has not started yet go in at once (their
      // promotions then find their revision there), so its pull request opens with all of them.
      const started = new Set(made.map((member) => objectKeyString(member.pipeline)));
      const due = await readDueRevisions(
        store,
        all.filter((member) => !started.has(objectKeyString(pipelineKeyOf(member)))),
        env.name,
        now(),
      );
      const joining = all.flatMap((member) => {
        const revision = due.get(objectKeyString(pipelineKeyOf(member)));
        return revision === undefined ? [] : [{ pipeline: pipelineKeyOf(member), revision }];
      });
      return [...made, ...joining];
    },
  };
}

/**
 * The member's newest promotion into `env` that did not fail, when it is being made or made into a pull request
 * still open: a failed attempt leaves the one before it where it was; a newer revision merged, closed or being made
 * replaces any before it.
 */
function inGroupPullRequest(
  member: Pipeline,
  env: PipelineEnvironment,
  records: readonly VersionedPromotionRecord[],
): GroupMemberPromotion | undefined {
  const newest = records
    .filter((record) => record.env === env.name && record.state !== 'failed' && record.state !== 'pending')
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))[0];
  if (!newest) return undefined;
  const pipeline = { namespace: member.namespace, name: member.name };
  if (newest.state === 'in-progress') return { pipeline, revision: newest.revision };
  const pull = promotionPullRequest(newest, env.promotion);
  return pull?.state === 'open' ? { pipeline, revision: newest.revision, pullRequest: pull.url } : undefined;
}

/**
 * Once a member of a train that waits for all has its promotion made (the train left, or it joined the train's pull
 * request), the other members are decided again: they waited for this one, and nothing else of theirs changed to
 * make the verifier decide on them. Each is a `check-pipeline` from the stored records, as a retry that came due.
 */
export async function wakeTheTrain(
  pipeline: Pipeline,
  env: PipelineEnvironment,
  deps: Pick<VerifierDeps, 'store' | 'queue'>,
): Promise<void> {
  const group = promotionGroupOf(env.promotion);
  if (!group?.waitForAll) return;
  const members = await groupMembers(group, env.name, deps.store);
  for (const member of members) {
    if (member.namespace === pipeline.namespace && member.name === pipeline.name) continue;
    await deps.queue.send({
      type: 'check-pipeline',
      pipeline: { namespace: member.namespace, name: member.name },
      cause: 'retry',
      readTargets: false,
    });
  }
}
