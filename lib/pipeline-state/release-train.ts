// What a release train's environment knows of the group's other members (docs/release-trains.md), read from the
// store: who the members are (the pipelines whose environment of that name promotes into the same group, repository
// and base branch), and for `waitForAll`, which of them are not due there yet. Each member's state
// is its own decision's, made with the train taken as leaving (so no member waits on another's wait).
import { decide, holdsTheTrain, type GroupMemberWait, type GroupObservation } from '../decision/index.js';
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

export type GroupReads = Pick<Store, 'listPipelines'> & PipelineStateReader;

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
  const key = pipelineKeyOf(member);
  const state = await readPipelineState(reads, key);
  if (!state) return undefined;
  const leaving = new Map<string, GroupObservation>([[env, { waitingFor: [] }]]);
  const decision = decide({ ...decisionInputOf(state, now), groups: leaving, ...(freezes ? { freezes } : {}) });
  const explained = decision.environments.find((candidate) => candidate.env === env);
  if (!explained || !holdsTheTrain(explained.state)) return undefined;
  return { pipeline: objectKeyString(key), state: explained.state };
}
