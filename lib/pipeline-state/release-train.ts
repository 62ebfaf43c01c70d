// What a release train's environment knows of the group's other members (docs/release-trains.md), read from the
// store: who the members are (the pipelines whose environment of that name promotes into the same group, repository
// and base branch), and for `waitForAll`, which of them are not due there yet. Each member's state
// is its own decision's, made with the train taken as leaving (so no member waits on another's wait).
import {
  decide,
  holdsTheTrain,
  type EnvironmentState,
  type GroupMemberWait,
  type GroupObservation,
} from '../decision/index.js';
import type { FreezeSwitch } from '../pipeline/freeze.js';
import { objectKeyString, pipelineKeyOf, type Pipeline } from '../pipeline/model.js';
import { promotionGroupOf, sameGroup, type PromotionGroup } from '../pipeline/promotion.js';
import type { Store } from '../store/port.js';
import { listAll } from '../util/paged.js';
import { decisionInputOf, readPipelineState, type PipelineStateReader } from './pipeline-state.js';

/** Every stored pipeline whose environment `env` promotes into `group`, the asking pipeline among them. */
export async function groupMembers(
  group: PromotionGroup,
  env: string,
  store: Pick<Store, 'listPipelines'>,
): Promise<Pipeline[]> {
  const stored = await listAll((page) => store.listPipelines(page));
  return stored
    .map((item) => item.pipeline)
    .filter((pipeline) => {
      const memberGroup = promotionGroupOf(
        pipeline.environments.find((candidate) => candidate.name === env)?.promotion,
      );
      return memberGroup !== undefined && sameGroup(memberGroup, group);
    });
}

export type GroupReads = Pick<Store, 'listPipelines' | 'listFreezes'> & PipelineStateReader;

/** For each of `envs` of `pipeline` in a group, which other members the group's train waits for there. */
export async function readGroupObservations(
  reads: GroupReads,
  pipeline: Pipeline,
  envs: readonly string[],
  freezes: readonly FreezeSwitch[] | undefined,
  now: Date,
): Promise<Map<string, GroupObservation>> {
  const observations = new Map<string, GroupObservation>();
  for (const env of envs) {
    const group = promotionGroupOf(pipeline.environments.find((candidate) => candidate.name === env)?.promotion);
    if (!group) continue;
    const self = objectKeyString(pipelineKeyOf(pipeline));
    const others = (await groupMembers(group, env, reads)).filter(
      (member) => objectKeyString(pipelineKeyOf(member)) !== self,
    );
    const waits = await Promise.all(others.map((member) => memberWait(reads, member, env, freezes, now)));
    observations.set(env, { waitingFor: waits.filter((wait): wait is GroupMemberWait => wait !== undefined) });
  }
  return observations;
}

async function memberWait(
  reads: GroupReads,
  member: Pipeline,
  env: string,
  freezes: readonly FreezeSwitch[] | undefined,
  now: Date,
): Promise<GroupMemberWait | undefined> {
  const decided = await memberDecision(reads, member, env, freezes, now);
  if (!decided || !holdsTheTrain(decided.state)) return undefined;
  return { pipeline: objectKeyString(pipelineKeyOf(member)), state: decided.state };
}

/**
 * The revision whose promotion into `env` each member's decision would start now, the train taken as leaving: what
 * a train that waits for all puts into its pull request at once, before those members' own promotions join it.
 */
export async function readDueRevisions(
  reads: GroupReads,
  members: readonly Pipeline[],
  env: string,
  now: Date,
): Promise<Map<string, string>> {
  const freezes = await reads.listFreezes();
  const due = new Map<string, string>();
  await Promise.all(
    members.map(async (member) => {
      const revision = (await memberDecision(reads, member, env, freezes, now))?.promotes;
      if (revision !== undefined) due.set(objectKeyString(pipelineKeyOf(member)), revision);
    }),
  );
  return due;
}

/** A member's own decision in `env`, made with the train taken as leaving: its state there, and what it promotes. */
async function memberDecision(
  reads: Omit<GroupReads, 'listFreezes'>,
  member: Pipeline,
  env: string,
  freezes: readonly FreezeSwitch[] | undefined,
  now: Date,
): Promise<{ state: EnvironmentState; promotes?: string } | undefined> {
  const state = await readPipelineState(reads, pipelineKeyOf(member));
  if (!state) return undefined;
  const leaving = new Map<string, GroupObservation>([[env, { waitingFor: [] }]]);
  const decision = decide({ ...decisionInputOf(state, now), groups: leaving, ...(freezes ? { freezes } : {}) });
  const explained = decision.environments.find((candidate) => candidate.env === env);
  if (!explained) return undefined;
  const action = decision.actions.find((candidate) => candidate.type === 'promote' && candidate.env === env);
  return { state: explained.state, ...(action?.type === 'promote' ? { promotes: action.revision } : {}) };
}
